// A reload with a large run in the library never freezes the page (issue 14 goal 2; ADR 0059). The library's load
// checks every stored run against the import schema; it did so in one zod pass per run, inside the read transaction,
// after reading each array's chunks in one request: a 200k-message chat log held the page 1.4 s on every reload (8.8 s
// at a million). Now the chunks are read one request each and the run is checked a slice at a time.
// Its export as a session was made on the page too, in one JSON.stringify (1 s at 200k); it is made in a worker now.
// A removal deleted the run's chunks, and its undo wrote every step again on the page (2.2 s at 1M); the chunks now
// stay until the next load, and the undo writes the run's record only.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { fileRuns, openGroupChat, watchLongTasks } from './fixtures.ts';

const MESSAGES = 100_000;
/**
 * In CPU time (watchLongTasks): far under the one pass over this run (568 ms of CPU on the build before ADR 0059), far
 * over a slice (8 ms of checking, a chunk's deserialising).
 */
const LONG_TASK_MS = 250;

test('a reload with a 100k-message run in the library has no long task, and the run is there; its export neither', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await openGroupChat(page, testInfo.outputPath('big-group-chat.json'), MESSAGES);

  // Every task of the reloaded page, from its first script on.
  const longestOfReload = await watchLongTasks(page);
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  const run = fileRuns(page, 'big-group-chat.json');
  await expect(run).toHaveCount(1);
  await expect(run.first()).toContainText('100,000');
  await expect(page.getByTestId('quarantine-note')).toHaveCount(0);
  // The library's table drawn, and a moment for anything it set off.
  await page.waitForTimeout(1000);
  expect(await longestOfReload(), 'longest task of the reload').toBeLessThan(LONG_TASK_MS);

  // Exported as a session, made off the page: the file holds every message.
  const longestOfExport = await watchLongTasks(page);
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), run.first().getByRole('button', { name: /as a session$/ }).click()]);
  const saved = testInfo.outputPath('exported.session.json');
  await download.saveAs(saved);
  const session = JSON.parse(readFileSync(saved, 'utf8')) as { runs: { steps: unknown[] }[] };
  expect(session.runs[0].steps).toHaveLength(MESSAGES);
  expect(await longestOfExport(), 'longest task while the session was made').toBeLessThan(LONG_TASK_MS);

  // Removed, then put back with Undo: the run's chunks stayed for the undo, which writes only its record. After a
  // reload it is whole.
  await page.getByRole('button', { name: 'Remove' }).first().click();
  await expect(run).toHaveCount(0);
  await page.getByRole('button', { name: /^Undo/ }).click();
  await expect(run).toHaveCount(1);
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });

  // The run opens whole: its last message is the last step.
  await run.first().getByRole('button').first().click();
  await expect(page.getByTestId('playhead-position')).toContainText('100,000', { timeout: 60_000 });
});
