// A per-run download carries the endpoint calls the run refers to: a live run's own turns included, not only the
// calls its interventions and stages point to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { runTeam, defaultTeam } from '../../engine/runner/runner.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import { exportSession } from '../../export/native.ts';
import { callsOfRuns } from './download.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('callsOfRuns', () => {
  it('a runner-made run exports with every call its turns made', async () => {
    server.setScript({ rules: [], fallback: { content: '6 × 7 = 42\nFINAL ANSWER: 42' } });
    const recorder = new CallRecorder();
    const client = new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { agents: 'agent-model' }, retries: 0, retryBaseMs: 1 }), { recorder });
    const { run } = await runTeam({ id: '1', question: 'What is 6 times 7?', answer: '42', domain: 'math' }, defaultTeam('math'), { client, runId: 'live-1' });
    expect(run.interventions).toEqual([]);
    const pool = Object.fromEntries(recorder.records.map((r) => [r.id, r]));
    const other = { id: 'other#1', requestHash: 'other', model: 'm', request: {} };
    const calls = callsOfRuns([run], { ...pool, [other.id]: other });
    expect(calls.map((c) => c.id).sort()).toEqual(recorder.records.map((r) => r.id).sort());
    expect(calls).toHaveLength(run.steps.length);
    const session = JSON.parse(exportSession({ runs: [run], llmCalls: calls }));
    expect(session.llmCalls).toHaveLength(run.steps.length);
  });
});
