// Views on a large run never freeze the page (issue 14 goal 2; ADRs 0060–0062). "Compare with supervised (estimate)":
// the supervisor worker returned the whole derived run (a 1,962 ms task to receive it for 200k messages), the page
// wrote it (828 ms), and Compare worked out both runs and their alignment in one render (~800 ms). The taxonomy's edge
// list worked out every edge in one render (790 ms), and again at each label saved (596 ms). Now the worker sends what
// changed and writes the run itself, Compare and the edge list build a large run's rows a slice at a time, with a
// progress bar, and a label saved lists the edges again from what is known.
import { expect, test } from '@playwright/test';
import { openGroupChat, watchLongTasks } from './fixtures.ts';

const MESSAGES = 100_000;
/** Far under the ~0.3–1 s tasks these took at 100k messages; far over a slice (12 ms of work plus a garbage collection). */
const LONG_TASK_MS = 250;

test('a 100k-message run compared with its supervised estimate, then its edges labelled: no long task, kept after a reload', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const row = await openGroupChat(page, testInfo.outputPath('big-group-chat.json'), MESSAGES);
  await row.getByRole('button').first().click();
  await expect(page.getByTestId('playhead-position')).toContainText('100,000', { timeout: 60_000 });
  // Counts with thousands separators in the inspector too (it read "Step 1 of 100000").
  await expect(page.getByTestId('inspector')).toContainText('Step 1 of 100,000');

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

  // The taxonomy's edges (of the run the picker opens on: both have 99,999): listed in slices, then a label saved
  // without working them all out again.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Taxonomy' }).click();
  await expect(page.getByTestId('taxonomy-page')).toBeVisible();
  const afterCompare = await watchLongTasks(page);
  await page.getByRole('tab', { name: 'Edges & labels' }).click();
  await expect(page.getByTestId('edge-list')).toContainText(`Edges (${(MESSAGES - 1).toLocaleString('en')})`, { timeout: 60_000 });
  const edge = page.getByTestId('edge-row').first();
  await edge.click();
  const form = page.getByTestId('label-form');
  await form.getByRole('radio', { name: /^RD/ }).click();
  await form.getByRole('button', { name: 'Save label' }).click();
  await expect(page.getByTestId('saved-label')).toContainText('Saved: RD');
  await expect(page.getByTestId('edge-row').and(page.locator('[aria-current="true"]'))).toContainText('you:');
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  expect(await afterCompare(), 'longest task while the edges were listed and one was labelled').toBeLessThan(LONG_TASK_MS);
});
