// The engine views on a large run never freeze the page (issue 14 goal 2; ADR 0057). Each view asks its worker for a
// cost estimate as it opens; the run used to go to the worker as one argument, copied inside one postMessage on the
// page's thread: a task of 480–600 ms for this 200k-message group chat (seconds at a million), on every visit and
// every change of a setting. Now its large arrays cross in parts, a few per short task, and stay in the worker while
// they are its latest run. The estimates still equal the command line's over the same file: the run arrived whole.
import { expect, test } from '@playwright/test';
import { cliJson, openGroupChat, watchLongTasks } from './fixtures.ts';

const MESSAGES = 200_000;
/**
 * In CPU time (watchLongTasks): far under the copy's task (400 ms of CPU on the build before the ferry; 480–600 ms of wall
 * time), far over a part's task (≤ 8 ms of copying plus a garbage collection).
 */
const LONG_TASK_MS = 250;


test('Engines and Stages open on a 200k-message run without a long task, with the command line’s estimates', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const file = testInfo.outputPath('big-group-chat.json');
  const row = await openGroupChat(page, file, MESSAGES);
  await row.getByRole('button').first().click();
  await expect(page.getByTestId('playhead-position')).toBeVisible({ timeout: 60_000 });

  // The supervisor's filter finds nothing to send in these short messages (0 calls, here as on the command line); the
  // stages' planner reads the run's text (3 calls, 8,082 tokens), so its estimate shows the run arrived whole.
  const cli = await cliJson<{ estimate: { calls: number; tokens: { total: number } } }>(['supervise', file, '--dry-run', '--json']);
  const views = page.getByRole('navigation', { name: 'Views' });

  let longest = await watchLongTasks(page);
  await views.getByRole('button', { name: 'Engines' }).click();
  const supervisor = page.getByTestId('supervisor-estimate');
  await expect(supervisor).toHaveAttribute('data-status', 'ready', { timeout: 60_000 });
  expect(Number(await supervisor.getAttribute('data-calls'))).toBe(cli.estimate.calls);
  expect(Number(await supervisor.getAttribute('data-tokens'))).toBe(cli.estimate.tokens.total);
  expect(await longest(), 'longest task while Engines opened and estimated').toBeLessThan(LONG_TASK_MS);

  const stagesCli = await cliJson<{ estimate: { calls: number; tokens: { total: number } } }>(['stages', file, '--dry-run', '--json']);
  longest = await watchLongTasks(page);
  await views.getByRole('button', { name: 'Stages' }).click();
  const stages = page.getByTestId('stages-estimate');
  await expect(stages).toHaveAttribute('data-status', 'ready', { timeout: 60_000 });
  expect(stagesCli.estimate.tokens.total).toBeGreaterThan(0);
  expect(Number(await stages.getAttribute('data-calls'))).toBe(stagesCli.estimate.calls);
  expect(Number(await stages.getAttribute('data-tokens'))).toBe(stagesCli.estimate.tokens.total);
  expect(await longest(), 'longest task while Stages opened and estimated').toBeLessThan(LONG_TASK_MS);
});
