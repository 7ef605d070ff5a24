// The compare view: deep link, one playhead for both runs, alignment modes, intervention markers, deltas checked
// against sums taken straight from the sample file; then two real Magentic-One runs. Screenshots: test-results/compare/.
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openStudio, openTraceFiles, sharedTrace, skipWithoutShared } from './fixtures.ts';

const SHOTS = 'test-results/compare';
const SHOWCASE = fileURLToPath(new URL('../public/samples/simulated-gaia-showcase.session.json', import.meta.url));

interface SampleRun {
  id: string;
  steps: { kind: string; parentStepId?: string; usage?: { total: number } }[];
  interventions: unknown[];
}
const showcase = JSON.parse(readFileSync(SHOWCASE, 'utf8')) as { runs: SampleRun[] };
const [baseline, supervised] = ['sim-gaia-showcase-baseline', 'sim-gaia-showcase-supervised'].map((id) => showcase.runs.find((r) => r.id === id)!);
const tokensOf = (r: SampleRun) => r.steps.reduce((a, s) => a + (s.usage?.total ?? 0), 0);
/** Rows of the step list (the one step model): steps not nested in another — the planning step, the action steps, the final answer. */
const rowSteps = (r: SampleRun) => r.steps.filter((s) => s.parentStepId === undefined).length;

/** Open files and wait until the library has written them to IndexedDB, so a reload or a deep link finds them. */
async function openAndSave(page: Page, ...paths: string[]) {
  await openStudio(page);
  const status = page.getByTestId('persistence-status');
  const before = Number(await status.getAttribute('data-writes'));
  await openTraceFiles(page, ...paths);
  await expect(async () => expect(Number(await status.getAttribute('data-writes'))).toBeGreaterThan(before)).toPass();
  await expect(status).toHaveAttribute('data-status', 'saved');
}

test('deep link opens both runs at one playhead; keys, clicks and modes move it', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openAndSave(page, SHOWCASE);
  await page.goto(`/?view=compare&a=${baseline.id}&b=${supervised.id}&step=4`);
  await expect(page.getByTestId('compare-page')).toBeVisible();

  // Deltas against the file: tokens and steps (rows of the step list).
  const [ta, tb] = [tokensOf(baseline), tokensOf(supervised)];
  const fmt = (n: number) => n.toLocaleString('en');
  const d = tb - ta;
  await expect(page.getByTestId('delta-tokens')).toContainText(`${fmt(ta)} → ${fmt(tb)} ${d < 0 ? '−' : '+'}${fmt(Math.abs(d))} (${d < 0 ? '−' : '+'}${Math.abs((d / ta) * 100).toFixed(1)}%)`);
  await expect(page.getByTestId('delta-steps')).toContainText(`${rowSteps(baseline)} → ${rowSteps(supervised)}`);
  await expect(page.getByTestId('delta-interventions')).toContainText(`0 → ${supervised.interventions.length}`);

  // One playhead: row 4 of the alignment; both sides show the step of that row.
  const position = page.getByTestId('compare-position');
  await expect(position).toContainText('row 4 /');
  await expect(page.locator('[data-testid="aligned-row"][aria-selected="true"]')).toHaveCount(1);
  await page.keyboard.press('ArrowRight');
  await expect(page).toHaveURL(/step=5/);
  await expect(position).toContainText('row 5 /');
  await page.getByRole('button', { name: 'Last row' }).click();
  const rows = Number((await position.textContent())!.match(/row (\d+) \/ (\d+)/)![2]);
  await expect(position).toContainText(`row ${rows} / ${rows}`);

  // LCS alignment: matched steps joined by connectors; the supervised run's interventions are marked on its curve.
  expect(await page.locator('[data-testid="aligned-row"][data-matched="true"]').count()).toBeGreaterThan(0);
  expect(await page.getByTestId('connector').count()).toBeGreaterThan(3);
  expect(await page.getByTestId('intervention-marker').count()).toBeGreaterThan(0);

  // Click a row of the list: the playhead follows, and the diff shows both steps.
  await page.getByTestId('aligned-row').nth(2).click();
  await expect(page).toHaveURL(/step=3(&|$)/);
  await expect(page.getByTestId('step-a')).toContainText('step');
  await expect(page.getByTestId('step-b')).toContainText('step');
  await page.setViewportSize({ width: 1400, height: 1800 });
  await page.screenshot({ path: `${SHOTS}/showcase-lcs.png`, fullPage: true });

  // Find the first row with an intervention on B and show its diff.
  const withIntervention = page.locator('[data-testid="aligned-row"]', { hasText: '▼' }).first();
  await withIntervention.click();
  await expect(page.getByTestId('step-b').getByTestId('intervention').first()).toBeVisible();
  await page.getByTestId('step-diff').screenshot({ path: `${SHOTS}/intervention-diff.png` });

  // By index: rows = the longer run's step count.
  await page.getByLabel('Alignment mode').selectOption('index');
  await expect(page).toHaveURL(/align=index/);
  await expect(position).toContainText(`/ ${Math.max(rowSteps(baseline), rowSteps(supervised))} `);
  expect(errors).toEqual([]);
});

test('a link naming a run the library lacks says so', async ({ page }) => {
  await openAndSave(page, SHOWCASE);
  await page.goto(`/?view=compare&a=${baseline.id}&b=no-such-run`);
  await expect(page.getByRole('alert')).toContainText('no-such-run');
  // The picker offers the other arm of the same task.
  await page.goto(`/?view=compare&a=${baseline.id}`);
  await page.getByRole('button', { name: /Compare with its supervised run/ }).click();
  await expect(page).toHaveURL(new RegExp(`b=${supervised.id}`));
});

test('two real Magentic-One runs side by side', async ({ page }) => {
  const files = ['who-and-when/hand-crafted/1.json', 'who-and-when/hand-crafted/2.json'];
  skipWithoutShared(...files);
  await openStudio(page);
  await openTraceFiles(page, ...files.map(sharedTrace));
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Compare' }).click();
  await page.getByLabel('Run A').selectOption({ index: 1 });
  await page.getByLabel('Run B').selectOption({ index: 2 });
  await expect(page.getByTestId('compare-deltas')).toBeVisible();
  // Who&When records no usage: both runs' tokens are tokenizer counts, and the headline figures say so (≈), as the
  // Library and the run view do.
  for (const id of ['delta-tokens', 'delta-net']) await expect(page.getByTestId(id)).toContainText(/^(Tokens|Tokens \+ overhead).*≈[\d,]+ → ≈[\d,]+ /i);
  // Chat turns align by speaker: two Magentic-One runs share the orchestrator's turns at least.
  expect(await page.locator('[data-testid="aligned-row"][data-matched="true"]').count()).toBeGreaterThan(0);
  await page.keyboard.press('End');
  await expect(page.getByTestId('compare-position')).toContainText(/row (\d+) \/ \1 /);
  await page.setViewportSize({ width: 1400, height: 1800 });
  await page.screenshot({ path: `${SHOTS}/magentic-one.png`, fullPage: true });
});

/** Two shared traces opened and compared, A and B as the pickers list them, at a viewport of that size: the token chart. */
async function comparedChart(page: Page, files: string[], width: number, height: number) {
  skipWithoutShared(...files);
  await page.setViewportSize({ width, height });
  await openStudio(page);
  await openTraceFiles(page, ...files.map(sharedTrace));
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Compare' }).click();
  await page.getByLabel('Run A').selectOption({ index: 1 });
  await page.getByLabel('Run B').selectOption({ index: 2 });
  return page.getByTestId('token-overlay');
}

test('two real TRAIL runs: the token chart’s axis labels stay clear of its axis title', async ({ page }) => {
  const overlay = await comparedChart(page, ['trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json', 'trail/gaia/b1f9b9baefa4c69d1d848e35c130e29d.json'], 1280, 800);
  await expect(overlay.getByTestId('overlay-y-tick').first()).toBeVisible();
  // Six-digit totals (over 100,000 tokens each): the labels read as 200k, not 200,000 running into the title.
  await expect(overlay.getByTestId('overlay-y-tick').last()).toHaveText(/^\d+(\.\d)?[kM]$/);
  const title = (await overlay.getByTestId('overlay-y-title').boundingBox())!;
  for (const tick of await overlay.getByTestId('overlay-y-tick').all()) {
    const box = (await tick.boundingBox())!;
    expect(box.x, `${await tick.textContent()} starts right of the title`).toBeGreaterThan(title.x + title.width);
  }
});

test('two real Who&When runs at 1920×1080: the token chart fills its panel with text at its own size, and its legend draws B dashed as its curve', async ({ page }) => {
  const overlay = await comparedChart(page, ['who-and-when/hand-crafted/1.json', 'who-and-when/hand-crafted/2.json'], 1920, 1080);
  await expect(overlay.getByTestId('overlay-x-tick').first()).toBeVisible();
  const panel = (await overlay.boundingBox())!;
  const chart = (await overlay.locator('svg').boundingBox())!;
  // Drawn to its panel's width (a 1,100 px cap left ~300 px of this panel empty), the last x label inside it.
  expect(chart.width).toBeGreaterThan(panel.width - 4);
  const lastTick = (await overlay.getByTestId('overlay-x-tick').last().boundingBox())!;
  expect(lastTick.x + lastTick.width).toBeLessThanOrEqual(chart.x + chart.width);
  // Its labels are 11 px on the screen whatever the width (a scaled viewBox grew them with the page).
  const tick = (await overlay.getByTestId('overlay-y-tick').first().boundingBox())!;
  expect(tick.height).toBeLessThan(16);
  expect(await overlay.getByTestId('overlay-legend-b').evaluate((e) => getComputedStyle(e).borderTopStyle)).toBe('dashed');
});
