// A run opened right after its import takes the trace part of its view (loops, graph, per-position columns) from the
// import worker, which computed it while the page took the steps (src/features/run-view/trace-parts.ts); the same
// run opened after a reload, from IndexedDB, is built on the page. Both show the same numbers. The run is the
// generated flat agent trace of bench/open-run at 6,000 spans (the worker computes parts for runs of 5,000 steps up).
import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { openStudio, openTraceInRunView } from './fixtures.ts';

/** Spans of the generated flat trace: a run above TRACE_PART_MIN_STEPS (5,000), which the worker computes a part for. */
const SPANS = 6000;

test.use({ viewport: { width: 1280, height: 800 } });

/** Whether the last run view built in slices took the worker's part (the User Timing entry the benches read). */
async function builtFromWorker(page: Page): Promise<boolean | undefined> {
  return page.evaluate(() => {
    const entry = performance.getEntriesByName('mas-replay:run-view-build').at(-1) as PerformanceMeasure | undefined;
    return (entry?.detail as { fromWorker?: boolean } | undefined)?.fromWorker;
  });
}

/** What the view says about the run: the step list's header, the toolbar's step counts, the loop panel, the token charts. */
async function numbers(page: Page) {
  const loops = page.getByTestId('loop-panel');
  await expect(loops).toBeVisible();
  await expect(page.getByTestId('token-charts-panel')).toBeVisible();
  return {
    steps: await page.locator('section[aria-label="Steps"] h2').innerText(),
    counts: await page.getByTestId('run-step-counts').innerText(),
    loops: await loops.innerText(),
    tokens: await page.getByTestId('token-charts-panel').innerText(),
  };
}

test("a run opened after its import is built from the worker's part, with the numbers of one built on the page", async ({ page }, testInfo) => {
  const file = testInfo.outputPath('flat-agent.json');
  writeFileSync(file, generateFlatAgentTrace(SPANS));
  await openStudio(page);
  await openTraceInRunView(page, file);
  await expect.poll(() => builtFromWorker(page)).toBe(true);
  const fromWorker = await numbers(page);
  expect(fromWorker.steps).toMatch(/5,7\d\d/);

  // After a reload the run comes from IndexedDB: no part is expected of the worker, the page builds the whole view.
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 30_000 });
  await page.reload();
  await expect(page.getByTestId('playhead-position')).toBeVisible();
  await expect.poll(() => builtFromWorker(page)).toBe(false);
  expect(await numbers(page)).toEqual(fromWorker);
});
