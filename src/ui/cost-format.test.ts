import { describe, expect, it } from 'vitest';
import type { CostEstimate, EngineCost } from '../llm/cost.ts';
import { estimateLine, estimateOneTimeLine, estimatePerRun, oneTimeLine, perRunLine, totalSpent } from './cost-format.ts';

const estimate = (cached: boolean): CostEstimate => ({
  basis: 'estimate',
  calls: cached ? 5 : 13,
  tokens: { input: 0, output: 0, total: 0 },
  oneTime: { calls: 8, tokens: { input: 51747, output: 0, total: 51747 }, cached, what: 'pool' },
  runs: [
    { runId: 'a', calls: 3, tokens: { input: 1000, output: 200, total: 1200 } },
    { runId: 'b', calls: 2, tokens: { input: 500, output: 100, total: 600 } },
  ],
  assumptions: [],
});

describe('cost words', () => {
  it('keeps the one-time cost out of the per-run estimate', () => {
    expect(estimatePerRun(estimate(false))).toEqual({ calls: 5, tokens: { input: 1500, output: 300, total: 1800 } });
    expect(estimateLine(estimate(false))).toBe('5 calls · ~1,800 tokens (1,500 in, 300 out)');
    expect(estimateOneTimeLine(estimate(false))).toBe('one-time pool embedding: 8 calls · ~51,747 tokens, then cached');
    expect(estimateOneTimeLine(estimate(true))).toBe('one-time pool embedding: cached, no request');
    expect(estimateLine({ ...estimate(false), runs: [] })).toBe('no call: nothing would be sent');
  });

  it('says estimated and served from cache where they apply', () => {
    const cost: EngineCost = {
      perRun: { calls: 16, tokens: { input: 30000, output: 3062, total: 33062 }, estimated: false },
      oneTime: { calls: 8, tokens: { input: 51747, output: 0, total: 51747 }, cached: false, estimated: false, what: 'embeddings of the pool' },
    };
    expect(perRunLine(cost.perRun)).toBe('16 calls · 33,062 tokens (30,000 in, 3,062 out)');
    expect(perRunLine({ ...cost.perRun, estimated: true })).toMatch(/estimated/);
    expect(oneTimeLine(cost.oneTime!)).toBe('embeddings of the pool: 8 calls · 51,747 tokens');
    expect(totalSpent(cost)).toBe(33062 + 51747);
    const cached = { ...cost, oneTime: { ...cost.oneTime!, calls: 0, tokens: { input: 0, output: 0, total: 0 }, cached: true } };
    expect(oneTimeLine(cached.oneTime)).toMatch(/served from cache/);
    expect(totalSpent(cached)).toBe(33062);
  });
});
