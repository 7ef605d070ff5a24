// A run opened right after its import takes the trace part of its view (loops, graph, per-position columns) from the
// import worker, which computed it while the page took the steps (src/features/run-view/trace-parts.ts); the same
// run opened after a reload, from IndexedDB, is built on the page. Both show the same numbers.
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';

const MAGENTIC = 'who-and-when/hand-crafted/3.json';

test.use({ viewport: { width: 1280, height: 800 } });

/** Whether the last run view built in slices took the worker's part (the User Timing entry the benches read). */
async function builtFromWorker(page: Page): Promise<boolean | undefined> {
  return page.evaluate(() => {
    const entry = performance.getEntriesByName('mas-replay:run-view-build').at(-1) as PerformanceMeasure | undefined;
    return (entry?.detail as { fromWorker?: boolean } | undefined)?.fromWorker;
  });
}

/** What the view says about the run: the step list's header, the loop panel, the toolbar's loop count. */
async function numbers(page: Page) {
  const loops = page.getByTestId('loop-panel');
  await expect(loops.getByTestId('loop-item').first()).toBeVisible();
  return {
    steps: await page.locator('section[aria-label="Steps"] h2').innerText(),
    loops: await loops.innerText(),
    count: await page.getByTestId('loop-count').innerText(),
  };
}

test("a run opened after its import is built from the worker's part, with the numbers of one built on the page", async ({ page }) => {
  skipWithoutShared(MAGENTIC);
  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(MAGENTIC));
  await expect.poll(() => builtFromWorker(page)).toBe(true);
  const fromWorker = await numbers(page);
  expect(fromWorker.loops).toContain('Magentic-One ledger');

  // After a reload the run comes from IndexedDB: no part is expected of the worker, the page builds the whole view.
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 30_000 });
  await page.reload();
  await expect(page.getByTestId('playhead-position')).toBeVisible();
  await expect.poll(() => builtFromWorker(page)).toBe(false);
  expect(await numbers(page)).toEqual(fromWorker);
});
