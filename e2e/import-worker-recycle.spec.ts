// Issue 14 (memory at scale, ADR 0077): the import worker that imported a large file is replaced by a fresh one once the
// run is saved, so that what the import left behind goes with it; the studio goes on working with the new worker.
import { statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { fileRuns, groupChat, openStudio } from './fixtures.ts';

/** An AG2 group chat of `messages` long messages (about 8.7 KB each): many bytes for few steps. */
function longChat(messages: number): string {
  const names = ['Planner', 'Coder', 'Critic', 'Writer'];
  const filler = 'the figures of the quarter were checked against the ledger once more. '.repeat(120);
  const history = Array.from({ length: messages }, (_, i) => JSON.stringify({ content: `step ${i}: ${filler}`, role: 'assistant', name: names[i % names.length] }));
  return `{"question":"Write the report.","history":[${history.join(',')}]}`;
}

/** The studio opened, its import workers watched: each started and each closed, by their script's address. */
async function openWatchingImportWorkers(page: Page): Promise<{ started: string[]; closed: string[] }> {
  const started: string[] = [];
  const closed: string[] = [];
  page.on('worker', (worker) => {
    if (!/import\.worker/.test(worker.url())) return;
    started.push(worker.url());
    worker.on('close', () => closed.push(worker.url()));
  });
  await openStudio(page);
  // Made once the page is idle after its first paint.
  await expect.poll(() => started.length, { timeout: 15_000 }).toBe(1);
  return { started, closed };
}

test('after a large import the import worker is replaced once the run is saved; the next import works on the new one', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const big = testInfo.outputPath('long-chat.json');
  writeFileSync(big, longChat(4000));
  // Over the client's RECYCLE_BYTES (32 MiB).
  expect(statSync(big).size).toBeGreaterThan(32 * 1024 * 1024);
  const small = testInfo.outputPath('small-chat.json');
  writeFileSync(small, groupChat(40));
  const { started, closed } = await openWatchingImportWorkers(page);

  await page.getByTestId('open-file-input').setInputFiles(big);
  await expect(fileRuns(page, 'long-chat.json')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  // Its work done, the worker goes and a fresh one is made when the page is idle.
  await expect.poll(() => closed.length, { timeout: 15_000 }).toBe(1);
  await expect.poll(() => started.length, { timeout: 15_000 }).toBe(2);

  // A small import on the new worker: listed and saved, and that worker kept.
  await page.getByTestId('open-file-input').setInputFiles(small);
  await expect(fileRuns(page, 'small-chat.json')).toHaveCount(1, { timeout: 30_000 });
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 30_000 });
  await page.waitForTimeout(500);
  expect(closed).toHaveLength(1);
  expect(started).toHaveLength(2);

  // Both runs are stored whole: a reload lists them again.
  await page.reload();
  await expect(fileRuns(page, 'long-chat.json')).toHaveCount(1, { timeout: 60_000 });
  await expect(fileRuns(page, 'small-chat.json')).toHaveCount(1);
  await expect(fileRuns(page, 'long-chat.json').getByTestId('run-steps')).toContainText('4,000');
});

test('a small gzip file of many messages counts as a large import: its worker is replaced too', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const file = testInfo.outputPath('many.json.gz');
  writeFileSync(file, gzipSync(groupChat(120_000)));
  // Far under RECYCLE_BYTES; over RECYCLE_ROWS (100,000) once mapped: a step and a handoff per message.
  expect(statSync(file).size).toBeLessThan(4 * 1024 * 1024);
  const { started, closed } = await openWatchingImportWorkers(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  await expect(fileRuns(page, 'many.json.gz')).toHaveCount(1, { timeout: 60_000 });
  await expect(fileRuns(page, 'many.json.gz').getByTestId('run-steps')).toContainText('120,000');
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  await expect.poll(() => closed.length, { timeout: 15_000 }).toBe(1);
  await expect.poll(() => started.length, { timeout: 15_000 }).toBe(2);
});
