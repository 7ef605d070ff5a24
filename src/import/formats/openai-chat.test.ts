import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../model/summary.ts';
import { checkFixture, HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../../testing/fixture-kit.ts';
import { ImportError, importText } from '../index.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
const TAU = join(SHARED_TRACES, 'tau-bench/tau_dataset_failed.json');

describe.skipIf(!HAVE_SHARED)(`tau-bench trajectories (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('imports tau_dataset_failed.json', async () => {
    const imported = await checkFixture(TAU, 'openai-chat', DUMPS);
    const raw = JSON.parse(readFileSync(TAU, 'utf8'));
    expect(imported.runs.map((r) => r.id)).toEqual(raw.map((r: { task_id: number }) => `tau-${r.task_id}`));
    imported.runs.forEach((run, i) => {
      const traj = raw[i].traj;
      const summary = summarizeRun(run);
      expect(summary.steps).toBe(traj.length);
      expect(run.steps.map((s) => s.number)).toEqual(traj.map((m: { index: number }) => m.index));
      expect(run.outcome).toMatchObject({ status: 'failure', score: 0 });
      // every assistant tool call is on its step, and every tool result is a tool step with the call's arguments
      const calls = traj.flatMap((m: { tool_calls?: { id: string; function: { arguments: string } }[] }) => m.tool_calls ?? []);
      expect(run.steps.flatMap((s) => s.toolCalls ?? []).map((c) => c.id)).toEqual(calls.map((c: { id: string }) => c.id));
      const toolSteps = run.steps.filter((s) => s.kind === 'tool');
      expect(toolSteps.length).toBe(traj.filter((m: { role: string }) => m.role === 'tool').length);
      for (const t of toolSteps) {
        const call = calls.find((c: { id: string }) => c.id === t.raw?.tool_call_id);
        expect(t.inputText).toBe(call.function.arguments);
        expect(t.agentId).toBe('tools');
      }
      // estimates only on assistant turns; input = every message before the turn
      expect(run.steps.filter((s) => s.usage).every((s) => s.agentId === 'assistant' && s.usage!.estimated)).toBe(true);
      const usages = run.steps.filter((s) => s.usage).map((s) => s.usage!);
      for (let k = 1; k < usages.length; k++) expect(usages[k].input).toBeGreaterThan(usages[k - 1].input);
    });
  });
});

describe('openai-chat on small inputs', () => {
  const conversation = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'c1', name: 'weather', content: 'sunny' },
    { role: 'assistant', content: 'Sunny.', extra: true },
  ];

  it('reads a bare message array and {messages} alike, with content-derived ids', () => {
    const bare = importText('a.json', JSON.stringify(conversation));
    const wrapped = importText('b.json', JSON.stringify({ messages: conversation }));
    expect(bare.format).toBe('openai-chat');
    expect(bare.runs[0].steps).toEqual(wrapped.runs[0].steps.map((s) => ({ ...s, id: s.id.replace(wrapped.runs[0].id, bare.runs[0].id), agentRunId: s.agentRunId!.replace(wrapped.runs[0].id, bare.runs[0].id) })));
    const run = bare.runs[0];
    expect(run.steps.map((s) => [s.number, s.kind, s.agentId])).toEqual([
      [1, 'message', 'system'],
      [2, 'message', 'user'],
      [3, 'message', 'assistant'],
      [4, 'tool', 'tools'],
      [5, 'message', 'assistant'],
    ]);
    expect(run.handoffs.map((h) => `${h.kind}:${h.from}>${h.to.join(',')}`)).toEqual([
      'message:user>assistant',
      'delegation:assistant>tools',
      'report:tools>assistant',
      'message:assistant>user',
    ]);
    expect(run.steps[4].raw).toEqual({ extra: true });
    expect(run.title).toBe('Weather in Paris?');
    expect(run.outcome.status).toBe('unknown');
  });

  it('reports a wrongly typed tool call with its path', () => {
    const bad = [conversation[1], { role: 'assistant', content: '', tool_calls: { id: 'x' } }];
    try {
      importText('bad.json', JSON.stringify([{ task_id: 7, reward: 1, traj: bad }]));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ImportError);
      expect((e as ImportError).location).toBe('$[0].traj[1].tool_calls');
    }
  });
});
