// The view of the run a file just brought is built while the Library shows it (ADR 0078): a person who opens it then
// sees it at once, without the "Preparing the run view" screen; the numbers are those of a view built on opening. A
// batch of more than one run prepares none. The run is the generated flat agent trace of bench/open-run at 12,000
// spans (more than LARGE_STEPS rows: a view built on opening shows its progress bar).
import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { fileRuns, openStudio } from './fixtures.ts';

const SPANS = 12_000;

test.use({ viewport: { width: 1280, height: 800 } });

/** The run views built in slices so far: whether each was started ahead of its opening (the User Timing entries). */
function builds(page: Page): Promise<boolean[]> {
  return page.evaluate(() => performance.getEntriesByName('mas-replay:run-view-build').map((e) => ((e as PerformanceMeasure).detail as { ahead?: boolean }).ahead === true));
}

/** Records whether the preparing screen appears from now on. */
async function watchPreparing(page: Page): Promise<() => Promise<boolean>> {
  await page.evaluate(() => {
    const w = window as unknown as { __preparingSeen?: boolean };
    w.__preparingSeen = document.querySelector('[data-testid="run-preparing"]') !== null;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="run-preparing"]')) w.__preparingSeen = true;
    }).observe(document.body, { subtree: true, childList: true });
  });
  return () => page.evaluate(() => (window as unknown as { __preparingSeen?: boolean }).__preparingSeen === true);
}

/** What the view says about the run: the step list's header, the toolbar's counts, the loop panel, the token charts. */
async function numbers(page: Page) {
  await expect(page.getByTestId('loop-panel')).toBeVisible();
  await expect(page.getByTestId('token-charts-panel')).toBeVisible();
  return {
    steps: await page.locator('section[aria-label="Steps"] h2').innerText(),
    counts: await page.getByTestId('run-step-counts').innerText(),
    loops: await page.getByTestId('loop-panel').innerText(),
    tokens: await page.getByTestId('token-charts-panel').innerText(),
  };
}

test('a file of one run: its view is built while the Library lists it, and opens at once with the same numbers', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const file = testInfo.outputPath('one-run.json');
  writeFileSync(file, generateFlatAgentTrace(SPANS));
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = fileRuns(page, 'one-run.json');
  await expect(row).toHaveCount(1, { timeout: 60_000 });
  // Built once, ahead, with nobody on the run view.
  await expect.poll(() => builds(page), { timeout: 60_000 }).toEqual([true]);
  await expect(page.getByTestId('library-page')).toBeVisible();
  const preparing = await watchPreparing(page);
  await row.first().getByRole('button').first().click();
  await expect(page.getByTestId('playhead-position')).toBeVisible();
  expect(await preparing(), 'the preparing screen showed for a view built ahead').toBe(false);
  expect(await builds(page)).toEqual([true]);
  const ahead = await numbers(page);
  expect(ahead.steps).toMatch(/11,\d\d\d/);

  // After a reload the view is built on opening (from IndexedDB; nothing is prepared): the same numbers.
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  await page.reload();
  await expect(page.getByTestId('playhead-position')).toBeVisible({ timeout: 60_000 });
  await expect.poll(() => builds(page)).toEqual([false]);
  expect(await numbers(page)).toEqual(ahead);
});

test('two runs opened together: neither is built ahead, the one opened is built then', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const files = ['first.json', 'second.json'].map((name, i) => {
    const path = testInfo.outputPath(name);
    writeFileSync(path, generateFlatAgentTrace(SPANS + i));
    return path;
  });
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(files);
  await expect(fileRuns(page, 'second.json')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  expect(await builds(page)).toEqual([]);
  const preparing = await watchPreparing(page);
  await fileRuns(page, 'second.json').first().getByRole('button').first().click();
  await expect(page.getByTestId('playhead-position')).toBeVisible({ timeout: 60_000 });
  expect(await preparing()).toBe(true);
  expect(await builds(page)).toEqual([false]);
});
