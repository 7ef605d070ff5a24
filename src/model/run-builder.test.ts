import { describe, expect, it } from 'vitest';
import { attachAnnotationSets, withAnnotationSets } from './annotations.ts';
import { emptyRecord } from './record.ts';
import { RunBuilder } from './run-builder.ts';

describe('RunBuilder', () => {
  it('numbers steps, handoffs and interventions in order and keeps one agent run per agent', () => {
    const b = new RunBuilder('r', 'the task');
    b.addAgent({ id: 'a', name: 'a' });
    b.addAgent({ id: 'a', name: 'again' });
    b.addAgent({ id: 'b', name: 'b' });
    const s0 = b.addStep({ kind: 'message', agentId: 'a', agentRunId: b.agentRunId('a'), output: 'hi', startTime: 5, endTime: 9 });
    const s1 = b.addStep({ id: 'own', kind: 'message', agentId: 'b', output: 'yo', startTime: 2 });
    b.addHandoff(s0, { to: ['b'], kind: 'message', content: 'hi' });
    b.intervene({ engine: 'supervisor', stepId: s1.id, context: 'x', action: 'a', reason: 'r', heuristic: true });
    const run = b.build({ title: 'T', sourceFormat: 'native', outcome: { status: 'unknown' } }, { timesFromSteps: true });
    expect(run.steps.map((s) => `${s.id}@${s.index}`)).toEqual(['r:s0@0', 'own@1']);
    expect(run.agents.map((a) => a.name)).toEqual(['a', 'b']);
    expect(run.agentRuns).toEqual([{ id: 'r:run:a', agentId: 'a', task: 'the task' }, { id: 'r:run:b', agentId: 'b', task: 'the task' }]);
    expect(run.handoffs[0]).toEqual({ id: 'r:h0', from: 'a', to: ['b'], kind: 'message', stepId: 'r:s0', content: 'hi' });
    expect(run.interventions[0].id).toBe('r:iv0');
    expect([run.startTime, run.endTime, run.task]).toEqual([2, 9, 'the task']);
    expect(b.build({ title: 'T', sourceFormat: 'native', outcome: { status: 'unknown' } }).startTime).toBeUndefined();
  });

  it('takes agents without a run of their own, agent runs laid out by the caller and named handoffs', () => {
    const b = new RunBuilder('r');
    b.addAgent({ id: 'a', name: 'a' }, null);
    b.addAgent({ id: 'b', name: 'b' }, null);
    const chat = b.addAgentRun({ id: 'r:chat', agentId: 'a', startTime: 1 });
    const s0 = b.addStep({ kind: 'message', agentId: 'b', agentRunId: chat.id, output: 'x' });
    b.addHandoff(s0, { id: 'r:h-report', to: ['a'], kind: 'report', content: 'x' });
    chat.endTime = 7;
    const run = b.build({ title: 'T', sourceFormat: 'native', outcome: { status: 'unknown' } });
    expect(run.agentRuns).toEqual([{ id: 'r:chat', agentId: 'a', startTime: 1, endTime: 7 }]);
    expect(run.handoffs.map((h) => `${h.id} ${h.from}`)).toEqual(['r:h-report b']);
  });
});

describe('annotation sets', () => {
  const run = (id: string) => new RunBuilder(id).build({ title: id, sourceFormat: 'native', outcome: { status: 'unknown' } });
  const note = (id: string) => ({ id, source: 'dataset' as const, taxonomy: 'T', code: 'c' });

  it('attach each annotation id once and leave sets naming no run unattached', () => {
    const runs = [run('__proto__'), run('x')];
    const left = attachAnnotationSets(runs, [{ runId: '__proto__', annotations: [note('n1'), note('n1')] }, { runId: 'constructor', annotations: [note('n2')] }]);
    expect(runs[0].annotations.map((a) => a.id)).toEqual(['n1']);
    expect(left.map((s) => s.runId)).toEqual(['constructor']);
  });

  it('replace only the runs that gain an annotation, never mutating the ones held', () => {
    const held = emptyRecord<ReturnType<typeof run>>();
    held.a = run('a');
    held.b = run('b');
    const before = { a: held.a, b: held.b };
    withAnnotationSets(held, ['a', 'b', 'toString'], [{ runId: 'a', annotations: [note('n')] }, { runId: 'toString', annotations: [note('m')] }]);
    expect(held.a).not.toBe(before.a);
    expect(before.a.annotations).toEqual([]);
    expect(held.a.annotations.map((x) => x.id)).toEqual(['n']);
    expect(held.b).toBe(before.b);
    expect(Object.keys(held)).toEqual(['a', 'b']);
  });
});
