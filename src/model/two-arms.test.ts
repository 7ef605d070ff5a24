import { describe, expect, it } from 'vitest';
import type { Run } from './types.ts';
import { twoArmCorpus } from './two-arms.ts';

function run(id: string, tokens: number, extra: Partial<Run> = {}): Run {
  return {
    id, title: id, sourceFormat: 'native', models: [], outcome: { status: 'success' }, tags: { dataset: 'gaia' },
    agents: [{ id: 'a', name: 'a' }], agentRuns: [],
    steps: [{ id: `${id}:c`, index: 0, kind: 'llm', agentId: 'a', usage: { input: tokens - 10, output: 10, total: tokens } }],
    handoffs: [], annotations: [], interventions: [], orphanSpans: 0, ...extra,
  };
}

function shadow(source: Run, tokens: number, overhead = 0): Run {
  return {
    ...run(`${source.id}::shadow`, tokens, { tags: { ...source.tags, arm: 'supervised' }, outcome: { status: 'unknown' } }),
    interventions: overhead ? [{ id: 'i', engine: 'supervisor', action: 'approve', reason: 'r', heuristic: false, tokens: { input: overhead, output: 0, total: overhead } }] : [],
    derived: { kind: 'shadow-supervised', sourceRunId: source.id, estimate: true, method: 'endpoint', tokens: { baseline: 0, supervisedEstimate: tokens, supervisorOverhead: overhead, netSaving: 0 } },
  };
}

describe('two arms of recorded runs', () => {
  it('baseline measured, estimate labelled estimated, simulated runs a group apart, net saving over pairs', () => {
    const a = run('a', 1000);
    const b = run('b', 3000);
    const c = run('c', 5000);
    const sim = run('sim', 100, { simulated: true });
    const simSup = run('sim2', 90, { simulated: true, tags: { arm: 'supervised' } });
    const measuredSupervised = run('m', 10, { tags: { arm: 'supervised' } });
    const corpus = twoArmCorpus([a, b, c, shadow(a, 800, 50), shadow(b, 2500), sim, simSup, measuredSupervised]);
    expect(corpus.baseline.n).toBe(3);
    expect(corpus.baseline.meanTokens).toEqual({ value: 3000, basis: 'measured', n: 3 });
    expect(corpus.baseline.notes).toEqual([]);
    expect(corpus.estimate.n).toBe(2);
    expect(corpus.estimate.meanTokens).toEqual({ value: 1650, basis: 'estimated', n: 2 });
    expect(corpus.estimate.variance.basis).toBe('estimated');
    expect(corpus.estimate.meanNetTokens.value).toBe(1675);
    expect(corpus.estimate.notes.length).toBeGreaterThan(0);
    // Pairs: a 1000 → 800 + 50, b 3000 → 2500: saved 150 + 500 over 2 pairs.
    expect(corpus.netSaving).toEqual({ value: 325, basis: 'estimated', n: 2 });
    expect(corpus.netSavingPct.value).toBeCloseTo((650 / 4000) * 100, 10);
    expect(corpus.withoutEstimate).toEqual(['c']);
    expect(corpus.otherRecorded).toBe(1);
    // Simulated runs never enter the recorded arms.
    expect(corpus.rows.map((r) => r.id).sort()).toEqual(['a', 'a::shadow', 'b', 'b::shadow', 'c']);
    expect(corpus.simulated?.overall.baseline.n).toBe(1);
    expect(corpus.simulated?.overall.supervised.n).toBe(1);
    expect(corpus.statistics.overall.supervised.n).toBe(2);
    expect(corpus.rows.filter((r) => r.shadowOf).every((r) => r.durationMs === null && r.tokensEstimated)).toBe(true);
  });

  it('says when baseline tokens are tokenizer counts', () => {
    const a = run('a', 100);
    a.steps[0].usage!.estimated = true;
    const corpus = twoArmCorpus([a]);
    expect(corpus.baseline.meanTokens.basis).toBe('estimated');
    expect(corpus.baseline.notes[0]).toMatch(/tokenizer/);
    expect(corpus.simulated).toBeNull();
    expect(Number.isNaN(corpus.netSaving.value)).toBe(true);
  });
});
