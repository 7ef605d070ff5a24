// The cost estimate of a rectify pass: every message's prompts counted, or on a long run an even sample of them scaled
// to all (SAMPLED_ABOVE, ADR 0086), close to the exact count and saying so in its assumptions.
import { describe, expect, it } from 'vitest';
import type { Run, Step } from '../../model/types.ts';
import { makeRun } from '../../testing/test-runs.ts';
import type { Indicator } from './indicators.ts';
import { estimateRectifierCost } from './estimate.ts';

const ind = (name: string, trigger: string): Indicator => ({ name, detailed_definition: `Mishandles ${trigger}.`, evaluator_prompt: { trigger_condition: trigger, risk_alert: `Check ${name}.` }, metadata: {} });
const pool = { name: 'toy.json', indicators: [ind('MULTIPLY', 'When the agent multiplies numbers'), ind('UNITS', 'When units are converted'), ind('ROOTS', 'When roots of equations are found'), ind('SUMS', 'When a sum of many numbers is taken')] };
/** A rough counter: the estimate's arithmetic, not the tokenizer, is under test. */
const countTokens = (text: string) => Math.ceil(text.length / 4);

/** A chat of `n` messages among three agents, of lengths that vary along the run. */
function chat(n: number): Run {
  const run = makeRun('chat', { agents: ['planner', 'coder', 'critic'].map((id) => ({ id, name: id, kind: 'agent' })) as Run['agents'] });
  run.steps = Array.from({ length: n }, (_, i): Step => ({ id: `s${i}`, index: i, kind: 'message', agentId: run.agents[i % 3].id, output: `units and sums ${'word '.repeat(5 + ((i * 7) % 60))}${i}` }));
  return run;
}

describe('the rectifier cost estimate', () => {
  it('counts every message of a run up to the limit, and an even sample of a longer one scaled to all of it', async () => {
    const run = chat(3000);
    const exact = await estimateRectifierCost([run], { pool, countTokens });
    // A keyword call and an audit of each indicator BM25 picks (the pool has 4, fewer than K = 5).
    expect(exact.runs[0].calls).toBe(3000 * (1 + 4));
    expect(exact.assumptions.join(' ')).not.toMatch(/spread evenly/);
    const sampled = await estimateRectifierCost([run], { pool, countTokens, sampleMessages: 300 });
    expect(sampled.runs[0].calls).toBe(exact.runs[0].calls);
    expect(Math.abs(sampled.tokens.total - exact.tokens.total) / exact.tokens.total).toBeLessThan(0.02);
    expect(sampled.assumptions.join(' ')).toMatch(/300 of its 3,000 agent messages, spread evenly over the run/);
    // A run at the limit is counted whole.
    const atLimit = await estimateRectifierCost([run], { pool, countTokens, sampleMessages: 3000 });
    expect(atLimit).toEqual(exact);
  });
});
