// Issue 19: a running team exports OTLP to the studio's own server (the real OpenTelemetry JS SDK, from the test
// process) while the page is open. The run appears, grows step by step, the supervisor's trigger shows in the
// interventions lane before the run ends (decided by the endpoint when one is set), and a reload in the middle loses
// nothing; a finished live run forks from a step; two tabs share one leader that stores the live runs once.
// The tests share this file's server (its ring replays earlier tests' exports to new pages): they run one after
// another and find their own run by its task text.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { context, trace } from '@opentelemetry/api';
import { expect, test, type Page } from '@playwright/test';
import { smolagentsEmitter } from '../src/testing/otel-smolagents.ts';
import { openStudio } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

test.describe.configure({ mode: 'serial' });

const position = (page: Page) => page.getByTestId('playhead-position');
const lane = (page: Page) => page.getByTestId('timeline-panel').getByText(/^interventions \(\d+\)$/);
/** The library's row of a live run (its run id is the trace id). */
const liveRows = (page: Page, traceId: string) => page.locator(`[data-testid="run-row"][data-run-id="${traceId}"]`).filter({ has: page.getByTestId('live-badge') });
const atEnd = (page: Page) => async () => {
  const m = /step (\d+) \/ (\d+)/.exec((await position(page).textContent()) ?? '');
  return m !== null && m[1] === m[2] ? Number(m[2]) : -1;
};
const library = (page: Page) => page.getByRole('button', { name: 'Library', exact: true }).click();

test('a run exported live grows in the page, shows its supervisor trigger before it ends, and survives a reload', async ({ page, baseURL }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await openStudio(page);
  const task = `Find the capital of France (${test.info().testId}).`;
  const emitter = smolagentsEmitter(new OTLPTraceExporter({ url: `${baseURL}/v1/traces` }), task);
  const rows = liveRows(page, emitter.traceId);

  await emitter.step(1);
  await expect(rows).toHaveCount(1);
  const row = rows.first();
  await expect(row.getByTestId('live-badge')).toHaveText('live');
  await expect(row.getByTestId('run-steps')).toHaveText('1');

  await row.getByRole('button').first().click();
  await expect(position(page)).toBeVisible();
  await page.keyboard.press('End');
  await expect.poll(atEnd(page)).toBeGreaterThan(0);
  const first = await atEnd(page)();

  // Step 2 fails: the filter fires and the lane shows it while the run is still going.
  await emitter.step(2);
  await expect.poll(atEnd(page)).toBeGreaterThan(first);
  await expect(lane(page)).toHaveText('interventions (1)');

  await emitter.step(3);
  await expect.poll(atEnd(page)).toBeGreaterThan(first + 1);
  const beforeReload = await atEnd(page)();

  // A reload mid-run: the run is read back (from the library, or rebuilt from the stored spans), and steps sent after
  // it join the same run.
  await page.reload();
  await expect(position(page)).toContainText(`/ ${beforeReload}`);
  await expect(lane(page)).toHaveText('interventions (1)');
  await page.keyboard.press('End');
  await expect.poll(atEnd(page)).toBe(beforeReload);
  await emitter.step(4);
  await expect.poll(atEnd(page)).toBeGreaterThan(beforeReload);

  await emitter.finish();
  await library(page);
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId('live-badge')).toHaveText('done');
  await expect(rows.first().getByTestId('run-steps')).toHaveText('4');
  await emitter.provider.shutdown();
  expect(problems).toEqual([]);
});

test.describe('with the project’s test server as the endpoint', () => {
  let llm: LlmServer;
  test.beforeAll(async () => {
    llm = await startLlmServer();
  });
  test.afterAll(() => llm?.stop());

  test('the supervisor’s action on a failed step is asked of the endpoint and shows in the lane before the run ends', async ({ page, baseURL }) => {
    await llm.reset();
    await llm.script({
      rules: [{ match: { contains: 'failed with an error' }, content: '{"analysis":"the search timed out","action":"provide_guidance","parameters":{"guidance":"Retry web_search with a shorter query."}}' }],
      fallback: { content: '{"analysis":"fine","action":"approve","parameters":{}}' },
    });
    await openStudio(page);
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Engines' }).click();
    await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
    await page.getByLabel('Base URL').fill(llm.baseUrl);
    await page.getByLabel('Supervisor model').fill('test-model');
    await page.getByLabel('Retries').fill('0');
    await library(page);

    const task = `Find the capital of Peru (${test.info().testId}).`;
    const emitter = smolagentsEmitter(new OTLPTraceExporter({ url: `${baseURL}/v1/traces` }), task);
    await emitter.step(1);
    const rows = liveRows(page, emitter.traceId);
    await expect(rows).toHaveCount(1);
    await rows.first().getByRole('button').first().click();
    await expect(page.locator('html')).toHaveAttribute('data-otlp-live-supervisor', 'endpoint');
    // Runs replayed from earlier tests' exports were supervised before this run's first step showed: count from here.
    const errorAsks = async () => (await llm.log()).filter((e) => e.path === '/v1/chat/completions' && JSON.stringify(e.body).includes('failed with an error')).length;
    const before = await errorAsks();
    await emitter.step(2);
    await expect(lane(page)).toHaveText('interventions (1)');
    expect(await errorAsks()).toBe(before + 1);
    await expect(page.getByTestId('timeline-panel')).toBeVisible();
    await library(page);
    await expect(rows.first().getByTestId('live-badge')).toHaveText('live');
    // The decision is kept as the run grows: the endpoint is not asked about step 2 again.
    await emitter.step(3);
    await emitter.finish();
    await expect(rows.first().getByTestId('live-badge')).toHaveText('done');
    expect(await errorAsks()).toBe(before + 1);
    await emitter.provider.shutdown();
  });
});

/** An OTel GenAI agent whose model calls carry their prompts (a run the studio can fork), one call per `call(n)`. */
function genAiEmitter(url: string, question: string) {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))] });
  const tracer = provider.getTracer('genai-test');
  const root = tracer.startSpan('invoke_agent solver', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'solver' } });
  const ctx = trace.setSpan(context.active(), root);
  return {
    provider,
    traceId: root.spanContext().traceId,
    async call(n: number) {
      const span = tracer.startSpan('chat test-model', {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'test-model',
          'gen_ai.usage.input_tokens': 10 + n,
          'gen_ai.usage.output_tokens': 5,
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `${question} (part ${n})` }] }]),
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `answer ${n}` }] }]),
        },
      }, ctx);
      span.end();
      await provider.forceFlush();
    },
    async finish() {
      root.end();
      await provider.forceFlush();
    },
  };
}

test('a finished live run forks from a step, and the fork opens', async ({ page, baseURL }) => {
  await openStudio(page);
  const question = `What is 6 times 7 (${test.info().testId})?`;
  const emitter = genAiEmitter(`${baseURL}/v1/traces`, question);
  await emitter.call(1);
  await emitter.call(2);
  const rows = liveRows(page, emitter.traceId);
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId('run-steps')).toHaveText('2');
  await rows.first().getByRole('button').first().click();
  await page.keyboard.press('End');
  const forkHere = page.getByTestId('inspector').getByRole('button', { name: 'Fork here' });
  // Still arriving: its steps may change, so it forks once it is done.
  await expect(forkHere).toBeDisabled();
  await expect(forkHere).toHaveAttribute('title', /still arriving live/);
  await emitter.call(3);
  await emitter.finish();
  await expect(position(page)).toContainText('/ 3');
  // Step 2 of 3 (the run view may still be following the newest step as the last update lands).
  await expect(async () => {
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('inspector')).toContainText('Step 2 of 3', { timeout: 1000 });
  }).toPass();
  await expect(forkHere).toBeEnabled();
  const parentId = new URL(page.url()).searchParams.get('run')!;
  await forkHere.click();
  await expect(page.getByTestId('fork-panel')).toBeVisible();
  await expect(page.getByLabel('Run to fork')).toHaveValue(parentId);
  await page.getByRole('button', { name: 'Fork and continue' }).click();
  await expect(page.getByTestId('compare-page')).toBeVisible({ timeout: 30_000 });
  const url = new URL(page.url());
  expect(url.searchParams.get('a')).toBe(parentId);
  expect(url.searchParams.get('b')).toMatch(/^fork-/);
  await emitter.provider.shutdown();
});

test('two tabs: one leads (reads the stream, stores the spans), both show the run growing and store it once, the other takes over when it closes', async ({ context, baseURL }) => {
  const a = await context.newPage();
  await openStudio(a);
  const b = await context.newPage();
  await openStudio(b);
  const role = (page: Page) => page.evaluate(() => document.documentElement.dataset.otlpLiveRole);
  // Exactly one leads (whichever took the lock first).
  await expect.poll(async () => [await role(a), await role(b)].sort()).toEqual(['follower', 'leader']);
  const [leader, follower] = (await role(a)) === 'leader' ? [a, b] : [b, a];
  const storedFiles = (page: Page, traceId: string) =>
    page.evaluate(
      (id) =>
        new Promise<string[]>((resolve, reject) => {
          const open = indexedDB.open('mas-replay-studio');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const all = open.result.transaction('files').objectStore('files').getAll();
            all.onsuccess = () => resolve((all.result as Array<{ id: string; runIds: string[] }>).filter((f) => f.runIds.includes(id)).map((f) => f.id));
          };
        }),
      traceId,
    );

  const first = smolagentsEmitter(new OTLPTraceExporter({ url: `${baseURL}/v1/traces` }), `Find the capital of Chile (${test.info().testId}).`);
  await first.step(1);
  await first.step(2);
  for (const page of [leader, follower]) {
    await expect(liveRows(page, first.traceId)).toHaveCount(1);
    await expect(liveRows(page, first.traceId).first().getByTestId('run-steps')).toHaveText('2');
  }
  // The growing run is not written yet (its spans are, by the leader's worker).
  expect(await storedFiles(follower, first.traceId)).toEqual([]);
  await first.finish();
  for (const page of [leader, follower]) await expect(liveRows(page, first.traceId).first().getByTestId('live-badge')).toHaveText('done');
  // Both tabs wrote the finished run: one file, under the id its trace gives.
  await expect.poll(() => storedFiles(follower, first.traceId)).toEqual([`live-otlp:${first.traceId}`]);
  await follower.waitForTimeout(500);
  expect(await storedFiles(follower, first.traceId)).toEqual([`live-otlp:${first.traceId}`]);

  // The leader closes: the other tab leads, reads the stream and shows the next run growing.
  await leader.close();
  await expect.poll(async () => role(follower)).toBe('leader');
  const second = smolagentsEmitter(new OTLPTraceExporter({ url: `${baseURL}/v1/traces` }), `Find the capital of Peru (${test.info().testId}).`);
  await second.step(1);
  await expect(liveRows(follower, second.traceId).first().getByTestId('run-steps')).toHaveText('1');
  await second.step(2);
  await expect(liveRows(follower, second.traceId).first().getByTestId('run-steps')).toHaveText('2');
  await second.finish();
  await expect(liveRows(follower, second.traceId).first().getByTestId('live-badge')).toHaveText('done');
  await expect.poll(() => storedFiles(follower, second.traceId)).toEqual([`live-otlp:${second.traceId}`]);
  await first.provider.shutdown();
  await second.provider.shutdown();
});

test('a live run whose model calls report no token counts shows estimated tokens (the live worker loads its token counter when spans first come)', async ({ page, baseURL }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await openStudio(page);
  const emitter = smolagentsEmitter(new OTLPTraceExporter({ url: `${baseURL}/v1/traces` }), `Find the capital of Peru (${test.info().testId}).`, { tokenCounts: false });
  const rows = liveRows(page, emitter.traceId);
  await emitter.step(1);
  await emitter.finish();
  await expect(rows.first().getByTestId('live-badge')).toHaveText('done');
  // Counted from the model's output message by the o200k counter, and marked as an estimate.
  await expect(rows.first().getByTestId('run-tokens')).toHaveText(/^≈\s*[1-9]\d*/);
  await emitter.provider.shutdown();
  expect(problems).toEqual([]);
});
