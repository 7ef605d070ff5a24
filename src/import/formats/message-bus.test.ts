import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Run as RunSchema } from '../../model/schema.ts';
import { summarizeRun } from '../../model/summary.ts';
import { checkFixture, HAVE_SHARED, SHARED_TRACES, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { ImportError, importText } from '../index.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
// Result files (one task per line) sit at the top of the folder; runs/<id>/messages.jsonl are message logs, one run each.
const FIXTURES = sharedFiles('smolagents-bus').filter((path) => !path.includes('/runs/'));

describe.skipIf(!HAVE_SHARED)(`smolagents decentralised team bus logs (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('finds the two fixtures', () => {
    expect(FIXTURES.length).toBe(2);
  });

  for (const path of FIXTURES) {
    it(`imports ${path.slice(SHARED_TRACES.length + 1)}`, async () => {
      const imported = await checkFixture(path, 'message-bus', DUMPS);
      const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
      expect(imported.runs).toHaveLength(lines.length);
      expect(new Set(imported.runs.map((r) => r.id)).size).toBe(lines.length);
      imported.runs.forEach((run, i) => {
        const line = lines[i];
        expect(run.task).toBe(line.question);
        expect(run.outcome.referenceAnswer).toBe(line.true_answer);
        expect(run.tags.dataset).toBe(line.source);
        if (line.answer === null) expect(run.outcome.status).toBe('failure');
        // fields we do not map stay visible
        expect(run.raw?.end_time).toBe(line.end_time);
        expect(run.endTime! - run.startTime!).toBeCloseTo(line.duration * 1000, 3);
      });
      const statuses = new Set(imported.runs.map((r) => r.outcome.status));
      expect(statuses.has('success') && statuses.has('failure')).toBe(true);
    });
  }
});

// The benchmark's rule read again from the MANIFEST, written independently of model/benchmark-scoring.ts.
function manifestNormalise(text: unknown): string {
  let t = String(text ?? '').trim().toLowerCase().split(/\s+/).filter((w) => w !== '').join(' ');
  while (t !== '' && '.!?;,'.includes(t[t.length - 1])) t = t.slice(0, -1);
  return t;
}

describe.skipIf(!HAVE_SHARED)(`result files scored by the benchmark's own rule (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  for (const path of FIXTURES) {
    it(`totals of ${path.slice(SHARED_TRACES.length + 1)} equal an independent reading of the raw file`, () => {
      const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
      let exact = 0;
      let contains = 0;
      let duration = 0;
      for (const line of lines) {
        const truth = manifestNormalise(line.true_answer);
        const answer = manifestNormalise(line.answer);
        if (truth !== '' && answer === truth) exact++;
        if (truth !== '' && answer.indexOf(truth) !== -1) contains++;
        duration += line.duration;
      }
      const runs = importText(path, readFileSync(path, 'utf8')).runs;
      const sum = (f: (b: NonNullable<(typeof runs)[0]['benchmark']>) => number) => runs.reduce((n, r) => n + f(r.benchmark!), 0);
      expect(runs.every((r) => r.benchmark?.source === 'benchmark')).toBe(true);
      expect(sum((b) => b.exactMatch)).toBe(exact);
      expect(sum((b) => b.contains)).toBe(contains);
      expect(sum((b) => b.durationS ?? 0)).toBeCloseTo(duration, 6);
      // Outcome per run from the exact match.
      expect(runs.filter((r) => r.outcome.status === 'success')).toHaveLength(exact);
      expect(runs.filter((r) => r.outcome.status === 'failure')).toHaveLength(lines.length - exact);
      // The figures this reading gives, pinned (gaia: 63 tasks, 4 exact, 17 contains; math: 100, 16, 53).
      const pinned = path.includes('__gaia__') ? [63, 4, 17] : [100, 16, 53];
      expect([lines.length, exact, contains]).toEqual(pinned);
    });
  }
});

describe('message-bus messages', () => {
  const messages = [
    { id: 'a1', timestamp: '2025-08-27T15:00:00.000Z', sender: 'agent_1', type: 'message', content: 'I think the answer is 4', recipients: ['@all'], thread_id: 'main', reply_to: null },
    { id: 'a2', timestamp: '2025-08-27T15:00:01.000Z', sender: 'agent_2', type: 'message', content: 'Check step 2', recipients: ['agent_1'], thread_id: 'main', reply_to: 'a1' },
    { id: 'a3', timestamp: '2025-08-27T15:00:02.000Z', sender: 'agent_3', type: 'poll', content: { poll_id: 'p1', question: 'Is it 4?', options: ['yes', 'no'], status: 'open' }, recipients: null, thread_id: 'main', reply_to: null },
    { id: 'a4', timestamp: '2025-08-27T15:00:03.000Z', sender: 'agent_1', type: 'vote', content: { poll_id: 'p1', vote: 'yes' }, recipients: [], thread_id: 'main', reply_to: 'a3' },
  ];

  it('reads a run line with messages: recipients, broadcasts and polls', () => {
    const line = { question: 'What is 2+2?', original_question: 'What is 2+2?', answer: '4', true_answer: '4', source: 'math', model_id: 'm', agent_action_type: 'decentralized-consensus', start_time: 1756306800, end_time: '2025-08-27 17:00:03', duration: 3, messages };
    const run = importText('x.jsonl', `${JSON.stringify(line)}\n${JSON.stringify({ ...line, question: 'Other?' })}\n`).runs[0];
    expect(summarizeRun(run).steps).toBe(4);
    expect(run.agents.map((a) => a.id)).toEqual(['agent_1', 'agent_2', 'agent_3']);
    expect(run.steps.map((s) => s.recipients)).toEqual([['agent_2', 'agent_3'], ['agent_1'], ['agent_1', 'agent_2'], ['agent_2', 'agent_3']]);
    expect(run.handoffs.map((h) => [h.kind, h.from, h.to.join('+')])).toEqual([
      ['broadcast', 'agent_1', 'agent_2+agent_3'],
      ['message', 'agent_2', 'agent_1'],
      ['broadcast', 'agent_3', 'agent_1+agent_2'],
      ['broadcast', 'agent_1', 'agent_2+agent_3'],
    ]);
    expect(run.steps.map((s) => s.name)).toEqual([undefined, undefined, 'poll', 'vote']);
    expect(JSON.parse(run.steps[2].output!)).toEqual(messages[2].content);
    expect(run.steps[1].raw).toEqual({ id: 'a2', thread_id: 'main', reply_to: 'a1' });
    expect(run.outcome.status).toBe('success');
    expect(run.steps.every((s) => s.usage?.estimated)).toBe(true);
  });

  it('a duration whose milliseconds overflow gives no end time, and the run stays schema-valid (found by fuzzing)', () => {
    const line = { question: 'q', answer: '4', true_answer: '4', source: 'math', model_id: 'm', start_time: 1756306800, duration: 1.797693134862316e305, messages };
    const run = importText('x.jsonl', `${JSON.stringify(line)}\n`).runs[0];
    expect(run.startTime).toBe(1756306800000);
    expect(run.endTime).toBeUndefined();
    expect(RunSchema.safeParse(run).success).toBe(true);
  });

  it('reads the store\'s own messages.jsonl as one run', () => {
    const text = messages.map((m) => JSON.stringify(m)).join('\n');
    const r = importText('messages.jsonl', text);
    expect(r.format).toBe('message-bus-log');
    expect(r.runs).toHaveLength(1);
    expect(r.runs[0].steps).toHaveLength(4);
    expect(importText('unknown', text).runs).toEqual(r.runs);
  });

  it('names the path of a wrongly typed recipient list', () => {
    const bad = [messages[0], { ...messages[1], recipients: 'agent_1' }].map((m) => JSON.stringify(m)).join('\n');
    try {
      importText('bad.jsonl', bad);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ImportError);
      expect((e as ImportError).location).toBe('$[line 2].recipients');
    }
  });
});
