// Runs written before the runner's semantics were typed (session version 1, old IndexedDB records) read into
// `Step.runner` / `Run.live`; imported runs' raw fields are left alone. The session file side: src/import/native.test.ts.
import { describe, expect, it } from 'vitest';
import { migrateRun } from './migrate.ts';
import { Session } from './schema.ts';
import type { Run, Step } from './types.ts';

const stats = { copied: 1, replayed: 0, live: 1, edited: 1, toolReplayed: 0, scripted: 0 };

function oldRunnerRun(): Run {
  const step = (i: number, raw: Record<string, unknown>): Step => ({ id: `f:s${i}`, index: i, kind: 'message', agentId: 'Solver', output: `t${i}`, raw });
  return {
    id: 'f',
    title: 'Fork of x at step 1',
    sourceFormat: 'runner',
    models: [],
    outcome: { status: 'unknown' },
    tags: {},
    agents: [{ id: 'Solver', name: 'Solver' }],
    agentRuns: [],
    steps: [
      step(0, { origin: 'recorded', callKey: 'k0', superseded: true }),
      step(1, { origin: 'edited', editedFrom: 'before', edit: 'replace', pruned: true }),
      step(2, { origin: 'live', llmCallId: 'h#1', produced: 'long text', selector: 'chosen by the selector', extra: 'kept' }),
      step(3, { origin: 'somewhere else' }),
    ],
    handoffs: [],
    annotations: [],
    interventions: [],
    orphanSpans: 0,
    raw: { liveStatus: 'stopped', liveNote: 'no endpoint', forkStats: stats, forkStyle: 'prompts', resource: { a: 1 } },
  };
}

describe('migrateRun', () => {
  it('moves the runner’s raw keys into the typed fields and keeps the rest in raw', () => {
    const run = migrateRun(oldRunnerRun());
    expect(run.live).toEqual({ status: 'stopped', note: 'no endpoint', forkStats: stats, forkStyle: 'prompts' });
    expect(run.raw).toEqual({ resource: { a: 1 } });
    expect(run.steps.map((s) => s.runner)).toEqual([
      { origin: 'recorded', callKey: 'k0', superseded: true },
      { origin: 'edited', editedFrom: 'before', edit: 'replace', pruned: true },
      { origin: 'live', llmCallId: 'h#1', produced: 'long text', selector: 'chosen by the selector' },
      undefined,
    ]);
    expect(run.steps.map((s) => s.raw)).toEqual([undefined, undefined, { extra: 'kept' }, { origin: 'somewhere else' }]);
    expect(Session.shape.runs.element.safeParse(run).success).toBe(true);
  });

  it('returns the same object when there is nothing to move, and never touches an imported run', () => {
    const migrated = migrateRun(oldRunnerRun());
    expect(migrateRun(migrated)).toBe(migrated);
    const imported = { ...oldRunnerRun(), sourceFormat: 'chat-log' as const };
    expect(migrateRun(imported)).toBe(imported);
  });

});
