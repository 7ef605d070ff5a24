// `batch` as a user runs it: a subprocess against the project's test server. A failure mid-batch exits 1 with the
// state kept; the same command with the same --state finishes the rest without repeating a finished task.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-server/server.ts';
import { runCliAsync } from '../testing/run-cli.ts';


const runCli = (args: string[]) => runCliAsync('batch', args, { MAS_REPLAY_RETRY_BASE_MS: '1' });

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const tmp = mkdtempSync(join(tmpdir(), 'mas-batch-'));
const tasksFile = join(tmp, 'toy.jsonl');
writeFileSync(tasksFile, ['2+5', '3+4', '1+6', '0+7'].map((q, i) => JSON.stringify({ id: i, question: `What is ${q}?`, answer: `#### 7` })).join('\n'));

describe('batch command', () => {
  it('refuses bad usage with one line and exit 2', async () => {
    const r = await runCli([tasksFile]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('error: usage: batch needs --endpoint and --model');
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(bad, '{"question":"ok"}\nnot json');
    const r2 = await runCli([bad, '--endpoint', server.baseUrl, '--model', 'm']);
    expect(r2.status).toBe(2);
    expect(r2.stderr).toMatch(/^error: .*bad\.jsonl: line 2: not JSON/);
  });

  it('stops on a server failure, then resumes from --state without repeating finished tasks', async () => {
    const state = join(tmp, 'state.json');
    const out = join(tmp, 'session.json');
    const ok = { content: 'FINAL ANSWER: 7' };
    server.reset();
    // 1 role + the decision agent = 2 calls per item, one item at a time: 3 items finish, then the server fails.
    server.setScript({ queue: Array.from({ length: 6 }, () => ok), fallback: { status: 500 } });
    const args = [tasksFile, '--endpoint', server.baseUrl, '--model', 'm', '--max-turns', '1', '--concurrency', '1', '--state', state, '--out', out, '--json'];
    const first = await runCli(args);
    expect(first.status).toBe(1);
    expect(first.stderr).toMatch(/endpoint failed.*HTTP 500/);
    const stopped = JSON.parse(first.stdout) as { status: string; summary: { done: number; total: number } };
    expect(stopped).toMatchObject({ status: 'stopped', summary: { done: 3, total: 8 } });
    expect(existsSync(state)).toBe(true);
    // The state is a journal: the spec once, then what changed, appended; a line torn by a crash is ignored.
    const journal = readFileSync(state, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string });
    expect(journal[0].kind).toBe('spec');
    expect(journal.filter((l) => l.kind === 'spec')).toHaveLength(1);
    appendFileSync(state, '{"kind":"item","item":{"key":"0:base');

    server.reset();
    server.setScript({ fallback: ok });
    const second = await runCli(args);
    expect(second.stderr).toBe('');
    expect(second.status).toBe(0);
    const done = JSON.parse(second.stdout) as { status: string; summary: { done: number; perArm: Record<string, { correct: number; scored: number }> } };
    expect(done).toMatchObject({ status: 'complete', summary: { done: 8, perArm: { baseline: { correct: 4, scored: 4 }, supervised: { correct: 4, scored: 4 } } } });
    expect(readFileSync(state, 'utf8').trim().split('\n').every((l) => JSON.parse(l))).toBe(true);
    // Only the 5 unfinished items were asked, 2 calls each.
    expect(server.log().filter((e) => e.path === '/v1/chat/completions')).toHaveLength(10);
    const session = JSON.parse(readFileSync(out, 'utf8')) as { format: string; runs: { tags: Record<string, string> }[]; llmCalls: unknown[] };
    expect(session.format).toBe('mas-replay-session');
    expect(session.runs).toHaveLength(8);
    expect(session.llmCalls.length).toBeGreaterThanOrEqual(16);
    expect(new Set(session.runs.map((r) => `${r.tags.task}/${r.tags.arm}`)).size).toBe(8);
  });

  it('--engines rectifier,clarifier: the supervised arm audits and clarifies every message, recorded on the runs', async () => {
    const bad = await runCli([tasksFile, '--endpoint', server.baseUrl, '--model', 'm', '--engines', 'rectifier,wizard']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe('error: usage: --engines takes supervisor, rectifier and/or clarifier, got "wizard"');
    const out = join(tmp, 'engines.json');
    server.reset();
    const clean = JSON.stringify({ evidence_quote: 'N/A', analysis: 'N/A', suggestion: 'N/A', impact_assessment: 'NO', is_flawed: false });
    server.setScript({
      rules: [
        { match: { contains: 'Message to review:' }, content: clean },
        { match: { contains: 'You sit on the link between two agents' }, content: '{"type":"NONE","to_agent":null,"question":""}' },
      ],
      fallback: { content: 'FINAL ANSWER: 7' },
    });
    const r = await runCli([tasksFile, '--endpoint', server.baseUrl, '--model', 'm', '--limit', '1', '--max-turns', '1', '--arms', 'supervised', '--engines', 'rectifier,clarifier', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // Solver, its audit (zero-shot: one general indicator), the clarifier's check, the decision agent.
    expect(server.log().filter((e) => e.path === '/v1/chat/completions')).toHaveLength(4);
    const session = JSON.parse(readFileSync(out, 'utf8')) as { runs: { interventions: { engine: string; action: string; details?: Record<string, unknown> }[] }[] };
    const ivs = session.runs[0].interventions;
    expect(ivs.map((i) => i.engine)).toEqual(['rectifier', 'clarifier']);
    expect(ivs[0].details).toMatchObject({ finalState: 'pass@1', zeroShot: true });
  });
});
