// Rectify-or-reject in the studio: the published 2000-indicator pool opened from ../shared (its embeddings computed
// once through the test server and still cached after a reload), a replay of a real Who&When trace against the test
// server (a message passing after feedback, one pruned, the others passing at once), the round-distribution chart,
// and the pruned message marked in the run view. Offline: retrieval only, labelled. Screenshots: test-results/rectify/.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceFiles, SHARED_TRACES, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const TRACE = 'who-and-when/algorithm-generated/1.json';
const POOL = resolve(SHARED_TRACES, '../indicator-pool/agentdropoutv2-math-pool.json');
const SHOTS = 'test-results/rectify';

test.use({ viewport: { width: 1500, height: 1000 } });
skipWithoutShared(TRACE);
test.skip(!existsSync(POOL), `the indicator pool is absent (${POOL}); rectify e2e skipped`);

async function openRectify(page: Page) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rectify' }).click();
  await expect(page.getByTestId('rectify-page')).toBeVisible();
}

async function openPool(page: Page) {
  await page.getByTestId('pool-file-input').setInputFiles(POOL);
  await expect(page.getByTestId('pool-summary')).toHaveAttribute('data-size', '2000');
}

const FLAW = JSON.stringify({
  evidence_quote: 'the street address column',
  analysis: 'The plan reads the wrong column.',
  suggestion: 'Read the Street Address column and count even house numbers.',
  impact_assessment: 'YES, the count changes.',
  is_flawed: true,
});
const CLEAN = JSON.stringify({ evidence_quote: 'N/A', analysis: 'N/A', suggestion: 'N/A', impact_assessment: 'NO', is_flawed: false });

test('offline: retrieval only over the 2000-indicator pool, labelled, and the pool browser edits the pool', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(TRACE));
  await openRectify(page);
  await openPool(page);
  await expect(page.getByTestId('pool-embeddings')).toHaveAttribute('data-state', 'offline');
  await expect(page.getByTestId('rectify-mode')).toContainText('retrieval only (BM25)');
  await page.getByRole('button', { name: 'Rectify run' }).click();
  await expect(page.getByTestId('rectify-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
  const messages = page.getByTestId('rectify-message');
  await expect(messages).toHaveCount(4);
  for (let i = 0; i < 4; i++) await expect(messages.nth(i)).toHaveAttribute('data-state', 'retrieval-only');
  // The picker counts steps as every view does and says how many of them are audited; messages carry 1-based step numbers.
  await expect(page.getByLabel('Run', { exact: true }).locator('option:checked')).toContainText(/\d+ steps.* · audits 4 agent messages/);
  await expect(messages.first().getByTestId('rectify-step-number')).not.toHaveText('step 0');
  const firstNumber = Number((await messages.first().getByTestId('rectify-step-number').textContent())!.replace(/\D+/g, ''));
  await messages.first().getByRole('button', { name: 'Open in run view' }).click();
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-position', String(firstNumber - 1));
  await page.goBack();
  await expect(messages).toHaveCount(4);
  await expect(messages.first().getByTestId('retrieved-indicators').locator('li')).toHaveCount(5);
  await expect(messages.first()).toContainText('Nothing was audited');
  await expect(page.getByTestId('verdict')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/offline.png`, fullPage: true });

  // Pool browser: search, add, edit, delete.
  await page.getByRole('tab', { name: 'Pool browser' }).click();
  await expect(page.getByTestId('pool-matches')).toHaveAttribute('data-count', '2000');
  await page.getByLabel('Search indicators').fill('square root');
  const found = Number(await page.getByTestId('pool-matches').getAttribute('data-count'));
  expect(found).toBeGreaterThan(0);
  expect(found).toBeLessThan(2000);
  await page.getByLabel('Search indicators').fill('');
  await page.getByRole('button', { name: 'Add indicator' }).click();
  const editor = page.getByTestId('indicator-editor');
  await editor.getByLabel('Name').fill('E2E_UNIT_CHECK');
  await editor.getByLabel('Trigger condition').fill('When the agent converts units in a spreadsheet');
  await editor.getByLabel('Domain tag').fill('E2E');
  await editor.getByRole('button', { name: 'Add' }).click();
  await expect(page.getByTestId('pool-summary')).toHaveAttribute('data-size', '2001');
  await page.getByTestId('pool-browser').screenshot({ path: `${SHOTS}/pool-browser.png` });
  await page.getByLabel('Source').selectOption('manual');
  await expect(page.getByTestId('pool-row')).toHaveCount(1);
  await page.getByTestId('pool-row').getByRole('button').first().click();
  await page.getByTestId('indicator-editor').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('pool-summary')).toHaveAttribute('data-size', '2000');
  expect(problems).toEqual([]);
});

test.describe('against the test server', () => {
  let llm: LlmServer;
  let baseUrl = '';

  test.beforeAll(async () => {
    llm = await startLlmServer();
    baseUrl = llm.baseUrl;
  });
  test.afterAll(() => llm?.stop());

  const log = async () => ((await llm.log()) as unknown as { path: string; body: unknown }[]);

  test('pool embeddings cached across a reload; a Who&When replay with a retried and a pruned message, the chart, and the run view', async ({ page }) => {
    test.setTimeout(120_000);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await llm.reset();
    await llm.script({
      rules: [
        { match: { contains: 'index agent messages' }, content: '{"scenario_keywords": ["spreadsheet counting"], "action_keywords": ["filtering rows"]}' },
        { match: { contains: 'A reviewer checked your last message' }, content: 'REVISED: read the Street Address column and count the even house numbers.' },
        { match: { contains: 'Message to review:\nYou are given' }, times: 1, content: FLAW },
        { match: { contains: 'Agent: BusinessLogic_Expert' }, content: FLAW },
      ],
      fallback: { content: CLEAN },
    });

    await openStudio(page);
    await openTraceFiles(page, sharedTrace(TRACE));
    await openRectify(page);
    await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
    await page.getByLabel('Base URL').fill(baseUrl);
    await page.getByLabel('Supervisor model').fill('test-model');
    await page.getByLabel('Embeddings model').fill('embed-model');
    await page.getByLabel('Retries').fill('0');
    await openPool(page);

    // The 2000 trigger conditions go to /embeddings once, in batches.
    await expect(page.getByTestId('pool-embeddings')).toHaveAttribute('data-state', 'missing');
    await page.getByRole('button', { name: 'Compute embeddings' }).click();
    await expect(page.getByTestId('pool-embeddings')).toHaveAttribute('data-state', 'cached', { timeout: 60_000 });
    const poolBatches = (await log()).filter((e) => e.path === '/v1/embeddings');
    expect(poolBatches.map((e) => (e.body as { input: string[] }).input.length)).toEqual(Array(8).fill(250));
    await page.getByTestId('pool-panel').screenshot({ path: `${SHOTS}/pool-panel.png` });

    // After a reload the pool and its embeddings are still there (IndexedDB), and the replay asks for no pool embedding.
    await page.reload();
    await expect(page.getByTestId('rectify-page')).toBeVisible();
    await expect(page.getByTestId('pool-summary')).toHaveAttribute('data-size', '2000');
    await expect(page.getByTestId('pool-embeddings')).toHaveAttribute('data-state', 'cached');
    await page.getByRole('button', { name: 'Rectify run' }).click();
    await expect(page.getByTestId('rectify-progress')).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    const embeds = (await log()).filter((e) => e.path === '/v1/embeddings');
    // 8 pool batches before the reload, then one query embedding per attempt (2 + 3 + 1 + 1).
    expect(embeds).toHaveLength(8 + 7);
    expect(embeds.slice(8).every((e) => (e.body as { input: string[] }).input.length === 1)).toBe(true);

    const messages = page.getByTestId('rectify-message');
    await expect(messages).toHaveCount(4);
    expect(await messages.evaluateAll((els) => els.map((e) => e.getAttribute('data-state')))).toEqual(['pass@2', 'rejected', 'pass@1', 'pass@1']);
    const retried = messages.nth(0);
    await expect(retried.getByTestId('rectifier-attempt')).toHaveCount(2);
    await expect(retried.getByTestId('rectifier-attempt').first()).toHaveAttribute('data-flawed', 'true');
    await expect(retried.locator('[data-testid="verdict"][data-flawed="true"]')).toHaveCount(1);
    await expect(retried.getByTestId('verdict')).toHaveCount(10);
    await retried.getByTestId('rectifier-feedback').first().locator('summary').click();
    await expect(retried.getByTestId('rectifier-feedback').first()).toContainText('Read the Street Address column');
    await expect(retried).toContainText('15 LLM calls');
    const pruned = messages.nth(1);
    await expect(pruned.getByTestId('rectifier-attempt')).toHaveCount(3);
    await expect(pruned.getByTestId('rectifier-state')).toContainText('rejected (pruned)');
    await expect(pruned).toContainText('23 LLM calls');
    await page.screenshot({ path: `${SHOTS}/rectify-run.png`, fullPage: true });

    // Figure 3 for this dataset: 2 at the 1st attempt, 1 at the 2nd, 1 rejected; Figure 4 has one dataset.
    await page.getByRole('tab', { name: 'Corpus statistics' }).click();
    const chart = page.getByTestId('round-distribution');
    await expect(chart).toBeVisible();
    const segments = await chart.getByTestId('round-segment').evaluateAll((els) => els.map((e) => [e.getAttribute('data-category'), e.getAttribute('data-count')]));
    expect(segments).toEqual([
      ['Pass @ 1st', '2'],
      ['Pass @ 2nd', '1'],
      ['Rejected', '1'],
    ]);
    await expect(page.getByTestId('overlap-cell')).toHaveCount(1);
    await expect(page.getByTestId('overlap-cell')).toHaveAttribute('data-value', '1.0000');
    await page.getByTestId('rectifier-statistics').screenshot({ path: `${SHOTS}/statistics.png` });

    // The run view: the pruned message marked in the step list, the graph and the inspector.
    await page.getByRole('tab', { name: 'Rectify a run' }).click();
    await pruned.getByRole('button', { name: 'Open in run view' }).click();
    await expect(page).toHaveURL(/[?&]step=/);
    await expect(page.getByTestId('step-pruned')).toHaveCount(1);
    await expect(page.getByTestId('step-rectified')).toHaveCount(1);
    await expect(page.getByTestId('graph-pruned-edge')).toHaveCount(1);
    await expect(page.getByTestId('graph-current')).toHaveAttribute('data-pruned', 'true');
    await expect(page.getByTestId('inspector-rectifier')).toContainText('rejected (pruned)');
    await page.screenshot({ path: `${SHOTS}/run-view-pruned.png`, fullPage: true });

    // The Corpus view carries the same charts once some run is rectified.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Corpus' }).click();
    await expect(page.getByTestId('round-distribution').getByTestId('round-segment')).toHaveCount(3);

    // Mining (Algorithm 2) on the same failed run: one candidate per agent message from the teacher, the first is new,
    // the later ones carry the same name and are not added; the pool grows by one.
    const candidate = {
      name: 'E2E_WRONG_COLUMN_FILTER',
      domain_tag: 'Data Analysis',
      detailed_definition: 'This error occurs when the agent filters a table on the wrong column, leading to a wrong count.',
      evaluator_prompt: { trigger_condition: 'When the agent counts rows of a spreadsheet that match a condition.', risk_alert: 'Check the column used.' },
    };
    await llm.script({
      rules: [
        { match: { contains: 'build a library of failure patterns' }, content: JSON.stringify([candidate]) },
        { match: { contains: 'free of duplicates' }, content: '{"is_novel": true, "reason": "no spreadsheet filtering pattern yet", "duplicate_of": null}' },
      ],
    });
    await openRectify(page);
    await page.getByRole('tab', { name: 'Mining' }).click();
    const mining = page.getByTestId('mining-panel');
    await mining.getByRole('checkbox').first().check();
    await mining.getByRole('button', { name: 'Mine 1 run(s)' }).click();
    await expect(mining.getByTestId('mining-result')).toContainText('4 candidates from 1 run(s); 1 new', { timeout: 60_000 });
    await mining.screenshot({ path: `${SHOTS}/mining.png` });
    await mining.getByRole('button', { name: 'Use the pool with 1 new indicator(s)' }).click();
    await expect(page.getByTestId('pool-summary')).toHaveAttribute('data-size', '2001');
    await expect(page.getByTestId('pool-summary')).toContainText('mined 1');
    expect(problems).toEqual([]);
  });
});

test('the zero-shot choice names its indicator in plain words, for the generic domain and for a named one', async ({ page }) => {
  await openStudio(page);
  await openRectify(page);
  // It read "one general generic indicator" and "retried 1 time(s)".
  const zeroShot = page.getByLabel(/^Zero-shot: audit against one general indicator/);
  await expect(zeroShot).toBeVisible();
  await expect(page.getByText('Zero-shot: audit against one general indicator (no pool, no retrieval)')).toBeVisible();
  await expect(page.getByText(/retried 1 time, then dropped/)).toBeVisible();
  await page.getByLabel('Domain').selectOption('math');
  await expect(page.getByText('Zero-shot: audit against one general indicator for math (no pool, no retrieval)')).toBeVisible();
});
