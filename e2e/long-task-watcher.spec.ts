// The guard of the "no long task" specs (watchLongTasks in fixtures.ts) still sees the page's own work: it leaves out
// Chromium's spin in a worker's start (ADR 0097), and a mistake there could leave out everything, and every spec
// that relies on it would then pass whatever the studio does.
import { expect, test } from '@playwright/test';
import { openStudio, watchLongTasks } from './fixtures.ts';

test('the long-task watcher counts a task of the page’s own work, with a worker started beside it', async ({ page }) => {
  await openStudio(page);
  const longest = await watchLongTasks(page);
  // 1 s of a busy loop (wall). Beside a heavy test (a reload of a 100k-message run, its browser and worker busy) a
  // 400 ms loop got 126 ms of the core once: the thread's share of a loaded core can fall to a third. 1 s leaves the
  // check (over 150 ms of thread time, where a watcher that leaves the task out reads a few ms) that margin.
  await page.evaluate(() => {
    const worker = new Worker(URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' })));
    worker.onmessage = () => worker.terminate();
    const start = performance.now();
    while (performance.now() - start < 1000);
  });
  expect(await longest(), 'thread time of a 1 s busy task').toBeGreaterThan(150);
});
