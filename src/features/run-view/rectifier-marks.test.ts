// Pruned and rectified messages by replay position, and the global fallback that restores them.
import { describe, expect, it } from 'vitest';
import type { Intervention, Run } from '../../model/types.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { rectifierMarks } from './rectifier-marks.ts';
import { buildRunView } from './run-view-model.ts';

const gate = (stepId: string, state: string, finalOutput: string | null, originalOutput = 'orig'): Intervention => ({
  id: `rectifier:${stepId}`,
  engine: 'rectifier',
  stepId,
  action: state === 'pass' ? 'pass@2' : state,
  reason: 'r',
  heuristic: false,
  details: { state, finalOutput, originalOutput },
});

function chat(interventions: Intervention[]): Run {
  return makeRun('c', {
    agents: [{ id: 'a', name: 'a' }],
    agentRuns: [],
    steps: [0, 1, 2].map((i) => ({ id: `c:s${i}`, index: i, kind: 'message' as const, agentId: 'a', output: 'orig' })),
    interventions,
  });
}

describe('rectifier marks', () => {
  it('pruned and rewritten positions; a fallback keeps the marks but says every message was restored', () => {
    const ivs = [gate('c:s0', 'rejected', null), gate('c:s1', 'pass', 'new text'), gate('c:s2', 'pass', 'orig')];
    const marks = rectifierMarks(buildRunView(chat(ivs)));
    expect([...marks.pruned]).toEqual([0]);
    expect([...marks.rewritten]).toEqual([1]);
    expect(marks.fallback).toBe(false);
    const withFallback = rectifierMarks(buildRunView(chat([...ivs, { id: 'rectifier:fallback:c', engine: 'rectifier', action: 'global-fallback', reason: 'r', heuristic: false }])));
    expect(withFallback.fallback).toBe(true);
    expect([...withFallback.pruned]).toEqual([0]);
    expect(rectifierMarks(buildRunView(chat([]))).pruned.size).toBe(0);
    expect(marks.restart).toBeUndefined();
    const restarted = rectifierMarks(buildRunView(chat([gate('c:s0', 'rejected', null), { id: 'rectifier:restart:c', engine: 'rectifier', context: 'run', action: 'global-restart', reason: 'why', heuristic: false, details: { restartStep: 1 } }])));
    expect(restarted.restart).toEqual({ position: 1, reason: 'why' });
    expect(restarted.fallback).toBe(false);
    expect([...restarted.pruned]).toEqual([0]);
  });
});
