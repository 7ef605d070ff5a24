// Untrusted traces (SPEC §9): files of every supported format whose every text field carries script payloads are
// opened through the real file input and shown in every view of e2e/views.ts (each step of each run, each compare
// row, the offline supervisor's cards). Nothing may run (no dialog, no `window.__xss`, no handler or script element
// in the DOM, no CSP violation), nothing may leave the page, and the payloads must be visible as plain text.
// A second test records every request of a full session (files, samples, every view, the supervisor against the
// project's test server, an export) and fails on any that is not same-origin or the configured endpoint.
// Screenshots go to test-results/untrusted/.
import { expect, test } from '@playwright/test';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { openStudio, openTraceFiles, sharedTrace } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';
import { LONG_PAYLOAD, PAYLOADS, writePayloadFiles } from './payloads.ts';
import { expectClean, watchPage } from './sentinel.ts';
import { goTo, openView, STUDIO_VIEWS } from './views.ts';

const SHOTS = 'test-results/untrusted';
/** Payloads that appear unchanged at the start of titles and names, so every view shows at least one of them. */
const RAW = [PAYLOADS.img, PAYLOADS.script, PAYLOADS.svg];
/** The run of the bundled native sample the kit rewrites (ids are left alone by the kit). */
const NATIVE_RUN = 'sim-group-chat-trip-budget';

test.use({ viewport: { width: 1500, height: 1000 } });

test('hostile text in every field of every format runs nothing, requests nothing, and shows as text in every view', async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  const kit = writePayloadFiles(testInfo.outputPath('payload-files'));
  if (kit.missing.length > 0) console.warn(`../shared/traces absent: formats not covered here: ${kit.missing.join(', ')}`);
  const sentinel = await watchPage(page);
  await openStudio(page);

  const cards = await openTraceFiles(page, ...kit.files.map((f) => f.path));
  await expect(page.getByTestId('failure-detail')).toHaveCount(0);
  for (const [i, card] of cards.entries()) await expect(card, `${kit.files[i].label} opened`).toBeVisible();
  // The raw payload is on the page as text (a run title), not as an element.
  await expect(page.getByText(PAYLOADS.img).first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/library.png`, fullPage: false });

  const runIds = await page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')!));
  expect(runIds.length).toBeGreaterThanOrEqual(kit.files.length - 2); // annotation files add labels, not runs

  for (const v of STUDIO_VIEWS) {
    if (v.walk) await v.walk(page, runIds, { stepsPerRun: 40 });
    else await openView(page, v);
    await expect(page.getByTestId(v.ready)).toBeVisible();
    const text = await page.locator('main').innerText();
    expect(RAW.some((p) => text.includes(p)), `${v.view}: a payload shown literally`).toBe(true);
    await page.screenshot({ path: `${SHOTS}/${v.view}.png` });
    await expectClean(sentinel);
  }

  // A huge field (the native sample's first step carries the 100k-character payload) is cut with "show all";
  // showing all of it runs nothing either.
  await goTo(page, `?run=${NATIVE_RUN}&step=${encodeURIComponent(`${NATIVE_RUN}:s0`)}`);
  const inspector = page.getByTestId('inspector-panel');
  const showAll = inspector.getByRole('button', { name: /^show all \(/ }).first();
  await expect(showAll).toBeVisible();
  expect((await inspector.innerText()).length).toBeLessThan(LONG_PAYLOAD.length);
  await showAll.click();
  await expect(inspector).toContainText(LONG_PAYLOAD.slice(-200));
  await page.screenshot({ path: `${SHOTS}/show-all.png` });
  await expectClean(sentinel);
});

test.describe('a full session against the test server', () => {
  let server: LlmServer;
  test.beforeAll(async () => {
    server = await startLlmServer();
  });
  test.afterAll(() => server.stop());

  test('every request goes to the page itself or the configured endpoint', async ({ page }) => {
    test.setTimeout(180_000);
    const decision = JSON.stringify({ analysis: 'scripted', action: 'provide_guidance', parameters: { guidance: 'Check the source first.' } });
    await server.reset();
    await server.script({ fallback: { content: decision, usage: { prompt_tokens: 40, completion_tokens: 8 } } });
    const sentinel = await watchPage(page);
    await openStudio(page);

    // Files of several formats (the real ones when ../shared/traces is here) and the bundled samples.
    const files = [
      resolve(import.meta.dirname, '../public/samples/simulated-group-chat.session.json'),
      ...['trail/gaia/0ebe673d64647ec44c370638b82d3c78.json', 'trail/annotations/0ebe673d64647ec44c370638b82d3c78.json', 'otlp/rag_earnings_agent.json', 'langfuse/autogen-2025-06-06.json', 'who-and-when/hand-crafted/1.json', 'smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__gaia__2025-08-27.jsonl']
        .map(sharedTrace)
        .filter((p) => existsSync(p)),
    ];
    await openTraceFiles(page, ...files);
    await page.getByRole('button', { name: 'Load samples' }).click();
    await expect(page.getByTestId('library-file').filter({ hasText: 'simulated-gaia-showcase.session.json' })).toBeVisible({ timeout: 30_000 });
    const endpointRun = 'sim-gaia-showcase-baseline';
    // The library mounts a long list 25 rows a task (ADR 0034): wait for the last file's rows before reading them all.
    await expect(page.locator(`[data-testid="run-row"][data-run-id="${endpointRun}"]`)).toBeAttached();
    const runIds = await page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')!));
    expect(runIds).toContain(endpointRun);
    const others = runIds.filter((id) => id !== endpointRun && !id.startsWith('sim-corpus')).slice(0, 3);

    for (const v of STUDIO_VIEWS) {
      if (v.walk) await v.walk(page, others, { stepsPerRun: 5 });
      else await openView(page, v);
      await expect(page.getByTestId(v.ready)).toBeVisible();
    }

    // The supervisor against the configured endpoint: connection test, then a run.
    await goTo(page, `?view=engines&run=${endpointRun}`);
    await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
    await page.getByLabel('Base URL').fill(server.baseUrl);
    await page.getByLabel('Supervisor model').fill('test-model');
    await page.getByLabel('API key').fill('sk-request-recorder');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByTestId('connection-result')).toContainText('Connected');
    await page.getByRole('button', { name: 'Run supervisor' }).click();
    await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    await expect(page.getByTestId('intervention-card').first()).toBeVisible();

    // The run view and the export after it.
    await page.getByTestId('intervention-card').first().getByRole('button').first().click();
    await expect(page.getByTestId('run-view')).toBeVisible();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Library' }).click();
    await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export all' }).click()]);

    const endpointCalls = sentinel.requests.filter((u) => u.startsWith(server.baseUrl));
    expect(endpointCalls.length).toBeGreaterThan(1); // the recorder saw the endpoint: models and chat completions
    expect(endpointCalls.some((u) => u.endsWith('/chat/completions'))).toBe(true);
    await expectClean(sentinel, { allowedOrigins: [server.origin] });
  });
});

test('a file over the size limit is refused with a message, before a byte of it is read', async ({ page }, testInfo) => {
  const path = testInfo.outputPath('huge-trace.json');
  // Sparse: 401 MB on paper, nothing on disk.
  const { openSync, ftruncateSync, closeSync } = await import('node:fs');
  const fd = openSync(path, 'w');
  ftruncateSync(fd, 401 * 1024 * 1024);
  closeSync(fd);
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(path);
  await expect(page.getByTestId('failure-detail')).toContainText('file is 401 MB; the limit is 400 MB');
  await expect(page.getByTestId('library-file')).toHaveCount(0);
});
