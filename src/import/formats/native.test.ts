// The native session file: a version 1 file (runner semantics in `raw`) opens with the typed fields (ADR 0014), and the
// typed runner fields survive export → import.
import { describe, expect, it } from 'vitest';
import { exportSession } from '../../export/native.ts';
import { migrateRun } from '../../model/migrate.ts';
import { Session } from '../../model/schema.ts';
import { hydrateRun } from '../../model/session-spans.ts';
import type { Run } from '../../model/types.ts';
import { importText } from '../index.ts';

/** A fork as version 1 wrote it: the runner's semantics in `raw`. */
function oldRunnerRun(): Run {
  return {
    id: 'f', title: 'Fork', sourceFormat: 'runner', models: [], outcome: { status: 'unknown' }, tags: {},
    agents: [{ id: 'Solver', name: 'Solver' }], agentRuns: [], handoffs: [], annotations: [], interventions: [], orphanSpans: 0,
    steps: [
      { id: 'f:s0', index: 0, kind: 'message', agentId: 'Solver', output: 'a', raw: { origin: 'recorded', callKey: 'k0' } },
      { id: 'f:s1', index: 1, kind: 'message', agentId: 'Solver', output: 'b', raw: { origin: 'edited', editedFrom: 'x', edit: 'replace', pruned: true } },
      { id: 'f:s2', index: 2, kind: 'message', agentId: 'Solver', output: 'c', raw: { origin: 'live', llmCallId: 'h#1' } },
    ],
    raw: { liveStatus: 'stopped', liveNote: 'no endpoint' },
  };
}

describe('native sessions and the typed runner fields', () => {
  it('a version 1 session file opens with the typed fields, and writes back as the current version', () => {
    const v1 = { format: 'mas-replay-session', version: 1, id: 's', runs: [oldRunnerRun()], engineSettings: {}, llmCalls: [] };
    const opened = importText('old.session.json', JSON.stringify(v1));
    expect(opened.runs[0].steps[1].runner?.pruned).toBe(true);
    expect(opened.runs[0].live?.status).toBe('stopped');
    const written = JSON.parse(exportSession({ runs: opened.runs }));
    expect(written.version).toBe(2);
    expect(importText('again.session.json', JSON.stringify(written)).runs).toEqual(opened.runs);
  });
});

describe('schema round trip of the typed runner fields', () => {
  it('keeps Step.runner and Run.live through export and import', () => {
    const run = migrateRun(oldRunnerRun());
    const again = importText('x', exportSession({ runs: [run] })).runs[0];
    expect(again).toEqual(run);
    expect(again.steps[2].runner?.llmCallId).toBe('h#1');
  });

  it('rejects a runner field of the wrong type with its path', () => {
    const run = migrateRun(oldRunnerRun());
    run.steps[0] = { ...run.steps[0], runner: { origin: 'nowhere' as never } };
    expect(() => importText('x.session.json', exportSession({ runs: [run] }))).toThrow(/runs\[0\]\.steps\[0\]\.runner\.origin/);
  });
});

describe('a session read through its quick look (ADR 0076)', () => {
  /** A session of one run of `n` messages, as the exporter writes it. */
  function longSession(n: number): Record<string, unknown> {
    const steps = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, index: i, kind: 'message', agentId: i % 2 ? 'a' : 'b', output: `m${i}`, usage: { input: i, output: 1, total: i + 1 } }));
    const run = { ...oldRunnerRun(), id: 'long', sourceFormat: 'chat-log', raw: undefined, agents: [{ id: 'a', name: 'a' }, { id: 'b', name: 'b' }], steps };
    return JSON.parse(exportSession({ runs: [run as Run] })) as Record<string, unknown>;
  }

  it('gives the runs zod gives, unknown keys kept', () => {
    const session = longSession(2000);
    ((session.runs as Run[])[0].steps[7] as unknown as Record<string, unknown>).notInTheSchema = { kept: true };
    const quick = importText('long.session.json', JSON.stringify(session)).runs;
    expect(quick[0].steps).toHaveLength(2000);
    expect((quick[0].steps[7] as unknown as Record<string, unknown>).notInTheSchema).toEqual({ kept: true });
    // What zod's own output gives, read the same way.
    expect(quick).toEqual(Session.parse(session).runs.map((r) => hydrateRun(migrateRun(r))));
  });

  it('still names a damage deep in a long run where zod finds it', () => {
    const session = longSession(2000);
    (session.runs as Run[])[0].steps[1500].usage = { input: 'many' } as never;
    expect(() => importText('long.session.json', JSON.stringify(session))).toThrow(/runs\[0\]\.steps\[1500\]\.usage\.input/);
  });
});
