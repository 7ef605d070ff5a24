// The supervisor offline over a run where it intervenes on every other step: the results come in a flood, the list
// shows a page of 50 cards with a pager whose page is in the address, and the page has no long task. Before ADR 0087,
// every card was drawn again at each kept batch: 20,000 steps (10,000 interventions) froze the page for 2.2 s.
import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { failingSession } from '../bench/gen-failing-session.ts';
import { cliJson, fileRuns, openStudio, watchLongTasks } from './fixtures.ts';

test.use({ viewport: { width: 1280, height: 800 } });

test('an offline pass over 2,400 action steps: 1,200 interventions in pages of 50, the page in the address, no long task', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const file = testInfo.outputPath('failing-steps.json');
  writeFileSync(file, failingSession(2400));
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = fileRuns(page, 'failing-steps.json').first();
  await expect(row).toHaveCount(1, { timeout: 60_000 });
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  const runId = (await row.getAttribute('data-run-id'))!;
  await page.goto(`/?view=engines&run=${encodeURIComponent(runId)}`);
  const button = page.getByRole('button', { name: 'Run supervisor' });
  await expect(button).toBeEnabled();

  const longest = await watchLongTasks(page);
  // A run of more than 2,000 steps: its list is paced while the pass keeps results (usePacedRun).
  await button.click();
  const progress = page.getByTestId('supervisor-progress');
  await expect(progress).toHaveAttribute('data-status', 'complete', { timeout: 90_000 });
  expect(await longest()).toBeLessThan(100);
  // Every intervention the progress counted is in the list: the pass answers once the page has them all. The command
  // line's offline supervisor finds as many on the same file.
  await expect(progress).toContainText('1,200 interventions');
  const cli = await cliJson<{ runs: { triggers: unknown[] }[] }>(['supervise', file, '--offline', '--json']);
  expect(cli.runs[0].triggers).toHaveLength(1200);
  const list = page.getByTestId('intervention-list');
  await expect(list.getByRole('heading', { name: 'Interventions (1,200)' })).toBeVisible();
  const cards = list.getByTestId('intervention-card');
  await expect(cards).toHaveCount(50);
  const pager = page.getByTestId('intervention-pager').first();
  const range = pager.getByTestId('intervention-page-range');
  await expect(range).toHaveText('interventions 1–50 of 1,200');
  await expect(pager.getByRole('button', { name: 'Previous page of interventions' })).toBeDisabled();
  // In run order: the failed steps s1, s3, …; the first page ends at s99.
  await expect(cards.first()).toHaveAttribute('data-step-id', 's1');
  await expect(cards.last()).toHaveAttribute('data-step-id', 's99');

  await pager.getByRole('button', { name: 'Next page of interventions' }).click();
  await expect(range).toHaveText('interventions 51–100 of 1,200');
  await expect(cards.first()).toHaveAttribute('data-step-id', 's101');
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  // A reload (or the link) shows the same page.
  await page.reload();
  await expect(range).toHaveText('interventions 51–100 of 1,200');
  // The pass ended: after the reload its results read as a finished pass's, not as one to resume.
  await expect(page.getByRole('button', { name: 'Run again (reuses results)' })).toBeVisible();
  await expect(cards.first()).toHaveAttribute('data-step-id', 's101');
  await page.screenshot({ path: 'test-results/supervisor/many-page-2.png' });
  // A page past the last (an old link) shows the last one.
  await page.goto(`/?view=engines&run=${encodeURIComponent(runId)}&page=999`);
  await expect(range).toHaveText('interventions 1,151–1,200 of 1,200');
  await expect(cards.last()).toHaveAttribute('data-step-id', 's2399');
  await expect(pager.getByRole('button', { name: 'Next page of interventions' })).toBeDisabled();
  await pager.getByRole('button', { name: 'First page of interventions' }).click();
  await expect(range).toHaveText('interventions 1–50 of 1,200');
  await expect(page).not.toHaveURL(/[?&]page=/);
  // A card opens the run view on its step.
  await cards.nth(2).getByRole('button', { name: /step \d+ →/ }).click();
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-position', '5');
});
