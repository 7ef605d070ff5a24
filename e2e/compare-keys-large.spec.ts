// The compare view's playhead on a run of a million steps moves without freezing the page (issue 14 goal 2). Each
// move re-rendered the alignment strip and the token overlay, which worked out their connectors, curves and markers
// from every row again: at a million rows a task of ~150 ms per key press (32 presses: 5.2 s). They are now made once
// per pair; a move redraws the playhead only.
import { expect, test } from '@playwright/test';
import { openGroupChat, watchLongTasks } from './fixtures.ts';

const MESSAGES = 1_000_000;
const LONG_TASK_MS = 100;

test.use({ viewport: { width: 1280, height: 800 } });

test('a 1M-message run compared with itself: moves of the playhead by key, no long task', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  const row = await openGroupChat(page, testInfo.outputPath('million-group-chat.json'), MESSAGES);
  const id = encodeURIComponent((await row.getAttribute('data-run-id'))!);
  await page.goto(`/?view=compare&a=${id}&b=${id}`);
  const position = page.getByTestId('compare-position');
  await expect(position).toContainText('row 1 / 1,000,000', { timeout: 120_000 });
  await expect(page.getByText('1,000,000 matched steps')).toBeVisible();
  // Whatever the build of the comparison left running has ended (its last slices, the overlay's first render).
  await page.waitForTimeout(1000);
  const longest = await watchLongTasks(page);
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
  await expect(position).toContainText('row 11 / 1,000,000');
  await expect(page.getByTestId('overlay-readout')).toContainText('row 11:');
  await page.keyboard.press('End');
  await expect(position).toContainText('row 1,000,000 / 1,000,000');
  await page.keyboard.press('Home');
  await expect(position).toContainText('row 1 / 1,000,000');
  expect(await longest(), 'longest task while the playhead moved by key').toBeLessThan(LONG_TASK_MS);
  // The last row's label ends at the chart's right edge instead of running past it.
  const chart = await page.getByTestId('token-overlay').locator('svg').boundingBox();
  const lastTick = await page.getByTestId('overlay-x-tick').last().boundingBox();
  expect(lastTick!.x + lastTick!.width).toBeLessThanOrEqual(chart!.x + chart!.width);
  await page.screenshot({ path: testInfo.outputPath('compare-million.png') });
});
