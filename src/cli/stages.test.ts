// `stages` as a user runs it: a subprocess, offline on a real TRAIL trace (the same stages as the engine derives),
// `--out` writing a native session the importer reads back, and the LLM pass against the project's test server.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-server/server.ts';
import { ROLE_MARKERS } from '../engine/stages/prompts.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { importBytes } from '../import/index.ts';
import { runCliAsync } from '../testing/run-cli.ts';

const TRACE = join(SHARED_TRACES, 'trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json');
const tmp = mkdtempSync(join(tmpdir(), 'mas-stages-'));

interface Report {
  runs: { id: string; mode: string; heuristic: boolean; status: string; stages: { id: string; steps: [number, number] | null; active: string | null; subtasks: { status: string }[]; verdict: string | null; confidence: number | null; layers: { agent: string; frequency?: number }[][] }[]; tokens: number }[];
}

const runCli = (args: string[]) => runCliAsync('stages', args);

describe('stages usage errors', () => {
  it('exit 2 with one error line', async () => {
    for (const [args, re] of [
      [[], /exactly one file/],
      [['x.json', '--endpoint', 'http://127.0.0.1:1/v1'], /--endpoint needs --model/],
      [['x.json', '--offline', '--endpoint', 'http://h/v1', '--model', 'm'], /exclude each other/],
    ] as [string[], RegExp][]) {
      const r = await runCli(args);
      expect(r.status).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('error'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(re);
    }
  });
});

describe.skipIf(!HAVE_SHARED)('stages on a real TRAIL trace', () => {
  if (!HAVE_SHARED) console.warn(SKIP_REASON);
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('offline: six stages tiling the replay, search_agent in the second layer of stages 4 and 5, and a native session with --out', async () => {
    const out = join(tmp, 'offline.session.json');
    const r = await runCli([TRACE, '--offline', '--json', '--out', out]);
    expect(r.status).toBe(0);
    const [run] = (JSON.parse(r.stdout) as Report).runs;
    expect(run).toMatchObject({ mode: 'offline', heuristic: true, status: 'complete', tokens: 0 });
    const placed = run.stages.filter((s) => s.steps !== null);
    expect(placed).toHaveLength(6);
    expect(placed[0].steps![0]).toBe(0);
    for (let i = 1; i < placed.length; i++) expect(placed[i].steps![0]).toBe(placed[i - 1].steps![1] + 1);
    expect(run.stages.map((s) => s.layers[1]?.[0]?.agent ?? null)).toEqual([null, null, null, 'search_agent', 'search_agent', null, null]);
    expect(run.stages.at(-1)).toMatchObject({ id: 'stage-closing', steps: null, active: null });
    const back = importBytes('offline.session.json', readFileSync(out));
    expect(back.format).toBe('native');
    expect(back.runs[0].stages).toHaveLength(7);
    expect(back.runs[0].stages!.every((s) => s.derivedBy === 'offline')).toBe(true);
  });

  it('endpoint: planner once, evaluator + updater per later stage and the closing state; tokens as scripted; calls in --out', async () => {
    const usage = { prompt_tokens: 30, completion_tokens: 5 };
    server.setScript({
      rules: [
        { match: { contains: ROLE_MARKERS.planner }, content: '{"subtasks":[{"id":"s1","title":"Read the file","status":"TODO"}],"next_subtask_id":"s1","summary":"-"}', usage },
        { match: { contains: ROLE_MARKERS.evaluator }, content: '{"verdict":"failure","confidence":0.9,"feedback":"no file content"}', usage },
        { match: { contains: ROLE_MARKERS.updater }, content: '{"subtasks":[{"id":"s1","title":"Read the file","status":"FAILED"}],"next_subtask_id":null,"summary":"-"}', usage },
      ],
    });
    const out = join(tmp, 'llm.session.json');
    const r = await runCli([TRACE, '--endpoint', server.baseUrl, '--model', 'judge', '--json', '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [run] = (JSON.parse(r.stdout) as Report).runs;
    expect(run).toMatchObject({ mode: 'endpoint', heuristic: false, status: 'complete', tokens: 13 * 35 });
    expect(run.stages.slice(1).map((s) => [s.verdict, s.confidence])).toEqual(Array(6).fill(['failure', 0.9]));
    expect(server.log()).toHaveLength(13);
    const back = importBytes('llm.session.json', readFileSync(out));
    expect(back.llmCalls).toHaveLength(13);
    expect(back.runs[0].stages!.flatMap((s) => s.llmCallIds ?? []).sort()).toEqual((back.llmCalls ?? []).map((c) => c.id).sort());
  });

  it('endpoint failure: exit 1, the finished stages printed, one error line naming the role and stage', async () => {
    server.reset();
    server.setScript({ queue: [{ content: '{"subtasks":[{"title":"Read"}]}' }], fallback: { status: 500 } });
    const r = await runCli([TRACE, '--endpoint', server.baseUrl, '--model', 'judge', '--json']);
    expect(r.status).toBe(1);
    expect((JSON.parse(r.stdout) as Report).runs[0]).toMatchObject({ status: 'failed' });
    expect((JSON.parse(r.stdout) as Report).runs[0].stages).toHaveLength(1);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('error'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/the evaluator call for stage 2 failed: HTTP 500.*stopped after 1 stages/);
  });
});
