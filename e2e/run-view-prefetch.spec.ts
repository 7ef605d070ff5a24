// The run view's code loads while a file is being imported (the page is idle while the import worker reads and maps
// it), so that a run opened as soon as it is listed renders at once: loaded only once the library listed the run, its
// chunk was still on the way at such a click, and React showed the view no sooner than 300 ms later (ADR 0024; the
// 100k-span bench's build began 160 ms after the click in some runs, 400 ms in others).
import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { groupChat, openStudio } from './fixtures.ts';


test('the run view’s code is fetched during the import, before the run is listed', async ({ page }, testInfo) => {
  const file = testInfo.outputPath('group-chat.json');
  writeFileSync(file, groupChat(40_000));
  await openStudio(page);
  await expect(page.getByText('The library is empty.')).toBeVisible();
  const fetched = () => page.evaluate(() => performance.getEntriesByType('resource').filter((r) => /\/run-page-[^/]*\.js$/.test(r.name)).map((r) => (r as PerformanceResourceTiming).responseEnd));
  // An empty library asks for nothing ahead.
  expect(await fetched()).toEqual([]);
  // When the run's row first shows.
  await page.evaluate(() => {
    const w = window as unknown as { __rowAt?: number };
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="run-row"]')) {
        w.__rowAt = performance.now();
        observer.disconnect();
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
  await page.getByTestId('open-file-input').setInputFiles(file);
  await expect(page.getByTestId('run-row')).toHaveCount(1, { timeout: 60_000 });
  const rowAt = (await page.evaluate(() => (window as unknown as { __rowAt?: number }).__rowAt)) as number;
  const loaded = await fetched();
  expect(loaded.length).toBe(1);
  expect(loaded[0]).toBeLessThan(rowAt);
  // Opened at once: the run view shows without a wait for its code.
  await page.getByTestId('run-row').first().getByRole('button').first().click();
  await expect(page.getByTestId('playhead-position')).toBeVisible();
});
