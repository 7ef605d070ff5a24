// "Compare with supervised (estimate)" on a large run never freezes the page (issue 14 goal 2; ADRs 0060, 0061). The
// supervisor worker returned the whole derived run (a 1,962 ms task to receive it for 200k messages), the page wrote it
// (828 ms), and Compare worked out both runs and their alignment in one render (~800 ms). Now the worker sends what
// changed and writes the run itself, and Compare builds a large pair a slice at a time, with a progress bar.
import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { fileRuns, groupChat, openStudio, watchLongTasks } from './fixtures.ts';

const MESSAGES = 100_000;
/** Far under the ~1 s tasks this took at 100k messages; far over a slice (12 ms of work plus a garbage collection). */
const LONG_TASK_MS = 250;

test('a 100k-message run compared with its supervised estimate: no long task, both runs whole, kept after a reload', async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  const file = testInfo.outputPath('big-group-chat.json');
  writeFileSync(file, groupChat(MESSAGES));
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = fileRuns(page, 'big-group-chat.json');
  await expect(row).toHaveCount(1, { timeout: 60_000 });
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  await row.first().getByRole('button').first().click();
  await expect(page.getByTestId('playhead-position')).toContainText('100,000', { timeout: 60_000 });

  const longest = await watchLongTasks(page);
  await page.getByRole('button', { name: 'Compare with supervised (estimate)' }).click();
  const deltas = page.getByTestId('compare-deltas');
  await expect(deltas).toBeVisible({ timeout: 60_000 });
  await expect(deltas.getByTestId('estimate-badge')).toHaveCount(1);
  // Both runs whole: every message a step on each side, and every row matched (the estimate changes no action).
  await expect(page.getByTestId('delta-steps')).toContainText('100,000 → 100,000');
  await expect(page.getByTestId('compare-position')).toContainText('row 1 / 100,000');
  await expect(page.getByText('100,000 matched steps')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  expect(await longest(), 'longest task from the click to the comparison shown and saved').toBeLessThan(LONG_TASK_MS);

  // The derived run was written (by the supervisor worker): a reload shows the pair again, built again in slices.
  await page.reload();
  await expect(page.getByTestId('compare-deltas').getByTestId('estimate-badge')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('delta-steps')).toContainText('100,000 → 100,000');
});
