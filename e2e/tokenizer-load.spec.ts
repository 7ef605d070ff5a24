import { expect, test, type Page, type Worker } from '@playwright/test';
import { cliJson, fileRuns, openStudio, openTraceFiles, sharedTrace, skipWithoutShared } from './fixtures.ts';

// ADR 0038: the import worker loads the token counter when a file first asks for an estimate, or once it has waited
// 2.5 s from its start without a file; ADR 0070: it fetches the build's token table (5.1 MB, the only asset that
// large). The worker's own resource timing says whether it fetched the file.
const WHO_AND_WHEN = 'who-and-when/hand-crafted/1.json';
const RECORDED_USAGE = 'otlp/rag_earnings_agent.json';

async function importWorker(page: Page): Promise<Worker> {
  await expect.poll(() => page.workers().some((w) => w.url().includes('import.worker')), { timeout: 15_000 }).toBe(true);
  return page.workers().find((w) => w.url().includes('import.worker'))!;
}

/** Whether the worker has fetched a resource of over 1.5 MB (the token table), and how long it has lived. */
function tokenizerState(worker: Worker): Promise<{ fetched: boolean; age: number }> {
  return worker.evaluate(() => ({
    fetched: performance.getEntriesByType('resource').some((e) => (e as PerformanceResourceTiming).decodedBodySize > 1_500_000),
    age: performance.now(),
  }));
}

test('a file with recorded usage dropped at once never loads the tokenizer', async ({ page }) => {
  skipWithoutShared(RECORDED_USAGE);
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(RECORDED_USAGE));
  await expect(fileRuns(page, 'rag_earnings_agent.json')).toHaveCount(1);
  const worker = await importWorker(page);
  // Past the idle preload's moment: a worker that has had a file does not load it on its own.
  await expect.poll(async () => (await tokenizerState(worker)).age, { timeout: 15_000 }).toBeGreaterThan(4_000);
  expect((await tokenizerState(worker)).fetched).toBe(false);
});

test('an idle import worker loads the tokenizer on its own; a chat log dropped then estimates its tokens', async ({ page }) => {
  skipWithoutShared(WHO_AND_WHEN);
  await openStudio(page);
  const worker = await importWorker(page);
  await expect.poll(async () => (await tokenizerState(worker)).fetched, { timeout: 15_000 }).toBe(true);
  await openTraceFiles(page, sharedTrace(WHO_AND_WHEN));
  await expect(fileRuns(page, '1.json').getByTestId('run-tokens')).toContainText('estimated');
  // The counter read in the browser from the build's table counts as the CLI's (which reads its own).
  const cli = await cliJson<{ files: { runs: { tokens: { total: number } }[] }[] }>(['inspect', sharedTrace(WHO_AND_WHEN), '--json']);
  const total = cli.files[0].runs[0].tokens.total;
  expect(total).toBeGreaterThan(1000);
  await expect(fileRuns(page, '1.json').getByTestId('run-tokens')).toContainText(`≈${total.toLocaleString('en-US')}`);
});

test('on a first visit the samples load and the idle worker still loads the tokenizer on its own (ADR 0109)', async ({ page }) => {
  skipWithoutShared(WHO_AND_WHEN);
  // A first visit: no openStudio (which marks the visit as a later one), so the bundled samples are imported.
  await page.goto('/');
  await expect(page.getByTestId('library-file')).toHaveCount(3, { timeout: 30_000 });
  const worker = await importWorker(page);
  // Before ADR 0109 the samples' import counted as the person's first file, and the worker never loaded it on its own.
  await expect.poll(async () => (await tokenizerState(worker)).fetched, { timeout: 15_000 }).toBe(true);
  await openTraceFiles(page, sharedTrace(WHO_AND_WHEN));
  await expect(fileRuns(page, '1.json').getByTestId('run-tokens')).toContainText('estimated');
});

