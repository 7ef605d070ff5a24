// The per-run budget cap (issue 21): a pass through the worker pump stops at the cap, says why, and keeps every result
// made before it (they were posted to the page as they came), against the project's test server over real HTTP.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-server/server.ts';
import { clarifyRunSteps } from '../engine/clarifier/index.ts';
import { withDefaults } from '../llm/settings.ts';
import type { Intervention } from '../model/types.ts';
import { HAVE_SHARED, importShared, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { pumpPass } from './pump.ts';
import { RunningJobs } from './running-jobs.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe.skipIf(!HAVE_SHARED)(`the per-run budget cap (${HAVE_SHARED ? 'shared traces present' : SKIP_REASON})`, () => {
  it('stops the clarifier at the cap with the edges finished before it kept', async () => {
    const run = importShared(join(SHARED_TRACES, 'who-and-when/hand-crafted/2.json')).runs[0];
    // Every edge passes after one call of 10,000 tokens. A call goes out while its rough prompt size (well under 5,000
    // here) fits what is left of 25,000: the third goes (20,000 spent), the fourth is refused (30,000 spent).
    server.setScript({ fallback: { content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 9990, completion_tokens: 10 } } });
    const llm = withDefaults({ baseUrl: server.baseUrl, models: { supervisor: 'm' }, retries: 0, maxTokens: 2048, tokenBudgetPerRun: 25_000 });
    const kept: Intervention[] = [];
    const result = await pumpPass(new RunningJobs(), 1, { llm, previous: [] }, { onProgress: () => {}, onItem: (iv: Intervention) => void kept.push(iv), onCall: () => {} }, (client, signal) =>
      clarifyRunSteps(run, { client, signal }),
    );
    expect(run.handoffs.length).toBeGreaterThan(4);
    expect(result.status).toBe('failed');
    expect(result.failure?.message).toMatch(/budget/i);
    expect(server.log().filter((e) => e.path.endsWith('/chat/completions'))).toHaveLength(3);
    expect(kept).toHaveLength(3);
    expect(result.interventions).toHaveLength(3);
    expect(result.cost.perRun).toMatchObject({ calls: 3, tokens: { total: 30_000 } });
  });
});
