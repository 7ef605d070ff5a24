// The loop panel (issue 13) on real traces: TRAIL b1f9b9ba… retries find_archived_url four times in a row (TRAIL's
// annotators label those calls Resource Abuse), and Magentic-One's orchestrator in Who&When hand-crafted/3 asks the
// web surfer to scroll again and again while its own ledger says is_in_loop. The panel lists the repeated work with
// its 1-based step numbers, shows the framework verdicts as evidence badges, and moves the playhead on a click.
import { expect, test } from '@playwright/test';
import { basename } from 'node:path';
import { fileRuns, openStudio, openTraceFiles, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';

const TRAIL = 'trail/gaia/b1f9b9baefa4c69d1d848e35c130e29d.json';
const TRAIL_LABELS = 'trail/annotations/b1f9b9baefa4c69d1d848e35c130e29d.json';
const MAGENTIC = 'who-and-when/hand-crafted/3.json';

test.use({ viewport: { width: 1280, height: 800 } });

test('TRAIL b1f9b9ba: find_archived_url ×4 at steps 18–21 with TRAIL Resource Abuse as evidence; an occurrence moves the playhead', async ({ page }) => {
  skipWithoutShared(TRAIL, TRAIL_LABELS);
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(TRAIL), sharedTrace(TRAIL_LABELS));
  await fileRuns(page, basename(TRAIL)).first().getByRole('button').first().click();
  await expect(page.getByTestId('playhead-position')).toBeVisible();

  const panel = page.getByTestId('loop-panel');
  await expect(panel.getByTestId('loop-panel-count')).toContainText('1 loop (repeated call)');
  await expect(page.getByTestId('loop-count')).toContainText('1 loop (repeated call)');
  const loop = panel.getByTestId('loop-item');
  await expect(loop).toHaveCount(1);
  await expect(loop.getByTestId('loop-label')).toContainText('find_archived_url');
  await expect(loop.getByTestId('loop-label')).toContainText('×4');
  await expect(loop.getByTestId('loop-occurrence')).toHaveText(['18', '19', '20', '21']);
  await expect(loop).toContainText('steps 18–21');
  const evidence = loop.getByTestId('loop-evidence').filter({ hasText: 'Resource Abuse' });
  await expect(evidence).toHaveCount(1);
  await expect(evidence).toContainText('TRAIL');
  await expect(evidence).toHaveAttribute('data-source', 'trail-annotation');

  // Click (and keyboard) on an occurrence: the playhead, the inspector and the step list follow.
  await loop.getByRole('button', { name: 'Go to step 20' }).click();
  await expect(page.getByTestId('playhead-position')).toContainText('step 20 /');
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-position', '19');
  await loop.getByRole('button', { name: 'Go to step 18' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-position', '17');
  await expect(page.locator('[data-testid="step-list"] [aria-current="step"]')).toHaveAttribute('data-position', '17');
  await page.screenshot({ path: 'test-results/loops/trail-b1f9-loop-panel.png' });
});

test('Who&When hand-crafted/3: the scrolling cycle carries the Magentic-One ledger is_in_loop badge', async ({ page }) => {
  skipWithoutShared(MAGENTIC);
  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(MAGENTIC));

  const panel = page.getByTestId('loop-panel');
  const cycle = panel.getByTestId('loop-item').filter({ hasText: 'I scrolled down one page in the browser.' });
  await expect(cycle).toHaveCount(1);
  await expect(cycle).toHaveAttribute('data-kind', 'cycle');
  await expect(cycle).toContainText('Orchestrator ⇄ WebSurfer');
  const ledger = cycle.getByTestId('loop-evidence').filter({ hasText: 'Magentic-One ledger: is_in_loop' });
  await expect(ledger).toHaveCount(1);
  await expect(ledger).toHaveAttribute('data-source', 'magentic-one-ledger');
  // No routing line ("Next speaker WebSurfer") is listed as a loop of its own.
  await expect(panel.getByTestId('loop-label').filter({ hasText: /^“?Next speaker/ })).toHaveCount(0);
  await page.screenshot({ path: 'test-results/loops/who-and-when-3-loop-panel.png' });
});
