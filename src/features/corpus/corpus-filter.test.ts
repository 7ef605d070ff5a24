import { describe, expect, it } from 'vitest';
import type { RunMetrics } from '../../model/statistics.ts';
import { filterRuns, type CorpusQuery } from './corpus-filter.ts';

const run = (id: string, patch: Partial<RunMetrics>): RunMetrics => ({
  id, title: id, task: '', tags: {}, format: 'native', arm: 'baseline', outcome: 'success', steps: 1, agents: 1, tokens: 0,
  tokensEstimated: false, overhead: 0, interventions: 0, durationMs: null, simulated: false, ...patch,
});
const runs = [
  run('a', { tags: { level: '10' }, tokens: 5, task: 'Find the capital' }),
  run('b', { tags: { level: '2', arm: 'supervised' }, arm: 'supervised', tokens: 50, outcome: 'failure' }),
  run('c', { tags: { level: '2' }, tokens: 9 }),
];
const q: CorpusQuery = { groupBy: 'level', text: '', arm: '', outcome: '', group: '', sort: 'tokens', descending: false };

describe('corpus filter', () => {
  it('sorts numbers as numbers and tags naturally', () => {
    expect(filterRuns(runs, q).map((r) => r.id)).toEqual(['a', 'c', 'b']);
    expect(filterRuns(runs, { ...q, sort: 'group', descending: true }).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });
  it('filters by text, arm, outcome and group value', () => {
    expect(filterRuns(runs, { ...q, text: 'CAPITAL' }).map((r) => r.id)).toEqual(['a']);
    expect(filterRuns(runs, { ...q, arm: 'supervised' }).map((r) => r.id)).toEqual(['b']);
    expect(filterRuns(runs, { ...q, outcome: 'failure' }).map((r) => r.id)).toEqual(['b']);
    expect(filterRuns(runs, { ...q, group: '2' }).map((r) => r.id)).toEqual(['c', 'b']);
  });
});
