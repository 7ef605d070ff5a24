// The corpus view on the bundled simulated corpus (numbers checked against sums taken straight from the sample file)
// and on ≥ 30 real recorded runs. Screenshots go to test-results/corpus/.
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileCard, openStudio, openTraceFiles, sharedTrace, skipWithoutShared } from './fixtures.ts';

const SHOTS = 'test-results/corpus';

interface SampleRun {
  tags: Record<string, string>;
  steps: { usage?: { total: number } }[];
  interventions: { tokens?: { total: number } }[];
}
const corpus = JSON.parse(readFileSync(new URL('../public/samples/simulated-gaia-corpus.session.json', import.meta.url), 'utf8')) as { runs: SampleRun[] };

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const tokensOf = (r: SampleRun) => sum(r.steps.map((s) => s.usage?.total ?? 0));
const overheadOf = (r: SampleRun) => sum(r.interventions.map((i) => i.tokens?.total ?? 0));
const sd = (xs: number[]) => {
  const m = sum(xs) / xs.length;
  return Math.sqrt(sum(xs.map((x) => (x - m) ** 2)) / (xs.length - 1));
};

async function openSamplesCorpus(page: Page) {
  await openStudio(page, '/?samples=1');
  await expect(fileCard(page, 'simulated-gaia-corpus.session.json')).toBeVisible({ timeout: 30_000 });
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Corpus' }).click();
  await expect(page.getByTestId('corpus-page')).toBeVisible();
}

test('simulated corpus: table, filters, charts and numbers that match the sample file', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openSamplesCorpus(page);
  const total = await page.evaluate(() => document.querySelector('[data-testid="corpus-count"]')!.textContent);
  expect(total).toMatch(/^(\d+) of \1 runs/);

  // Only the 60-run corpus: filter to its dataset by grouping on dataset, then back to level with a value filter.
  await page.getByLabel('Group by tag').selectOption('dataset');
  await page.getByLabel('Only this dataset').selectOption('simulated-gaia');
  const inDataset = Number((await page.getByTestId('corpus-count').textContent())!.split(' ')[0]);
  expect(inDataset).toBeGreaterThanOrEqual(60);
  await page.getByLabel('Group by tag').selectOption('level');
  await expect(page).toHaveURL(/group=level/);

  // Sorting by tokens: rows in view come in descending, then ascending order.
  const rowTokens = async () =>
    (await page.getByTestId('corpus-tokens').allTextContents()).map((t) => Number(t.replace(/[^\d]/g, '')));
  const tokensHeader = page.getByRole('columnheader', { name: /Tokens/ }).getByRole('button');
  const desc = await rowTokens();
  expect(desc.length).toBeGreaterThan(5);
  expect(desc).toEqual([...desc].sort((a, b) => b - a));
  await tokensHeader.click();
  const asc = await rowTokens();
  expect(asc).toEqual([...asc].sort((a, b) => a - b));

  // Arm filter.
  await page.getByLabel('Arm').selectOption('supervised');
  await expect(page.getByTestId('corpus-arm').first()).toHaveText('supervised');
  await page.getByLabel('Arm').selectOption('');

  // The violins: three levels of the simulated corpus, each split in two halves.
  const violins = page.getByTestId('violin-chart');
  for (const level of ['1', '2', '3']) await expect(violins.locator(`[data-testid="violin-group"][data-group="${level}"] [data-testid="violin-half"]`)).toHaveCount(2);
  await violins.locator('[data-testid="violin-group"][data-group="2"] [data-testid="violin-half"][data-arm="supervised"]').hover();
  await expect(violins.getByTestId('chart-readout')).toContainText('level 2 · Supervised');
  await expect(violins.getByTestId('chart-readout')).toContainText('median');

  // Numbers of level 2 against the sample file (only its runs are level 2 in dataset simulated-gaia-corpus' file).
  const level2 = corpus.runs.filter((r) => r.tags.level === '2');
  const base = level2.filter((r) => r.tags.arm === 'baseline');
  const sup = level2.filter((r) => r.tags.arm === 'supervised');
  const baseMean = sum(base.map(tokensOf)) / base.length;
  const supNet = sum(sup.map((r) => tokensOf(r) + overheadOf(r))) / sup.length;
  const netChange = ((supNet - baseMean) / baseMean) * 100;
  const fmt = (n: number) => `${n > 0 ? '+' : '−'}${Math.abs(n).toFixed(1)}%`;
  await page.getByLabel('Only this level').selectOption('2');
  await page.getByRole('searchbox', { name: 'Search runs' }).fill('Simulated GAIA-style L');
  const row = page.locator('[data-testid="group-row"][data-group="2"]');
  await expect(row.getByTestId('net-change')).toHaveText(fmt(netChange));
  const stdReduction = (1 - sd(sup.map(tokensOf)) / sd(base.map(tokensOf))) * 100;
  await expect(page.locator('[data-testid="variance-group"][data-group="2"] [data-testid="variance-reduction"]')).toHaveText(
    `${stdReduction >= 0 ? '−' : '+'}${Math.abs(stdReduction).toFixed(1)}%`,
  );
  expect(sup.length + base.length).toBe(20);
  await expect(page.getByTestId('corpus-count')).toContainText(/^20 of/);

  // All levels back for the screenshot and the exports.
  await page.getByLabel('Only this level').selectOption('');
  await expect(page.getByTestId('bubble-chart').getByTestId('bubble')).toHaveCount(6);
  await page.setViewportSize({ width: 1400, height: 2600 });
  await page.getByTestId('corpus-charts').screenshot({ path: `${SHOTS}/charts.png` });
  await page.screenshot({ path: `${SHOTS}/page.png`, fullPage: true });

  // Exports: SVG is an SVG document, PNG a PNG, CSV has the header and one line per group and arm.
  const download = async (name: RegExp) => {
    const [d] = await Promise.all([page.waitForEvent('download'), violins.getByRole('button', { name }).click()]);
    return { name: d.suggestedFilename(), bytes: readFileSync((await d.path())!) };
  };
  const svg = await download(/as SVG/);
  expect(svg.name).toBe('violins-tokens-by-level.svg');
  expect(svg.bytes.toString('utf8')).toMatch(/^<\?xml[\s\S]*<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*Tokens per run \(K = thousand\)/);
  const png = await download(/as PNG/);
  expect(png.bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(png.bytes.length).toBeGreaterThan(10_000);
  const csv = await download(/as CSV/);
  const lines = csv.bytes.toString('utf8').trim().split('\r\n');
  expect(lines[0]).toContain('median_tokens');
  expect(new Set(lines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).size).toBeGreaterThanOrEqual(6);
  expect(errors).toEqual([]);
});

test('two ticked runs open in the compare view', async ({ page }) => {
  await openSamplesCorpus(page);
  const rows = page.getByTestId('corpus-row');
  await rows.nth(0).getByRole('checkbox').check();
  await rows.nth(1).getByRole('checkbox').check();
  const ids = [await rows.nth(0).getAttribute('data-run-id'), await rows.nth(1).getAttribute('data-run-id')];
  await page.getByRole('button', { name: 'Compare 2/2' }).click();
  await expect(page.getByTestId('compare-page')).toBeVisible();
  const url = new URL(page.url());
  expect([url.searchParams.get('a'), url.searchParams.get('b')]).toEqual(ids);
});

test('at least 30 real recorded runs in the corpus table', async ({ page }) => {
  const files = [
    ...['3205fa0cb2135fe671bf7cd0e5a26151', '0ebe673d64647ec44c370638b82d3c78', '41bbc898aa7de0f31d2382ff57700a76', '5e5dc94e090341c564d582f551a0cddb', 'b1f9b9baefa4c69d1d848e35c130e29d'].map((id) => `trail/gaia/${id}.json`),
    ...['1', '2', '3'].map((n) => `who-and-when/hand-crafted/${n}.json`),
    'smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__gaia__2025-08-27.jsonl',
  ];
  skipWithoutShared(...files);
  await openStudio(page);
  await openTraceFiles(page, ...files.map(sharedTrace));
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Corpus' }).click();
  const count = page.getByTestId('corpus-count');
  await expect(count).toBeVisible();
  const n = Number((await count.textContent())!.split(' ')[0].replace(/,/g, ''));
  expect(n).toBeGreaterThanOrEqual(30);
  await expect(count).not.toContainText('simulated');
  // Recorded token counts reach the table: the largest run has tokens.
  const top = Number((await page.getByTestId('corpus-tokens').first().textContent())!.replace(/[^\d]/g, ''));
  expect(top).toBeGreaterThan(0);
  // A Who&When run's tokens are estimated (a tokenizer counted them): its net, which holds them, says so as well.
  const search = page.getByPlaceholder('title, task or id');
  await search.fill('martial arts');
  const estimated = page.getByTestId('corpus-row').first();
  await expect(estimated.getByTestId('corpus-tokens')).toHaveText(/^≈[\d,]+$/);
  await expect(estimated.getByTestId('corpus-net')).toHaveText(/^≈[\d,]+$/);
  await search.fill('');
  await expect(count).toHaveText(new RegExp(`^${n.toLocaleString('en')} of`));
  // Virtualised: far fewer rows in the DOM than runs.
  expect(await page.getByTestId('corpus-row').count()).toBeLessThan(n);
  // Real runs carry no arm tag: all count as baseline, so the charts still draw.
  await expect(page.getByTestId('violin-chart').getByTestId('violin-half').first()).toBeVisible();
  // The spread's ticks carry their unit (…K), and its axis title says what K is rather than scaling them again.
  await expect(page.getByTestId('variance-chart')).toContainText('Std. deviation (tokens, K = thousand)');
  await expect(page.getByTestId('variance-chart')).not.toContainText('thousand tokens');
  // Heavy-tailed real token counts: the log scale re-estimates the density on log10 tokens. (Once the statistics
  // have settled: while the worker recomputes them the chart is redrawn.)
  await expect(page.getByTestId('corpus-charts')).toHaveAttribute('aria-busy', 'false');
  // The chart can still be redrawn once after aria-busy clears (the two-arm data arrive separately), which may swallow
  // the click: check again until the URL carries the scale.
  await expect(async () => {
    await page.getByTestId('violin-chart').getByRole('checkbox', { name: 'log scale' }).check({ timeout: 2_000 });
    await expect(page).toHaveURL(/scale=log/, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expect(page.getByTestId('violin-chart')).toContainText('Gaussian KDE of log10 tokens');
  // A baseline (left) half hugs the centre line: point just inside its right edge, half-way up.
  const half = page.getByTestId('violin-chart').locator('[data-testid="violin-half"][data-arm="baseline"]').first();
  const box = (await half.boundingBox())!;
  await half.hover({ position: { x: box.width - 2, y: box.height / 2 } });
  await expect(page.getByTestId('violin-chart').getByTestId('chart-readout')).toContainText('log10 units');
  await page.screenshot({ path: `${SHOTS}/real-traces.png`, fullPage: true });

  // Shadow-supervised estimates (the supervisor engine replayed offline in the worker) become the supervised arm.
  // Each becomes a derived run of its own in the library. The 63 lines of the GAIA result file hold no steps to supervise
  // (nor tokens: they are left out of the token charts and compared in the result view).
  await expect(page.getByTestId('result-only-note')).toContainText('63 without steps');
  const shadowButton = page.getByRole('button', { name: /^Shadow-supervise \d+ baseline runs$/ });
  const m = n - 63;
  await expect(shadowButton).toHaveText(`Shadow-supervise ${m} baseline runs`);
  await shadowButton.click();
  await expect(page.getByTestId('shadow-note')).toContainText(`${m} shadow-supervised estimates`, { timeout: 45_000 });
  await expect(page.getByRole('button', { name: 'Shadow-supervise 0 baseline runs' })).toBeDisabled();
  const all = page.locator('[data-testid="group-row"][data-group="all"]');
  await expect(all.locator('td').first()).toHaveText(`${m} / ${m}`);
  // TRAIL run b1f9b9ba carries long raw observations (13 purified, −23,943 tokens): the estimate arm is smaller overall.
  await expect(all.getByTestId('net-change')).toHaveText(/^−\d+\.\d%$/);
  await expect(page.getByText('estimate', { exact: true }).first()).toBeVisible();
  await page.setViewportSize({ width: 1400, height: 2600 });
  await page.screenshot({ path: `${SHOTS}/real-traces-shadow.png`, fullPage: true });
  // The derived runs are kept in the library: after a reload they are back without replaying anything.
  const netBefore = await all.getByTestId('net-change').textContent();
  await page.reload();
  await expect(page.getByTestId('shadow-note')).toContainText(`${m} shadow-supervised estimates`);
  await expect(all.locator('td').first()).toHaveText(`${m} / ${m}`);
  await expect(all.getByTestId('net-change')).toHaveText(netBefore!);
  await expect(page.getByRole('button', { name: 'Shadow-supervise 0 baseline runs' })).toBeDisabled();
  // Leaving the estimates out puts the supervised arm back to empty.
  await page.getByRole('checkbox', { name: /include \d+ estimates/ }).uncheck();
  await expect(all.locator('td').first()).toHaveText(`${m} / 0`);
  // The result file compared as a configuration, scored by the benchmark's rule: 63 tasks, 4 exact, 17 contains.
  await page.getByRole('button', { name: 'Result corpora' }).click();
  const group = page.getByTestId('result-group');
  await expect(group).toHaveCount(1);
  await expect(group.getByTestId('result-exact')).toContainText('(4/63, n=63)');
  await expect(group.getByTestId('result-contains')).toContainText('(17/63, n=63)');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: `${SHOTS}/result-corpora.png` });
});

test('a benchmark result line (no steps) shows no tokens in the table, not a measured 0', async ({ page }) => {
  const file = 'smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__math__2025-08-27.jsonl';
  skipWithoutShared(file);
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(file));
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Corpus' }).click();
  const row = page.getByTestId('corpus-row').first();
  await expect(row).toBeVisible();
  const cells = row.getByRole('cell');
  // Steps 0; tokens, overhead and net: a dash that says why.
  await expect(cells.nth(7)).toHaveText('0');
  for (const k of [9, 10, 11]) {
    await expect(cells.nth(k)).toHaveText('—');
    await expect(cells.nth(k)).toHaveAttribute('title', /No steps recorded/);
  }
  // The runs CSV says the same: no token figures for these lines (they read 0 before), their steps 0.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Runs CSV' }).click()]);
  const path = test.info().outputPath('corpus-runs.csv');
  await download.saveAs(path);
  const [header, ...lines] = readFileSync(path, 'utf8').trimEnd().split('\r\n');
  const column = (name: string) => header.split(',').indexOf(name);
  expect(lines.length).toBeGreaterThan(10);
  for (const line of lines) {
    // Questions may hold commas (quoted): read the figures from the end, where no text column comes after them.
    const cellsOf = line.split(',');
    const fromEnd = (name: string) => cellsOf[cellsOf.length - (header.split(',').length - column(name))];
    expect(fromEnd('steps')).toBe('0');
    for (const name of ['tokens', 'tokens_estimated', 'supervisor_overhead_tokens', 'net_tokens']) expect(fromEnd(name), `${name} in ${line.slice(0, 40)}`).toBe('');
  }
});

test('one run in the corpus: the spread chart says it has nothing to measure, with no repeated axis ticks', async ({ page }) => {
  const file = 'smolagents-bus/runs/0c27eeef/messages.jsonl';
  skipWithoutShared(file);
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(file));
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Corpus' }).click();
  const chart = page.getByTestId('variance-chart');
  await expect(chart.getByTestId('variance-empty')).toHaveText(/needs at least two runs with token counts in an arm/);
  // Before, an axis from 0 to 1 token read "0K" five times.
  const ticks = await chart.getByTestId('variance-tick').allTextContents();
  expect(ticks).not.toContain('0K');
  expect(new Set(ticks).size).toBe(ticks.length);
  // Shown variance too: the same note, the same single tick.
  await chart.getByLabel('Spread measure').selectOption('variance');
  await expect(chart.getByTestId('variance-empty')).toBeVisible();
  await expect(chart.getByTestId('variance-tick')).toHaveText(['0']);
});
