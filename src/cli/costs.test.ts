// Issue 21 against the project's test server, as a user runs the commands (subprocesses): every engine reports exactly
// the usage the server served (the rectifier's one-time pool embeddings included), `--dry-run` sends nothing and lands
// within 20% of the real run's served tokens, and the gated clarifier sends only the flagged edges.
// The server counts usage with o200k (like a real endpoint); its answers are scripted to the sizes the estimators
// assume where the answer's size is the model's choice (a decision JSON, a verdict, keywords; the purifier keeps 40%).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servedUsage, startTestServer, type TestServer } from '../../test-server/server.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { runCliAsync } from '../testing/run-cli.ts';

const WW = (n: number) => join(SHARED_TRACES, `who-and-when/hand-crafted/${n}.json`);
const POOL = join(SHARED_TRACES, '..', 'indicator-pool/agentdropoutv2-math-pool.json');
const TRAIL_GAIA = join(SHARED_TRACES, 'trail/gaia/b1f9b9baefa4c69d1d848e35c130e29d.json');

interface Counts {
  input: number;
  output: number;
  total: number;
}
interface Cost {
  one_time: { calls: number; tokens: Counts; cached: boolean; estimated: boolean } | null;
  per_run: { calls: number; tokens: Counts; estimated: boolean };
}
interface DryRun {
  dry_run: true;
  estimate: { calls: number; tokens: Counts; one_time?: { calls: number; tokens: Counts } };
}

const NONE = '{"type": "NONE", "to_agent": null, "question": ""}';
const APPROVE = JSON.stringify({ analysis: 'The step follows the plan and its observation answers the query; nothing to correct here.', action: 'approve', parameters: {} });
const VERDICT = JSON.stringify({
  evidence_quote: '',
  analysis: 'The message states the values it uses and the arithmetic holds; nothing in it falls under this concern.',
  suggestion: '',
  impact_assessment: 'no',
  is_flawed: false,
});
const KEYWORDS = '{"scenario_keywords": ["multi-step arithmetic", "word problem"], "action_keywords": ["computing a total", "checking units"]}';

const within = (estimate: number, served: number, share: number) => Math.abs(estimate - served) / served <= share;

describe.skipIf(!HAVE_SHARED)(`engine costs against the test server (${HAVE_SHARED ? 'shared traces present' : SKIP_REASON})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const run = async (command: string, args: string[]) => {
    const r = await runCliAsync(command, [...args, '--endpoint', server.baseUrl, '--model', 'm', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  const dryRun = async (command: string, args: string[]) => {
    const out = (await run(command, [...args, '--dry-run'])) as unknown as DryRun;
    expect(out.dry_run).toBe(true);
    expect(server.log()).toHaveLength(0);
    return out.estimate;
  };

  it('clarify: the reported cost is the served usage; --dry-run sends nothing and is within 20%', async () => {
    const estimate = await dryRun('clarify', [WW(1)]);
    server.setScript({ tokens: 'o200k', fallback: { content: NONE } });
    const out = await run('clarify', [WW(1)]);
    const served = servedUsage(server.log());
    const cost = out.cost as Cost;
    expect(cost.one_time).toBeNull();
    expect(cost.per_run).toEqual({ calls: served.calls, tokens: { input: served.input, output: served.output, total: served.total }, estimated: false });
    expect(served.calls).toBe(server.log().length);
    expect(within(estimate.tokens.total, served.total, 0.2), `estimate ${estimate.tokens.total} vs served ${served.total}`).toBe(true);
  });

  it('clarify --gate flagged sends only the edges the flagger flags; flagged+sample adds a seeded sample', async () => {
    const offline = await runCliAsync('clarify', [WW(4), '--offline', '--json']);
    const flagged = (JSON.parse(offline.stdout) as { runs: { edges: { id: string; type: string }[] }[] }).runs[0].edges.filter((e) => e.type !== 'NONE').map((e) => e.id);
    expect(flagged.length).toBeGreaterThan(0);
    server.setScript({ tokens: 'o200k', fallback: { content: NONE } });
    const out = (await run('clarify', [WW(4), '--gate', 'flagged'])) as { runs: { edges: { id: string; route?: string; heuristic: boolean }[]; summary: { sent_to_model: number; gate: string; edges: number } }[] };
    const r = out.runs[0];
    expect(r.summary.gate).toBe('flagged');
    expect(r.edges.filter((e) => !e.heuristic).map((e) => e.id)).toEqual(flagged);
    expect(r.edges.filter((e) => e.route === 'flagged').map((e) => e.id)).toEqual(flagged);
    // NONE answers: one request per edge sent, and each carries that edge's message.
    expect(server.log()).toHaveLength(flagged.length);
    expect(r.summary.sent_to_model).toBe(flagged.length);
    server.reset();
    server.setScript({ tokens: 'o200k', fallback: { content: NONE } });
    const sampled = (await run('clarify', [WW(4), '--gate', 'flagged+sample:0.5', '--seed', '1'])) as typeof out;
    const again = sampled.runs[0];
    expect(again.summary.sent_to_model).toBeGreaterThan(flagged.length);
    expect(again.summary.sent_to_model).toBeLessThan(again.summary.edges);
    expect(server.log()).toHaveLength(again.summary.sent_to_model);
  });

  it('supervise: the reported cost is the served usage; --dry-run sends nothing and is within 20%', async () => {
    const estimate = await dryRun('supervise', [TRAIL_GAIA]);
    expect(estimate.calls).toBeGreaterThan(0);
    server.setScript({ tokens: 'o200k', rules: [{ match: { contains: 'You shorten raw tool observations' }, echo: 0.4 }], fallback: { content: APPROVE } });
    const out = await run('supervise', [TRAIL_GAIA]);
    const served = servedUsage(server.log());
    const cost = out.cost as Cost;
    expect(cost.per_run).toEqual({ calls: served.calls, tokens: { input: served.input, output: served.output, total: served.total }, estimated: false });
    const runs = out.runs as { tokens: { supervisor_overhead: number } }[];
    expect(runs.reduce((n, r) => n + r.tokens.supervisor_overhead, 0)).toBe(served.total);
    expect(estimate.calls).toBe(served.calls);
    expect(within(estimate.tokens.total, served.total, 0.2), `estimate ${estimate.tokens.total} vs served ${served.total}`).toBe(true);
  });

  it('rectify with the 2,000-indicator pool: pool embeddings reported apart and equal to what was served; --dry-run within 20%', async () => {
    const estimate = await dryRun('rectify', [WW(1), '--pool', POOL, '--domain', 'math']);
    expect(estimate.one_time?.calls).toBe(8);
    server.setScript({ tokens: 'o200k', rules: [{ match: { contains: 'index agent messages' }, content: KEYWORDS }], fallback: { content: VERDICT } });
    const out = (await run('rectify', [WW(1), '--pool', POOL, '--domain', 'math'])) as {
      pool: { size: number; embedding_tokens: number; embedding_calls: number; embedding_cached: boolean };
      tokens: { rectifier: number; pool_embedding: number };
      runs: { tokens: { rectifier: number } }[];
      cost: Cost;
    };
    const log = server.log();
    // The pool is embedded first, in batches of 250; everything after it is per-run work.
    const poolRequests = log.filter((e) => e.path === '/v1/embeddings' && Array.isArray((e.body as { input?: unknown }).input) && ((e.body as { input: unknown[] }).input.length > 1));
    expect(poolRequests).toHaveLength(8);
    const pool = servedUsage(poolRequests);
    const all = servedUsage(log);
    expect(out.pool).toMatchObject({ size: 2000, embedding_tokens: pool.total, embedding_calls: 8, embedding_cached: false });
    expect(out.cost.one_time).toMatchObject({ calls: 8, tokens: { input: pool.input, output: 0, total: pool.total }, cached: false, estimated: false });
    expect(out.tokens.rectifier + out.tokens.pool_embedding).toBe(all.total);
    expect(out.runs.reduce((n, r) => n + r.tokens.rectifier, 0)).toBe(all.total - pool.total);
    expect(out.cost.per_run).toEqual({ calls: all.calls - 8, tokens: { input: all.input - pool.input, output: all.output, total: all.total - pool.total }, estimated: false });
    expect(within(estimate.tokens.total, all.total, 0.2), `estimate ${estimate.tokens.total} vs served ${all.total}`).toBe(true);
    expect(within(estimate.one_time!.tokens.total, pool.total, 0.2), `pool estimate ${estimate.one_time!.tokens.total} vs served ${pool.total}`).toBe(true);
  });

  it('stages: the reported cost is the served usage; --dry-run sends nothing and is within 20%', async () => {
    const estimate = await dryRun('stages', [WW(1)]);
    // Answers of the size a model writes: a task state of a few subtasks with a summary, a verdict with feedback.
    const state = JSON.stringify({
      subtasks: [
        { id: 's1', title: 'find the list of the relevant records on the official site', status: 'DONE' },
        { id: 's2', title: 'open each record and read the figure the question asks about', status: 'DONE' },
        { id: 's3', title: 'check the figures against a second source', status: 'NEED-REFINE' },
        { id: 's4', title: 'convert the figures to the units the question uses', status: 'TODO' },
        { id: 's5', title: 'compute the answer and state it in the requested format', status: 'TODO' },
      ],
      next_subtask_id: 's3',
      summary:
        'The team found the official list and read the figures of every record on it; the values agree with what the orchestrator expected, ' +
        'but one of them was read from a cached copy of the page and has not been checked against a second source yet. ' +
        'The next stage should confirm that value, then convert the figures and compute the final answer.',
    });
    const evaluation = JSON.stringify({ verdict: 'needs_refinement', confidence: 0.7, feedback: 'The stage read the figures from the page it opened, but one of them comes from a cached copy and was not checked; confirm it before computing the answer.' });
    server.setScript({ tokens: 'o200k', rules: [{ match: { contains: '[stage evaluator]' }, content: evaluation }], fallback: { content: state } });
    const out = await run('stages', [WW(1)]);
    const served = servedUsage(server.log());
    expect((out.cost as Cost).per_run).toEqual({ calls: served.calls, tokens: { input: served.input, output: served.output, total: served.total }, estimated: false });
    expect(estimate.calls).toBe(served.calls);
    expect(within(estimate.tokens.total, served.total, 0.2), `estimate ${estimate.tokens.total} vs served ${served.total}`).toBe(true);
  });
});

// A batch as a user runs it, per arm: the estimate adds the engine arm's own calls (here the supervisor's periodic
// checks: a group chat of 12 turns gives each of the 3 roles 4 turns, and τ_step 4 fires once per role), so the arms
// differ as they do when run; each arm's estimate lands within 20% of what that arm spent.
describe('batch --dry-run per arm against the test server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('the supervised arm is estimated with the supervisor\'s calls, and each arm is within 20% of what it spent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-batch-cost-'));
    const tasks = join(dir, 'sums.jsonl');
    writeFileSync(tasks, ['2+5', '3+4'].map((q, i) => JSON.stringify({ id: i, question: `What is ${q}?`, answer: '7' })).join('\n'));
    const args = [tasks, '--endpoint', server.baseUrl, '--model', 'm', '--mode', 'group-chat', '--max-turns', '12', '--preset', 'gsm-hard', '--concurrency', '1', '--json'];
    server.reset();
    const dry = await runCliAsync('batch', [...args, '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(server.log()).toHaveLength(0);
    const estimate = (JSON.parse(dry.stdout) as { estimate: { per_arm: { arm: string; calls: number; tokens: Counts }[] } }).estimate;
    const arm = (name: string) => estimate.per_arm.find((a) => a.arm === name)!;
    // 13 agent calls per task (12 turns and the decision agent); the supervised arm adds 3 checks per task.
    expect(arm('baseline').calls).toBe(2 * 13);
    expect(arm('supervised').calls).toBe(2 * (13 + 3));
    expect(arm('supervised').tokens.total).toBeGreaterThan(arm('baseline').tokens.total);

    // Every agent answer is different (as a model's are, so the loop rule stays quiet) and about 300 tokens long.
    const answer = (i: number) => `Turn ${i}. ${'The two numbers add up to seven, and I checked the sum again carefully. '.repeat(20)}FINAL ANSWER: 7`;
    server.setScript({
      tokens: 'o200k',
      rules: [
        { match: { contains: 'You oversee one agent inside a team' }, content: APPROVE },
        ...Array.from({ length: 2 * 2 * 13 }, (_, i) => ({ times: 1, content: answer(i) })),
      ],
    });
    const real = await runCliAsync('batch', args);
    expect(real.stderr).toBe('');
    expect(real.status).toBe(0);
    const out = JSON.parse(real.stdout) as { tokens: number; summary: { perArm: Record<string, { tokens: number }> } };
    const served = servedUsage(server.log());
    expect(out.tokens).toBe(served.total);
    const supervisorCalls = server.log().filter((e) => JSON.stringify(e.body).includes('You oversee one agent inside a team'));
    expect(supervisorCalls).toHaveLength(2 * 3);
    for (const name of ['baseline', 'supervised']) {
      const spent = out.summary.perArm[name].tokens;
      expect(within(arm(name).tokens.total, spent, 0.2), `${name}: estimate ${arm(name).tokens.total} vs spent ${spent}`).toBe(true);
    }
    expect(out.summary.perArm.supervised.tokens - out.summary.perArm.baseline.tokens).toBe(servedUsage(supervisorCalls).total);
  });
});
