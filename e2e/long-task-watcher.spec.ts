// The guard of the "no long task" specs (watchLongTasks in fixtures.ts) still sees the page's own work: it leaves out
// Chromium's spin in a worker's start (ADR 0097), and a mistake there could leave out everything, and every spec
// that relies on it would then pass whatever the studio does.
import { expect, test } from '@playwright/test';
import { openStudio, watchLongTasks } from './fixtures.ts';

test('the long-task watcher counts a task of the page’s own work, with a worker started beside it', async ({ page }) => {
  await openStudio(page);
  const longest = await watchLongTasks(page);
  // 400 ms of a busy loop (wall): at least half of it on a core even when another test's browser holds the other.
  await page.evaluate(() => {
    const worker = new Worker(URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' })));
    worker.onmessage = () => worker.terminate();
    const start = performance.now();
    while (performance.now() - start < 400);
  });
  expect(await longest(), 'thread time of a 400 ms busy task').toBeGreaterThan(150);
});
