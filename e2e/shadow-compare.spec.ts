// Issue 15 end to end, offline (no endpoint configured): a real TRAIL run gets its shadow-supervised estimate as a
// second run, Compare opens with it as B (badge, deltas), the derived run survives a reload, and the corpus shows the
// two arms labelled measured / estimated. A real message-bus run shows its poll tally growing vote by vote.
// Screenshots (1280×800) go to test-results/shadow-compare/.
import { expect, test } from '@playwright/test';
import { openStudio, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';

const SHOTS = 'test-results/shadow-compare';
const TRAIL = 'trail/gaia/b1f9b9baefa4c69d1d848e35c130e29d.json';
const BUS = 'smolagents-bus/runs/023f7ac8/messages.jsonl';

test.use({ viewport: { width: 1280, height: 800 } });

test('a recorded TRAIL run compared with its supervised estimate, offline; kept after a reload; two arms in the corpus', async ({ page }) => {
  skipWithoutShared(TRAIL);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(TRAIL));
  const sourceId = new URL(page.url()).searchParams.get('run')!;

  await page.getByRole('button', { name: 'Compare with supervised (estimate)' }).click();
  await expect(page.getByTestId('compare-page')).toBeVisible({ timeout: 30_000 });
  const url = new URL(page.url());
  expect(url.searchParams.get('a')).toBe(sourceId);
  const derivedId = url.searchParams.get('b')!;
  expect(derivedId).not.toBe(sourceId);

  const header = page.getByTestId('compare-deltas');
  await expect(header.getByTestId('estimate-badge')).toHaveCount(1);
  await expect(header.getByTestId('estimate-badge')).toContainText('estimate');
  await expect(page.getByTestId('compare-estimate-note')).toContainText('LLM-free heuristics');
  // TRAIL runs carry long observations: the purified estimate spends fewer tokens than the recording.
  await expect(page.getByTestId('delta-tokens')).toContainText('−');
  await expect(page.getByTestId('delta-interventions')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/compare.png` });

  // Persisted in the library: a reload brings the pair back.
  await page.reload();
  await expect(page.getByTestId('compare-deltas').getByTestId('estimate-badge')).toBeVisible({ timeout: 20_000 });
  expect(new URL(page.url()).searchParams.get('b')).toBe(derivedId);

  // The library lists the derived run with its badge and source link.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Library' }).click();
  const row = page.locator(`[data-testid="run-row"][data-run-id="${derivedId}"]`);
  await expect(row.getByTestId('estimate-badge')).toBeVisible();

  // Corpus in two arms: baseline measured, estimate estimated, n on each.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Corpus' }).click();
  await page.getByRole('button', { name: 'Recorded runs in two arms' }).click();
  await expect(page).toHaveURL(/mode=arms/);
  await expect(page.getByTestId('arm-baseline')).toContainText('measured');
  await expect(page.getByTestId('arm-baseline')).toContainText('n = 1');
  await expect(page.getByTestId('arm-estimate')).toContainText('estimated');
  await expect(page.getByTestId('arm-estimate')).toContainText('n = 1');
  await expect(page.getByTestId('violin-chart')).toContainText('Baseline · measured');
  await expect(page.getByTestId('violin-chart')).toContainText('Supervised · estimated');
  await expect(page.getByTestId('variance-chart')).toContainText('Supervised · estimated');
  await expect(page.getByTestId('net-saving')).toContainText('n=1');
  await page.screenshot({ path: `${SHOTS}/two-arms.png` });
  await page.getByTestId('two-arm-pair').getByRole('button', { name: 'Compare' }).click();
  await expect(page.getByTestId('compare-deltas').getByTestId('estimate-badge')).toBeVisible();
  expect(errors).toEqual([]);
});

test('a real message-bus run: stepping to a vote shows the poll and its tally so far', async ({ page }) => {
  skipWithoutShared(BUS);
  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(BUS));
  const section = page.getByTestId('bus-section');
  // Step forward until the first vote.
  for (let i = 0; i < 40 && (await page.locator('[data-testid="bus-section"][data-bus-kind="vote"]').count()) === 0; i++) await page.keyboard.press('j');
  await expect(section).toHaveAttribute('data-bus-kind', 'vote');
  await expect(section.getByTestId('bus-vote')).toContainText('votes YES');
  await expect(section.getByTestId('poll-tally-label')).toContainText('1 of 3 votes cast so far');
  await expect(section.getByTestId('poll-tally').getByTestId('tally-count').first()).toHaveText('1 vote');
  await expect(section).toContainText('Should this be our final answer to the user?');
  await page.screenshot({ path: `${SHOTS}/bus-vote.png` });
  // The next vote on the same poll raises its tally.
  for (let i = 0; i < 10; i++) {
    await page.keyboard.press('j');
    if ((await section.getByTestId('poll-tally-label').textContent())?.includes('2 of 3')) break;
  }
  await expect(section.getByTestId('poll-tally').getByTestId('tally-count').first()).toHaveText('2 votes');
  // Vote edges in the graph: voter → proposer, labelled in votes.
  await expect(page.locator('[data-testid="graph"] [data-kind="vote"]').first()).toBeAttached();
});
