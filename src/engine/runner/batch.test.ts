// A batch of 20 GSM8K tasks × {baseline, supervised} against the test server: it finishes and scores; a server
// failure mid-batch stops it with a message, and resume runs only what was left.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import type { Run } from '../../model/types.ts';
import { newBatch, runBatch, runBatchItem, summarizeBatch, type BatchSpec, type BatchState } from './batch.ts';
import { defaultTeam } from './runner.ts';
import { parseTaskSet, type LiveTask } from './tasks.ts';

const TASKS = resolve(import.meta.dirname, '../../../../shared/tasks/gsm8k.jsonl');
const HAVE_TASKS = existsSync(TASKS);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Every agent answers the reference, except on tasks whose id is a multiple of 3, where it is off by one. */
function script(tasks: LiveTask[]) {
  return {
    rules: tasks.map((t) => ({ match: { contains: t.question.slice(0, 60) }, content: `Working… FINAL ANSWER: ${Number(t.id) % 3 === 0 ? Number(t.answer) + 1 : t.answer}` })),
    fallback: { content: 'FINAL ANSWER: 0' },
  };
}

describe('parseTaskSet', () => {
  it('reads question/problem/prompt, GSM8K reference answers, levels, and names the bad line', () => {
    const tasks = parseTaskSet(
      '{"id":0,"question":"q?","answer":"so 3+4=7\\n#### 7"}\n\n{"problem":"p?","answer":"\\\\frac{1}{2}","level":"3"}\n' +
        '{"id":"h","prompt":"def f():\\n","entry_point":"f"}\n',
    );
    expect(tasks).toEqual([
      { id: '0', question: 'q?', answer: '7', domain: 'math' },
      { id: '1', question: 'p?', answer: '\\frac{1}{2}', level: '3', domain: 'math' },
      { id: 'h', question: 'def f():\n', domain: 'code' },
    ]);
    expect(() => parseTaskSet('{"question":"ok"}\n{oops')).toThrow(/line 2: not JSON/);
    expect(() => parseTaskSet('{"answer":"1"}')).toThrow(/line 1: no `question`/);
  });
});

describe.skipIf(!HAVE_TASKS)(`batch of GSM8K tasks${HAVE_TASKS ? '' : ` (${TASKS} is absent; skipped)`}`, () => {
  it('20 tasks × 2 arms finish and score; a server failure mid-batch stops it, and resume repeats no finished task', async () => {
    const tasks = parseTaskSet(readFileSync(TASKS, 'utf8')).slice(0, 20);
    expect(tasks).toHaveLength(20);
    server.reset();
    server.setScript(script(tasks));
    const spec: BatchSpec = {
      id: 'b1', name: 'gsm8k test', dataset: 'gsm8k', tasks, arms: ['baseline', 'supervised'],
      team: { ...defaultTeam('math'), roles: defaultTeam('math').roles.slice(0, 2), maxTurns: 2 },
      concurrency: 3, tokenBudget: 0, supervisor: { tauStep: 4, tauLoop: 3, tauLen: 3000 }, createdAt: 0,
    };
    const recorder = new CallRecorder();
    const base = new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { agents: 'm', supervisor: 'm' }, retries: 1, retryBaseMs: 1, retryMaxMs: 5 }), { recorder });
    const library = new Map<string, Run>();
    const saved: BatchState[] = [];
    const ran: string[] = [];
    let broken = false;
    const hooks = {
      runItem: (item: Parameters<typeof runBatchItem>[0], task: LiveTask, signal: AbortSignal) => {
        ran.push(item.key);
        return runBatchItem(item, task, signal, { spec, client: base.forRun() });
      },
      save: (s: BatchState) => {
        saved.push(s);
        // The server goes down once 12 items are done.
        if (!broken && s.items.filter((i) => i.status === 'done').length >= 12) {
          broken = true;
          server.setScript({ fallback: { status: 500 } });
        }
      },
      onRun: (run: Run) => void library.set(run.id, run),
    };

    const first = await runBatch(newBatch(spec), hooks);
    expect(first.status).toBe('stopped');
    expect(first.message).toMatch(/endpoint failed.*HTTP 500.*resume/);
    const doneFirst = first.items.filter((i) => i.status === 'done').map((i) => i.key);
    expect(doneFirst.length).toBeGreaterThanOrEqual(12);
    expect(doneFirst.length).toBeLessThan(40);
    // What is stored is what the batch said last.
    expect(saved.at(-1)).toEqual(first);

    server.setScript(script(tasks));
    ran.length = 0;
    const second = await runBatch(saved.at(-1)!, hooks);
    expect(second.status).toBe('complete');
    expect(ran.filter((k) => doneFirst.includes(k))).toEqual([]);
    expect(new Set([...doneFirst, ...ran]).size).toBe(40);

    const summary = summarizeBatch(second);
    expect(summary).toMatchObject({ total: 40, done: 40, failed: 0, pending: 0 });
    const wrong = tasks.filter((t) => Number(t.id) % 3 === 0).length;
    for (const arm of ['baseline', 'supervised']) expect(summary.perArm[arm]).toMatchObject({ done: 20, scored: 20, correct: 20 - wrong });
    expect(library.size).toBe(40);
    const run = library.get('b1:3:supervised')!;
    expect(run.tags).toMatchObject({ dataset: 'gsm8k', arm: 'supervised', task: 'gsm8k:3' });
    expect(run.outcome).toMatchObject({ status: 'failure', score: 0 });
    expect(library.get('b1:1:baseline')!.outcome).toMatchObject({ status: 'success', score: 1, referenceAnswer: tasks[1].answer });
    expect(second.tokensUsed).toBeGreaterThan(0);
  });

  it('a pause (abort) leaves interrupted items pending and a token budget stops the batch with a message', async () => {
    const tasks = parseTaskSet(readFileSync(TASKS, 'utf8')).slice(0, 4);
    server.reset();
    server.setScript({ ...script(tasks), fallback: { content: 'FINAL ANSWER: 1', delayMs: 5 } });
    const spec: BatchSpec = {
      id: 'b2', name: 'budget', dataset: 'gsm8k', tasks, arms: ['baseline'], team: { ...defaultTeam('math'), roles: defaultTeam('math').roles.slice(0, 1), maxTurns: 1 },
      concurrency: 1, tokenBudget: 1, supervisor: { tauStep: 4, tauLoop: 3, tauLen: 3000 }, createdAt: 0,
    };
    const client = new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { agents: 'm' }, retries: 0 }));
    const state = await runBatch(newBatch(spec), { runItem: (item, task, signal) => runBatchItem(item, task, signal, { spec, client }), save: () => {} });
    expect(state.status).toBe('stopped');
    expect(state.message).toMatch(/token budget reached/);
    expect(state.items.filter((i) => i.status === 'done')).toHaveLength(1);
    expect(state.items.filter((i) => i.status === 'pending')).toHaveLength(3);

    const controller = new AbortController();
    controller.abort();
    const paused = await runBatch(newBatch({ ...spec, tokenBudget: 0 }), { runItem: (item, task, signal) => runBatchItem(item, task, signal, { spec, client }), save: () => {}, signal: controller.signal });
    expect(paused.status).toBe('paused');
    expect(paused.items.every((i) => i.status === 'pending')).toBe(true);
  });
});
