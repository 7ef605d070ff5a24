// `rectify` as a user runs it: a subprocess on a real Who&When trace with the published 2000-indicator pool, offline
// and against the project's test server (per message: attempts, final state, exact LLM calls).
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-server/server.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { runCliAsync } from '../testing/run-cli.ts';

const POOL = resolve(SHARED_TRACES, '../indicator-pool/agentdropoutv2-math-pool.json');
const WHO = join(SHARED_TRACES, 'who-and-when/algorithm-generated/1.json');
const HAVE = HAVE_SHARED && existsSync(POOL);

const runCli = (args: string[]) => runCliAsync('rectify', args);

interface Report {
  pool: { size: number; retrieval: string };
  runs: { id: string; mode: string; messages: { agent: string; attempts: number; final_state: string; llm_calls: number; detail: { retrieved: { name: string }[] }[] }[]; fallback: { triggered: boolean } }[];
}

const errorLines = (s: string) => s.split('\n').filter((l) => l.startsWith('error'));

describe('rectify usage errors', () => {
  it('exit 2 with one line', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'mas-rectify-'));
    const badPool = join(tmp, 'pool.json');
    writeFileSync(badPool, '[{"name": "X"}]');
    const cases: [string[], RegExp][] = [
      [['x.json'], /^error: usage: rectify needs --pool/],
      [['x.json', '--pool', 'p.json', '--endpoint', 'http://127.0.0.1:1/v1'], /^error: usage: --endpoint needs --model/],
      [['x.json', '--pool', 'p.json', '--k', '0'], /^error: usage: --k must be a whole number ≥ 1/],
      [['x.json', '--pool', 'p.json', '--domain', 'poetry'], /^error: usage: unknown domain/],
      [[HAVE ? WHO : 'x.json', '--pool', badPool], new RegExp(`^error: ${badPool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: indicator pool at \\$\\[0\\]\\.detailed_definition`)],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(errorLines(r.stderr)).toHaveLength(1);
      expect(errorLines(r.stderr)[0]).toMatch(re);
    }
  });
});

describe.skipIf(!HAVE)(`rectify on a Who&When trace (${HAVE ? '' : SKIP_REASON})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('offline: retrieval only, labelled, no verdicts', async () => {
    const r = await runCli([WHO, '--pool', POOL, '--json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.pool).toMatchObject({ size: 2000, retrieval: 'bm25' });
    const run = report.runs[0];
    expect(run.mode).toBe('offline-retrieval-only');
    // Excel_Expert, BusinessLogic_Expert, DataVerification_Expert ×2; the Computer_terminal's outputs are not agent messages.
    expect(run.messages.map((m) => [m.agent, m.final_state, m.attempts])).toEqual([
      ['Excel_Expert', 'retrieval-only', 0],
      ['BusinessLogic_Expert', 'retrieval-only', 0],
      ['DataVerification_Expert', 'retrieval-only', 0],
      ['DataVerification_Expert', 'retrieval-only', 0],
    ]);
    for (const m of run.messages) expect(m.detail[0].retrieved).toHaveLength(5);
  });

  it('tau-bench chat trajectories: only the assistant’s turns (tool calls included) are agent messages', async () => {
    const r = await runCli([join(SHARED_TRACES, 'tau-bench/tau_dataset_failed.json'), '--pool', POOL, '--json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.runs.length).toBeGreaterThan(1);
    for (const run of report.runs) {
      expect(run.messages.length).toBeGreaterThan(0);
      expect(new Set(run.messages.map((m) => m.agent))).toEqual(new Set(['assistant']));
    }
  });

  it('against the test server: pass after feedback, rejected after T_max, pass at once; exact calls per message', async () => {
    const verdict = (flawed: boolean) =>
      JSON.stringify(
        flawed
          ? { evidence_quote: 'q', analysis: 'wrong column', suggestion: 'Use the Street Address column', impact_assessment: 'YES, the count changes', is_flawed: true }
          : { evidence_quote: 'N/A', analysis: 'N/A', suggestion: 'N/A', impact_assessment: 'NO', is_flawed: false },
      );
    server.setScript({
      rules: [
        { match: { contains: 'index agent messages' }, content: '{"scenario_keywords": ["spreadsheet counting"], "action_keywords": ["filtering rows"]}' },
        { match: { contains: 'A reviewer checked your last message' }, content: 'REVISED plan: read the Street Address column and count even numbers.' },
        { match: { contains: 'Message to review:\nYou are given' }, times: 1, content: verdict(true) },
        { match: { contains: 'Agent: BusinessLogic_Expert' }, content: verdict(true) },
      ],
      fallback: { content: verdict(false) },
    });
    const r = await runCli([WHO, '--pool', POOL, '--endpoint', server.baseUrl, '--model', 'test-model', '--embed-model', 'embed-model', '--json']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.pool).toMatchObject({ size: 2000, retrieval: 'embedding' });
    const run = report.runs[0];
    expect(run.mode).toBe('endpoint');
    expect(run.messages.map((m) => [m.agent, m.attempts, m.final_state, m.llm_calls])).toEqual([
      ['Excel_Expert', 2, 'pass@2', 2 * 7 + 1],
      ['BusinessLogic_Expert', 3, 'rejected', 3 * 7 + 2],
      ['DataVerification_Expert', 1, 'pass@1', 7],
      ['DataVerification_Expert', 1, 'pass@1', 7],
    ]);
    expect(run.fallback.triggered).toBe(false);
    const log = server.log();
    // The pool: 2000 trigger conditions in 8 batches of 250; then one query embedding per attempt (7 attempts).
    const embeds = log.filter((e) => e.path === '/v1/embeddings');
    expect(embeds).toHaveLength(8 + 7);
    expect(embeds.slice(0, 8).map((e) => (e.body as { input: string[] }).input.length)).toEqual(Array(8).fill(250));
    expect(log.filter((e) => e.path === '/v1/chat/completions')).toHaveLength(15 + 23 + 7 + 7 - 7);
    // The pruned BusinessLogic_Expert message never reaches the DataVerification_Expert's audits.
    const later = log.filter((e) => JSON.stringify(e.body).includes('Message to review:\\nThe code has successfully executed'));
    expect(later.length).toBeGreaterThan(0);
    for (const e of later) expect(JSON.stringify(e.body)).not.toContain('We have verified that the column name');
  });
});
