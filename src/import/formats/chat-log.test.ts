import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../model/summary.ts';
import { checkFixture, HAVE_SHARED, SHARED_TRACES, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { ImportError, importText } from '../index.ts';
import { estimateUsage } from '../tokens.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
const FIXTURES = sharedFiles('who-and-when');

describe.skipIf(!HAVE_SHARED)(`Who&When and Magentic-One chat logs (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('finds the twelve fixtures', () => {
    expect(FIXTURES.length).toBe(12);
  });

  for (const path of FIXTURES) {
    const name = path.slice(SHARED_TRACES.length + 1);
    it(`imports ${name}`, async () => {
      const imported = await checkFixture(path, 'chat-log', DUMPS);
      const raw = JSON.parse(readFileSync(path, 'utf8'));
      expect(imported.runs).toHaveLength(1);
      const run = imported.runs[0];

      // inspect contract: steps = length of history
      expect(summarizeRun(run).steps).toBe(raw.history.length);
      expect(run.steps.map((s) => s.number)).toEqual(raw.history.map((_: unknown, i: number) => i));

      const [annotation] = run.annotations;
      expect(annotation).toMatchObject({ source: 'dataset', taxonomy: 'WhoWhen', code: 'decisive-error', agentId: raw.mistake_agent, description: raw.mistake_reason });
      const labelled = run.steps.find((s) => s.id === annotation.stepId);
      expect(labelled?.index).toBe(Number(raw.mistake_step));
      expect(labelled?.output).toBe(raw.history[Number(raw.mistake_step)].content);
      expect(run.outcome.referenceAnswer).toBe(raw.ground_truth);
      // Who&When collects failed runs, but one Magentic-One log ends with the reference answer in other punctuation
      // ("CSI Cyber" for "CSI: Cyber"): the recorded answer decides over the dataset's premise.
      const final = /FINAL ANSWER:\s*(.+)/.exec(raw.history.at(-1).content)?.[1].trim();
      const matches = final !== undefined && final.toLowerCase().replace(/[^a-z0-9]+/g, '') === String(raw.ground_truth).toLowerCase().replace(/[^a-z0-9]+/g, '');
      expect(run.outcome.status).toBe(matches ? 'success' : 'failure');
      expect(run.outcome.finalAnswer).toBe(final);
      for (const s of run.steps) if (s.usage) expect(s.usage.estimated).toBe(true);
    });
  }

  it('turns Magentic-One `(-> X)` roles into delegations and keeps thoughts as the speaker\'s own steps', () => {
    const path = join(SHARED_TRACES, 'who-and-when/hand-crafted/3.json');
    const raw = JSON.parse(readFileSync(path, 'utf8'));
    const run = importText('x.json', readFileSync(path, 'utf8')).runs[0];
    const directed = raw.history
      .map((h: { role: string }, i: number) => ({ i, m: /^(\w+) \(-> (\w+)\)$/.exec(h.role) }))
      .filter((x: { m: RegExpExecArray | null }) => x.m);
    expect(directed.length).toBeGreaterThan(5);
    const delegations = run.handoffs.filter((h) => h.kind === 'delegation');
    expect(delegations.map((h) => [h.from, h.to[0], h.stepId])).toEqual(
      directed.map((d: { i: number; m: RegExpExecArray }) => [d.m[1], d.m[2], run.steps[d.i].id]),
    );
    expect(new Set(delegations.map((h) => h.to[0]))).toEqual(new Set(['WebSurfer', 'Assistant']));
    const thoughts = run.steps.filter((s) => s.name === 'thought');
    expect(thoughts.length).toBeGreaterThan(0);
    expect(thoughts.every((s) => s.agentId === 'Orchestrator')).toBe(true);
    expect(run.handoffs.some((h) => thoughts.some((t) => t.id === h.stepId))).toBe(false);
    expect(run.outcome.finalAnswer).toBeDefined();
  });

  it('hands each AG2 group-chat message to the next speaker', () => {
    const path = join(SHARED_TRACES, 'who-and-when/algorithm-generated/1.json');
    const raw = JSON.parse(readFileSync(path, 'utf8'));
    const run = importText('x.json', readFileSync(path, 'utf8')).runs[0];
    const names: string[] = raw.history.map((h: { name: string }) => h.name);
    const expected = names.flatMap((n, i) => (i + 1 < names.length && names[i + 1] !== n ? [[n, names[i + 1]]] : []));
    expect(run.handoffs.map((h) => [h.from, ...h.to])).toEqual(expected);
    expect(run.agents.find((a) => a.id === 'Excel_Expert')?.description).toBe(raw.system_prompt.Excel_Expert);
    expect(run.agents.find((a) => a.id === 'Computer_terminal')?.kind).toBe('system');
    expect(run.steps.filter((s) => s.agentId === 'Computer_terminal').every((s) => s.usage === undefined)).toBe(true);
  });
});

describe('chat-log importer on small inputs', () => {
  it('steps share one frozen record per role, one frozen list per recipient and one frozen usage per token count (a long log holds a few of each)', () => {
    const history = Array.from({ length: 40 }, (_, i) => ({ role: 'assistant', name: ['A', 'B', 'C'][i % 3], content: `m${i}` }));
    const run = importText('chat.json', JSON.stringify({ question: 'q', history })).runs[0];
    const raws = new Set(run.steps.map((s) => s.raw));
    expect([...raws]).toEqual([{ role: 'assistant' }]);
    expect(Object.isFrozen(run.steps[0].raw)).toBe(true);
    const lists = new Set(run.steps.flatMap((s) => (s.recipients ? [s.recipients] : [])));
    expect([...lists].map((l) => l.join())).toEqual(['B', 'C', 'A']);
    expect(run.handoffs.every((h) => h.to === run.steps.find((s) => s.id === h.stepId)?.recipients)).toBe(true);
    expect(() => run.steps[0].recipients!.push('X')).toThrow(TypeError);
    // Messages of one length in tokens share one frozen usage, the one estimateUsage gives.
    const usages = new Set(run.steps.map((s) => s.usage));
    expect(usages.size).toBeLessThan(run.steps.length / 4);
    for (const s of run.steps) expect(s.usage).toEqual(estimateUsage('', s.output!));
    expect(Object.isFrozen(run.steps[0].usage)).toBe(true);
  });

  const log = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      question: 'Add 2 and 2.\nShow work.',
      ground_truth: '4',
      history: [
        { role: 'user', name: 'Planner', content: 'Compute 2+2' },
        { role: 'user', name: 'Solver', content: 'FINAL ANSWER: 4', weird: 1 },
      ],
      ...extra,
    });

  it('derives ids from content only, keeps unknown fields, and scores the final answer', () => {
    const a = importText('a.json', log({ team: 'blue' }));
    const b = importText('b.txt', log({ team: 'blue' }));
    expect(a.runs).toEqual(b.runs);
    const run = a.runs[0];
    expect(run.title).toBe('Add 2 and 2.');
    expect(run.raw).toEqual({ team: 'blue' });
    expect(run.steps[1].raw).toEqual({ weird: 1, role: 'user' });
    expect(run.outcome).toMatchObject({ status: 'success', finalAnswer: '4', referenceAnswer: '4' });
    expect(importText('c.json', log({ team: 'red' })).runs[0].id).not.toBe(run.id);
  });

  it('keeps an out-of-range mistake_step on the run with a warning', () => {
    const r = importText('a.json', log({ mistake_agent: 'Solver', mistake_step: '9', mistake_reason: 'r' }));
    expect(r.runs[0].annotations[0].stepId).toBeUndefined();
    expect(r.warnings.join()).toMatch(/mistake_step.*outside the history/);
  });

  it('names the JSON path of a wrongly typed entry', () => {
    const bad = JSON.stringify({ question: 'q', history: [{ role: 'user', content: 'hi' }, { role: ['x'], content: 'y' }] });
    expect(() => importText('bad.json', bad)).toThrow(ImportError);
    try {
      importText('bad.json', bad);
    } catch (e) {
      expect((e as ImportError).format).toBe('chat-log');
      expect((e as ImportError).location).toBe('$.history[1].role');
    }
  });

  it('reads an AG2 ChatResult `chat_history` like a history', () => {
    const history = JSON.parse(log()).history;
    const r = importText('result.json', JSON.stringify({ chat_history: history, summary: 'done' }));
    expect(r.format).toBe('chat-log');
    expect(r.runs[0].steps.map((s) => s.agentId)).toEqual(['Planner', 'Solver']);
    expect(r.runs[0].raw).toEqual({ summary: 'done' });
    expect(() => importText('result.json', JSON.stringify({ chat_history: [history[0], 'oops'] }))).toThrow(/\$\.chat_history\[1\]/);
  });

  it('gives identical documents in one file distinct run ids', () => {
    const one = JSON.parse(log());
    const r = importText('two.json', JSON.stringify([one, one]));
    expect(r.runs.map((x) => x.id)).toEqual([r.runs[0].id, `${r.runs[0].id}~2`]);
    expect(r.runs[1].steps[0].id.startsWith(`${r.runs[0].id}~2:`)).toBe(true);
  });
});
