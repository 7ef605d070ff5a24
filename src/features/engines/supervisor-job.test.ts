import { describe, expect, it } from 'vitest';
import type { Intervention, Run } from '../../model/types.ts';
import { withIntervention } from '../../store/engine-results.ts';
import { readRunningMarker, RUNNING_JOB_KEY, supervisorInterventions, tokensOf } from './supervisor-job.ts';

const iv = (id: string, engine: Intervention['engine'], total?: number): Intervention => ({
  id,
  engine,
  stepId: id,
  action: 'approve',
  reason: 'r',
  heuristic: total === undefined,
  ...(total !== undefined ? { tokens: { input: total, output: 0, total } } : {}),
});

const run = (interventions: Intervention[]) => ({ id: 'run', interventions }) as unknown as Run;

describe('supervisor job bookkeeping', () => {
  it('adds an intervention, or replaces the one with the same id, without touching the original run', () => {
    const original = run([iv('a', 'supervisor'), iv('h', 'human')]);
    const added = withIntervention(original, iv('b', 'supervisor', 5));
    expect(added.interventions.map((i) => i.id)).toEqual(['a', 'h', 'b']);
    expect(original.interventions).toHaveLength(2);
    const replaced = withIntervention(added, iv('a', 'supervisor', 7));
    expect(replaced.interventions.map((i) => i.id)).toEqual(['a', 'h', 'b']);
    expect(replaced.interventions[0].tokens?.total).toBe(7);
  });

  it("counts only the supervisor's interventions and their tokens", () => {
    const r = run([iv('a', 'supervisor', 10), iv('h', 'human', 99), iv('b', 'supervisor'), iv('c', 'supervisor', 3)]);
    const mine = supervisorInterventions(r);
    expect(mine.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(tokensOf(mine)).toBe(13);
  });
});

describe('the running-replay marker (what a reload finds)', () => {
  const store = (value: string | null) => ({ getItem: (k: string) => (k === RUNNING_JOB_KEY ? value : null), setItem() {}, removeItem() {} });
  it('reads the run that was being supervised', () => {
    expect(readRunningMarker(store(JSON.stringify({ runId: 'r1', mode: 'endpoint', startedAt: 5 })))).toEqual({ runId: 'r1', mode: 'endpoint', startedAt: 5 });
  });
  it('says nothing when absent, corrupt or of the wrong shape', () => {
    expect(readRunningMarker(store(null))).toBeUndefined();
    expect(readRunningMarker(store('{not json'))).toBeUndefined();
    expect(readRunningMarker(store(JSON.stringify({ runId: 3 })))).toBeUndefined();
    expect(readRunningMarker(undefined)).toBeUndefined();
  });
});
