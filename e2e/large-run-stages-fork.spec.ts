// The Stages view and the Fork tab on a large run never freeze the page (issue 14 goal 2). On a chat log of a million
// messages, the Stages view opened first built the whole run view in one task (1.2–1.7 s) and the Fork tab put an
// option per message in its step list (a task of 7.7 s). Now the Stages view builds the view in slices, as the run
// page does, and a run of more than STEP_OPTIONS_MAX steps is forked at a step picked by its number.
import { expect, test } from '@playwright/test';
import { openGroupChat, watchLongTasks } from './fixtures.ts';

const MESSAGES = 100_000;
/** Over a slice (12 ms of work plus a garbage collection); under what these took at 100k messages. */
const LONG_TASK_MS = 100;

test.use({ viewport: { width: 1280, height: 800 } });

test('a 100k-message run opened first in the Stages view, then forked at a step picked by its number: no long task', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const row = await openGroupChat(page, testInfo.outputPath('big-group-chat.json'), MESSAGES);
  const runId = await row.getAttribute('data-run-id');
  expect(runId).toBeTruthy();

  // The Stages view loaded afresh on the run: no run view built yet (nor ahead: the page is new).
  const stagesTasks = await watchLongTasks(page);
  await page.goto(`/?view=stages&run=${encodeURIComponent(runId!)}`);
  await expect(page.getByTestId('stages-view').getByTestId('playhead-position')).toContainText('100,000', { timeout: 60_000 });
  await expect(page.getByTestId('stages-view')).toContainText('4 agents · 100,000 steps');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('stages-view').getByTestId('playhead-position')).toContainText('step 2 / 100,000');
  expect(await stagesTasks(), 'longest task from loading the Stages view to a step moved').toBeLessThan(LONG_TASK_MS);
  await page.screenshot({ path: testInfo.outputPath('stages-large-run.png') });

  // The Fork tab on the run: the step is picked by its number, and the panel says what that step is.
  const forkTasks = await watchLongTasks(page);
  await page.goto(`/?view=live&tab=fork&forkOf=${encodeURIComponent(runId!)}`);
  const step = page.getByLabel('Fork step');
  await expect(step).toHaveValue('1', { timeout: 60_000 });
  await expect(page.locator('select[aria-label="Fork step"]')).toHaveCount(0);
  await expect(page.getByTestId('fork-step-count')).toHaveText('of 100,000');
  await step.fill('54321');
  await expect(page.getByTestId('fork-step-shown')).toHaveText('#54321 Planner: step 54320: noted item 0');
  await expect(page.getByLabel(/Message at step 54,?321 /)).toHaveValue(/^step 54320: noted item/);
  await expect(page).toHaveURL(/[?&]at=[^&]+/);
  await step.fill('100001');
  await expect(page.getByTestId('fork-step-shown')).toHaveText('a step number from 1 to 100,000');
  await expect(step).toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel(/Message at step/).click();
  await expect(step).toHaveValue('54321');
  expect(await forkTasks(), 'longest task from loading the Fork tab to a step picked').toBeLessThan(LONG_TASK_MS);
  await page.screenshot({ path: testInfo.outputPath('fork-large-run.png') });
});
