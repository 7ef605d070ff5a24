// `supervise` as a user runs it: a subprocess, offline on the real TRAIL traces (expectations derived by hand from
// the raw span trees), and against the project's test server for the endpoint path and its failures.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-server/server.ts';
import { ALLOWED_ACTIONS } from '../engine/supervisor/actions.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { runCliAsync } from '../testing/run-cli.ts';


interface Report {
  runs: {
    id: string;
    triggers: { agent: string; step: number; row: number; context: keyof typeof ALLOWED_ACTIONS; action: string; reason: string; did_not_shorten?: true }[];
    tokens: { baseline: number; supervised_estimate: number; supervisor_overhead: number; net_saving_pct: number; not_shortened?: number };
  }[];
}

const runCli = (args: string[], env: Record<string, string> = {}) => runCliAsync('supervise', args, env);

const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('error'));
const TRAIL = join(SHARED_TRACES, 'trail');
const gaia = (id: string) => join(TRAIL, 'gaia', `${id}.json`);
const trailFiles = () =>
  HAVE_SHARED ? ['gaia', 'swe'].flatMap((d) => readdirSync(join(TRAIL, d)).filter((f) => f.endsWith('.json')).map((f) => join(TRAIL, d, f))) : [];

const tmp = mkdtempSync(join(tmpdir(), 'mas-supervise-'));

describe('supervise usage errors', () => {
  it('exit 2 with one line for bad usage and bad input', async () => {
    const cases: [string[], string, RegExp][] = [
      [[], 'usage', /exactly one file/],
      [['x.json', '--preset', 'nope'], 'usage', /unknown preset "nope"/],
      [['x.json', '--endpoint', 'http://127.0.0.1:1/v1'], 'usage', /--endpoint needs --model/],
      [['x.json', '--offline', '--endpoint', 'http://h/v1', '--model', 'm'], 'usage', /exclude each other/],
      [['x.json', '--tau-step', '0'], 'usage', /positive whole number/],
    ];
    for (const [args, file, re] of cases) {
      const r = await runCli(args);
      expect(r.status).toBe(2);
      expect(errorLines(r.stderr)).toHaveLength(1);
      expect(errorLines(r.stderr)[0]).toMatch(new RegExp(`^error: ${file}: `));
      expect(errorLines(r.stderr)[0]).toMatch(re);
    }
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, '{"hello": ');
    const r = await runCli([bad, '--json']);
    expect(r.status).toBe(2);
    expect(errorLines(r.stderr)[0].startsWith(`error: ${bad}: `)).toBe(true);
    expect(r.stdout).toBe('');
  });
});

describe.skipIf(!HAVE_SHARED)(`supervise offline on the TRAIL traces (${HAVE_SHARED ? '' : SKIP_REASON})`, () => {
  it('every TRAIL trace: exit 0, the exact SPEC §7 shape, heuristic actions within the allowed sets, no overhead', async () => {
    const files = trailFiles();
    expect(files.length).toBe(9);
    for (const f of files) {
      const r = await runCli([f, '--offline', '--json']);
      expect(errorLines(r.stderr), f).toEqual([]);
      expect(r.status).toBe(0);
      const report = JSON.parse(r.stdout) as Report;
      expect(Object.keys(report)).toEqual(['runs', 'cost']);
      for (const run of report.runs) {
        expect(Object.keys(run)).toEqual(['id', 'triggers', 'tokens', 'cost']);
        // not_shortened only when a purification did not shorten its observation (it then saves nothing, flagged per trigger).
        const keys = ['baseline', 'supervised_estimate', 'supervisor_overhead', 'net_saving_pct'];
        expect(Object.keys(run.tokens)).toEqual(run.tokens.not_shortened === undefined ? keys : [...keys, 'not_shortened']);
        expect(run.triggers.filter((t) => t.did_not_shorten === true).length).toBe(run.tokens.not_shortened ?? 0);
        expect(run.tokens.supervisor_overhead).toBe(0);
        expect(run.tokens.baseline).toBeGreaterThan(0);
        for (const t of run.triggers) {
          expect(Object.keys(t)).toEqual(['agent', 'step', 'row', 'context', 'action', 'reason', ...(t.did_not_shorten ? ['did_not_shorten'] : [])]);
          expect(ALLOWED_ACTIONS[t.context]).toContain(t.action);
          expect(Number.isInteger(t.step)).toBe(true);
          // row: the 1-based position in the run view's step list (SPEC §7).
          expect(Number.isInteger(t.row) && t.row >= 1).toBe(true);
        }
      }
    }
  });

  // Derived by walking the raw span trees (not through the importer): each `Step N` span, its agent from the
  // enclosing `*.run` span's `named '<name>'`, output.value length in code points, status/exception events, and the
  // tool/agent child spans; then Algorithm 1 applied by hand with the GAIA preset (8 / 5 / 3000).
  it('41bbc898…: the manager gets the search agent report, the search agent fails once', async () => {
    const r = await runCli([gaia('41bbc898aa7de0f31d2382ff57700a76'), '--json']);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.triggers.map((t) => [t.agent, t.step, t.context])).toEqual([
      ['manager', 1, 'subagent_completion'],
      ['search_agent', 1, 'error'],
    ]);
  });

  it('b1f9b9ba…: five long observations, an error run, and step 8 where the error wins over the periodic check', async () => {
    const r = await runCli([gaia('b1f9b9baefa4c69d1d848e35c130e29d'), '--preset', 'gaia', '--json']);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.triggers.map((t) => [t.agent, t.step, t.context])).toEqual([
      ['manager', 1, 'subagent_completion'],
      ['search_agent', 1, 'error'],
      ['search_agent', 2, 'excessive'],
      ['search_agent', 3, 'excessive'],
      ['search_agent', 4, 'excessive'],
      ['search_agent', 5, 'excessive'],
      ['search_agent', 6, 'excessive'],
      ['search_agent', 8, 'error'],
      ['search_agent', 9, 'error'],
      ['search_agent', 10, 'error'],
      ['search_agent', 11, 'error'],
      ['search_agent', 12, 'error'],
      ['manager', 2, 'error'],
    ]);
    expect(run.triggers.find((t) => t.step === 4)?.reason).toMatch(/5621 characters/);
    // Purifying five long observations of the search agent shrinks its later prompts: a positive, labelled estimate.
    expect(run.tokens.supervised_estimate).toBeLessThan(run.tokens.baseline);
  });

  it('b1f9b9ba… with --tau-step 4 --tau-loop 3 --tau-len 5000: periodic at step 4, only observations over 5000', async () => {
    const r = await runCli([gaia('b1f9b9baefa4c69d1d848e35c130e29d'), '--tau-step', '4', '--tau-loop', '3', '--tau-len', '5000', '--json']);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.triggers.map((t) => [t.agent, t.step, t.context])).toEqual([
      ['manager', 1, 'subagent_completion'],
      ['search_agent', 1, 'error'],
      ['search_agent', 4, 'inefficient'],
      ['search_agent', 6, 'excessive'],
      ['search_agent', 8, 'error'],
      ['search_agent', 9, 'error'],
      ['search_agent', 10, 'error'],
      ['search_agent', 11, 'error'],
      ['search_agent', 12, 'error'],
      ['manager', 2, 'error'],
    ]);
  });

  // The SWE run is one manager with six code-only steps (no tool child spans), each running different code: with
  // MBPP's τ_step 4 only the periodic check at step 4 fires, and offline, with no repeated action, it approves.
  it('b1f9b9ba… --emit-run: a native session of the shadow-supervised run, tokens = supervised_estimate, inspect reads it', async () => {
    const out = join(tmp, 'emitted.json');
    const r = await runCli([gaia('b1f9b9baefa4c69d1d848e35c130e29d'), '--offline', '--emit-run', out, '--json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    const [run] = report.runs;
    const session = JSON.parse(readFileSync(out, 'utf8'));
    expect(session.format).toBe('mas-replay-session');
    expect(session.runs).toHaveLength(1);
    const derived = session.runs[0];
    expect(derived.id).toBe(`${run.id}::shadow`);
    expect(derived.derived).toMatchObject({ kind: 'shadow-supervised', sourceRunId: run.id, estimate: true, method: 'offline-heuristic' });
    expect(derived.derived.tokens.supervisedEstimate).toBe(run.tokens.supervised_estimate);
    expect(derived.interventions.map((i: { stepId: string }) => i.stepId)).toHaveLength(run.triggers.length);
    const inspected = await runCliAsync('inspect', [out, '--json']);
    expect(inspected.status).toBe(0);
    const file = JSON.parse(inspected.stdout).files[0];
    expect(file.format).toBe('native');
    expect(file.runs[0].id).toBe(derived.id);
    expect(file.runs[0].tokens.total).toBe(run.tokens.supervised_estimate);
    expect(run.tokens.supervised_estimate).toBeLessThan(run.tokens.baseline);
  });

  it('swe/72822db6… with --preset mbpp: one periodic check at step 4, approved', async () => {
    const r = await runCli([join(TRAIL, 'swe', '72822db6e120878d916b515c2501246b.json'), '--preset', 'mbpp', '--json']);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.triggers.map((t) => [t.agent, t.step, t.context, t.action])).toEqual([['manager', 4, 'inefficient', 'approve']]);
  });
});

describe.skipIf(!HAVE_SHARED)(`supervise --endpoint against the test server (${HAVE_SHARED ? '' : SKIP_REASON})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const USAGE = { prompt_tokens: 100, completion_tokens: 20 };
  const decision = (action: string, parameters: Record<string, string>) => JSON.stringify({ analysis: 'scripted', action, parameters });
  const rules = [
    { match: { contains: 'handed back its final report' }, content: decision('correct_observation', { new_observation: 'Short synthesis.' }), usage: USAGE },
    { match: { contains: 'failed with an error' }, content: decision('provide_guidance', { guidance: 'Check the file path.' }), usage: USAGE },
    { match: { contains: 'routine efficiency check' }, content: decision('approve', {}), usage: USAGE },
    { match: { contains: 'shorten raw tool observations' }, content: 'Purified page.', usage: USAGE },
  ];
  const endpointArgs = (file: string) => [file, '--endpoint', server.baseUrl, '--model', 'test-model', '--json'];

  it('each trigger makes its call; actions are allowed; overhead is the usage the server returned', async () => {
    server.setScript({ rules });
    const r = await runCli(endpointArgs(gaia('b1f9b9baefa4c69d1d848e35c130e29d')));
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.triggers).toHaveLength(13);
    const chats = server.log().filter((e) => e.path === '/v1/chat/completions');
    expect(chats).toHaveLength(13);
    for (const t of run.triggers) expect(ALLOWED_ACTIONS[t.context]).toContain(t.action);
    expect(run.triggers.filter((t) => t.context === 'error').every((t) => t.action === 'provide_guidance')).toBe(true);
    expect(run.tokens.supervisor_overhead).toBe(13 * 120);
    const { baseline, supervised_estimate, supervisor_overhead, net_saving_pct } = run.tokens;
    expect(net_saving_pct).toBeCloseTo((100 * (baseline - supervised_estimate - supervisor_overhead)) / baseline, 1);
  });

  it('a 429 with Retry-After, then success: the run finishes', async () => {
    server.setScript({ queue: [{ status: 429, retryAfter: 1 }], rules });
    const r = await runCli(endpointArgs(gaia('41bbc898aa7de0f31d2382ff57700a76')));
    expect(r.status).toBe(0);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.triggers.map((t) => t.action)).toEqual(['correct_observation', 'provide_guidance']);
    expect(server.log().map((e) => e.status)).toEqual([429, 200, 200]);
  });

  it('500 forever: stops cleanly, says what failed, and keeps the interventions already made', async () => {
    server.setScript({ queue: [{ content: decision('correct_observation', { new_observation: 'ok' }), usage: USAGE }], fallback: { status: 500 } });
    const r = await runCli(endpointArgs(gaia('41bbc898aa7de0f31d2382ff57700a76')));
    expect(r.status).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/search_agent step 1 \(error\) failed: HTTP 500/);
    expect(lines[0]).toMatch(/stopped after 1 interventions/);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.triggers.map((t) => [t.agent, t.step, t.action])).toEqual([['manager', 1, 'correct_observation']]);
    expect(run.tokens.supervisor_overhead).toBe(120);
  });

  it('malformed answers: a broken body is retried, a non-JSON decision falls back to the heuristic', async () => {
    server.setScript({ queue: [{ fault: 'malformed' }, { content: decision('correct_observation', { new_observation: 'ok' }), usage: USAGE }, { content: 'I would suggest checking the path', usage: USAGE }] });
    const r = await runCli(endpointArgs(gaia('41bbc898aa7de0f31d2382ff57700a76')));
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.status).toBe(0);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.triggers.map((t) => [t.context, t.action])).toEqual([
      ['subagent_completion', 'correct_observation'],
      ['error', 'provide_guidance'],
    ]);
    expect(run.tokens.supervisor_overhead).toBe(240);
  });
  it('--out keeps the decisions and every call; --replay reproduces them from the session with the server gone', async () => {
    server.setScript({ rules });
    const dir = mkdtempSync(join(tmpdir(), 'mas-supervise-replay-'));
    const session = join(dir, 'supervised.session.json');
    const live = await runCli([...endpointArgs(gaia('b1f9b9baefa4c69d1d848e35c130e29d')), '--out', session]);
    expect(live.status, live.stderr).toBe(0);
    const recorded = (JSON.parse(live.stdout) as Report).runs[0];
    expect(server.log().filter((e) => e.path === '/v1/chat/completions')).toHaveLength(13);

    // No endpoint at all now: every answer must come from the session's recorded calls.
    await server.close();
    const again = await runCli([session, '--replay', '--json']);
    expect(errorLines(again.stderr)).toEqual([]);
    expect(again.status).toBe(0);
    const replayed = (JSON.parse(again.stdout) as { runs: (Report['runs'][number] & { replay: { same: number; differences: unknown[] } })[] }).runs[0];
    expect(replayed.triggers).toEqual(recorded.triggers);
    expect(replayed.tokens).toEqual(recorded.tokens);
    expect(replayed.replay).toEqual({ same: 13, differences: [] });
    server = await startTestServer();
  });

  it('--replay needs recorded calls and stands alone', async () => {
    const r = await runCli([gaia('41bbc898aa7de0f31d2382ff57700a76'), '--replay', '--json']);
    expect(r.status).toBe(2);
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(errorLines(r.stderr)[0]).toMatch(/no recorded supervisor calls to replay/);
    const both = await runCli([gaia('41bbc898aa7de0f31d2382ff57700a76'), '--replay', '--offline']);
    expect(both.status).toBe(2);
    expect(errorLines(both.stderr)[0]).toMatch(/--replay answers from recorded calls/);
  });
});
