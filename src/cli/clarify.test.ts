// `clarify` as a user runs it: a subprocess, offline on a real Who&When trace and against the project's test server.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-server/server.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { runCliAsync } from '../testing/run-cli.ts';

const TRACE = join(SHARED_TRACES, 'who-and-when/hand-crafted/1.json');

interface Report {
  runs: {
    id: string;
    edges: { id: string; from: string; to: string[]; type: string; to_agent: string | null; question: string; reply: string | null; resolved: boolean | null; tokens: number; heuristic: boolean }[];
    summary: { edges: number; asked: number; by_type: Record<string, number>; one_shot_pct: number | null; extra_tokens: number; run_tokens: number; extra_cost_pct: number | null; heuristic: boolean };
  }[];
}

const runCli = (args: string[]) => runCliAsync('clarify', args);

describe('clarify usage errors', () => {
  it('exit 2 with one error line', async () => {
    for (const [args, re] of [
      [[], /exactly one file/],
      [['x.json', '--endpoint', 'http://127.0.0.1:1/v1'], /--endpoint needs --model/],
      [['x.json', '--window', '-1'], /--window must be/],
      [['missing.json'], /^error: missing\.json: no such file/],
    ] as [string[], RegExp][]) {
      const r = await runCli(args);
      expect(r.status).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('error'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(re);
    }
  });
});

describe.skipIf(!HAVE_SHARED)(`clarify on a real Who&When run (${HAVE_SHARED ? 'shared traces present' : SKIP_REASON})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('offline: every handoff checked by the flagger, nothing spent', async () => {
    const r = await runCli([TRACE, '--offline', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    const run = report.runs[0];
    expect(run.summary.edges).toBeGreaterThan(5);
    expect(run.edges).toHaveLength(run.summary.edges);
    expect(run.edges.every((e) => e.heuristic && e.tokens === 0 && e.reply === null)).toBe(true);
    expect(run.summary).toMatchObject({ extra_tokens: 0, heuristic: true });
  });

  it('endpoint: asks on the first edge, the addressee answers, the rest pass; extra cost = extra / run tokens', async () => {
    server.setScript({
      queue: [
        { content: '{"type":"DG","to_agent":"sender","question":"Which weekday evenings count as after work?"}', usage: { prompt_tokens: 400, completion_tokens: 20 } },
        { content: 'Monday to Friday, 7 to 9 pm.', usage: { prompt_tokens: 200, completion_tokens: 10 } },
        { content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 420, completion_tokens: 10 } },
      ],
      fallback: { content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 100, completion_tokens: 5 } },
    });
    const r = await runCli([TRACE, '--endpoint', server.baseUrl, '--model', 'm', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const run = (JSON.parse(r.stdout) as Report).runs[0];
    expect(run.edges[0]).toMatchObject({ from: 'human', to: ['Orchestrator'], type: 'DG', to_agent: 'sender', reply: 'Monday to Friday, 7 to 9 pm.', resolved: true, tokens: 1060, heuristic: false });
    expect(run.edges.slice(1).every((e) => e.type === 'NONE' && e.tokens === 105)).toBe(true);
    const extra = 1060 + 105 * (run.edges.length - 1);
    expect(run.summary).toMatchObject({ asked: 1, one_shot_pct: 100, extra_tokens: extra, heuristic: false });
    expect(run.summary.extra_cost_pct).toBeCloseTo((100 * extra) / run.summary.run_tokens, 2);
  });
});
