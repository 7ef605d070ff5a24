// Engine costs in the studio (issue 21), against the project's OpenAI-compatible test server, which logs the usage it
// served: the estimate is shown before Run and nothing is sent for it; after the pass the per-run tokens shown equal
// what the server served; the clarifier's "flagged only" gate sends only the edges the LLM-free flagger flags.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { cliJson, openStudio, openTraceFiles, openTraceInRunView, SHARED_TRACES, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const TRAIL = 'trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json';
/** A Who&When log whose flagger flags one of its eight edges. */
const WHO_WHEN = 'who-and-when/hand-crafted/4.json';
/** Four agent messages to audit. */
const RECTIFY_TRACE = 'who-and-when/algorithm-generated/1.json';
const POOL = resolve(SHARED_TRACES, '../indicator-pool/agentdropoutv2-math-pool.json');

test.use({ viewport: { width: 1400, height: 1000 } });

interface Served {
  path: string;
  body?: { model?: string; messages?: { content: string }[]; input?: unknown[] };
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** Chat requests the server answered, and the tokens it served over them. */
function served(entries: Served[]) {
  const chat = entries.filter((e) => e.path.endsWith('/chat/completions'));
  const total = chat.reduce((n, e) => n + (e.usage ? e.usage.prompt_tokens + e.usage.completion_tokens : 0), 0);
  return { chat, total };
}

/** The command line's dry run on the same file: calls the clarifier would make under a gate. */
async function cliClarifierCalls(gate: string): Promise<number> {
  const args = ['clarify', sharedTrace(WHO_WHEN), '--endpoint', 'http://127.0.0.1:9/v1', '--model', 'm', '--gate', gate, '--dry-run', '--json'];
  return (await cliJson<{ estimate: { calls: number } }>(args)).estimate.calls;
}

async function setEndpoint(page: Page, baseUrl: string) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Engines' }).click();
  await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
  await page.getByLabel('Base URL').fill(baseUrl);
  await page.getByLabel('Supervisor model').fill('test-model');
  await page.getByLabel('Clarifier model').fill('clarifier-model');
  await page.getByLabel('Retries').fill('0');
}

test.describe('costs against the test server', () => {
  let llm: LlmServer;

  test.beforeAll(async () => {
    llm = await startLlmServer();
  });
  test.afterAll(() => llm?.stop());

  const log = async () => (await llm.log()) as unknown as Served[];

  test('supervisor: the estimate is shown before Run, nothing is sent for it, and the spent tokens shown equal the served usage', async ({ page }) => {
    skipWithoutShared(TRAIL);
    await llm.reset();
    // No usage in the script: the server counts what it serves and logs it.
    const answer = { content: JSON.stringify({ analysis: 'Scripted.', action: 'approve', parameters: {} }) };
    await llm.script({ fallback: answer });

    await openStudio(page);
    await openTraceInRunView(page, sharedTrace(TRAIL));
    await setEndpoint(page, llm.baseUrl);
    await expect(page.getByTestId('supervisor-mode')).toContainText('endpoint');

    const estimate = page.getByTestId('supervisor-estimate');
    await expect(estimate).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
    const calls = Number(await estimate.getAttribute('data-calls'));
    const tokens = Number(await estimate.getAttribute('data-tokens'));
    expect(calls).toBeGreaterThan(0);
    expect(tokens).toBeGreaterThan(0);
    await expect(estimate).toContainText(`${calls.toLocaleString('en')} call`);
    expect(served(await log()).chat).toHaveLength(0);

    await page.getByRole('button', { name: 'Run supervisor' }).click();
    await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    const { chat, total } = served(await log());
    expect(chat.length).toBeGreaterThan(0);
    const cost = page.getByTestId('supervisor-cost');
    await expect(cost).toHaveAttribute('data-tokens', String(total));
    await expect(cost).toHaveAttribute('data-calls', String(chat.length));
    await expect(cost).toHaveAttribute('data-estimated', 'false');
    await expect(cost).toContainText('usage from the endpoint');
  });

  test('clarifier: "flagged only" sends only the flagged edges, and the gates sit side by side', async ({ page }) => {
    skipWithoutShared(WHO_WHEN);
    // Both dry runs at once, while the page opens: each is a process of its own.
    const dryRuns = Promise.all([cliClarifierCalls('flagged'), cliClarifierCalls('all')]);
    dryRuns.catch(() => undefined); // awaited below; a failure before then is reported there
    await llm.reset();
    await llm.script({ fallback: { content: '{"type":"NONE","to_agent":null,"question":""}' } });

    await openStudio(page);
    await openTraceFiles(page, sharedTrace(WHO_WHEN));
    await setEndpoint(page, llm.baseUrl);
    const [flaggedCalls, allCalls] = await dryRuns;
    expect(flaggedCalls).toBeGreaterThan(0);
    // The dry run assumes three calls per flagged edge (clarifier, addressee, second check).
    const flagged = flaggedCalls / 3;
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Taxonomy' }).click();
    await page.getByRole('tab', { name: 'Edges & labels' }).click();
    const edges = await page.getByTestId('edge-row').count();
    expect(edges).toBeGreaterThan(flagged);

    await page.getByTestId('clarifier-gate').selectOption('flagged');
    const estimate = page.getByTestId('clarifier-estimate');
    await expect(estimate).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
    await expect(estimate).toHaveAttribute('data-calls', String(flaggedCalls));
    expect(served(await log()).chat).toHaveLength(0);

    await page.getByRole('button', { name: 'Run clarifier', exact: true }).click();
    await expect(page.getByTestId('clarifier-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
    let s = served(await log());
    // Every answer is NONE: one call per edge sent, so the calls count the edges that went to the model.
    expect(s.chat).toHaveLength(flagged);
    await expect(page.getByTestId('clarifier-cost')).toHaveAttribute('data-tokens', String(s.total));
    const row = page.locator('[data-testid="clarifier-gate-row"][data-gate="flagged"]');
    await expect(row).toHaveAttribute('data-sent', String(flagged));

    // All edges, from the start: every edge goes to the model; both gate settings stay in the table.
    await page.getByTestId('clarifier-gate').selectOption('all');
    await expect(estimate).toHaveAttribute('data-calls', String(allCalls));
    await page.getByRole('button', { name: 'Start over' }).click();
    await expect(page.getByTestId('clarifier-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
    const before = s;
    s = served(await log());
    expect(s.chat.length - before.chat.length).toBe(edges);
    await expect(page.getByTestId('clarifier-cost')).toHaveAttribute('data-tokens', String(s.total - before.total));
    await expect(page.getByTestId('clarifier-gate-row')).toHaveCount(2);
    await expect(page.locator('[data-testid="clarifier-gate-row"][data-gate="all"]')).toHaveAttribute('data-sent', String(edges));
    const rows = async () =>
      page.getByTestId('clarifier-gate-row').evaluateAll((els) => els.map((e) => [e.getAttribute('data-gate'), e.getAttribute('data-sent'), e.getAttribute('data-extra-pct'), e.textContent]));
    const table = await rows();

    // The table is kept (IndexedDB): after a reload both gate settings are still there, figure for figure.
    await page.reload();
    await expect(page.getByTestId('clarifier-gate-row')).toHaveCount(2, { timeout: 30_000 });
    expect(await rows()).toEqual(table);
  });

  test('rectify: once the pool is embedded, the estimate says the one-time embedding is served from cache and the next pass reports it cached', async ({ page }) => {
    skipWithoutShared(RECTIFY_TRACE);
    test.skip(!existsSync(POOL), `the indicator pool is absent (${POOL})`);
    test.setTimeout(120_000);
    await llm.reset();
    await llm.script({
      rules: [{ match: { contains: 'index agent messages' }, content: '{"scenario_keywords": ["spreadsheet counting"], "action_keywords": ["filtering rows"]}' }],
      fallback: { content: JSON.stringify({ evidence_quote: 'N/A', analysis: 'N/A', suggestion: 'N/A', impact_assessment: 'NO', is_flawed: false }) },
    });
    await openStudio(page);
    await openTraceFiles(page, sharedTrace(RECTIFY_TRACE));
    await setEndpoint(page, llm.baseUrl);
    await page.getByLabel('Embeddings model').fill('embed-model');
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Rectify' }).click();
    await page.getByTestId('pool-file-input').setInputFiles(POOL);
    await expect(page.getByTestId('pool-summary')).toHaveAttribute('data-size', '2000');

    // Before the first pass: the pool's embedding is a one-time cost still to pay.
    const estimate = page.getByTestId('rectify-estimate');
    await expect(estimate).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
    await expect(estimate).toHaveAttribute('data-one-time-cached', 'false');
    expect(Number(await estimate.getAttribute('data-one-time-tokens'))).toBeGreaterThan(0);
    expect(await log()).toHaveLength(0);

    await page.getByRole('button', { name: 'Rectify run' }).click();
    await expect(page.getByTestId('rectify-progress')).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    const poolRequests = (entries: Served[]) => entries.filter((e) => e.path.endsWith('/embeddings') && ((e.body as { input?: unknown[] }).input?.length ?? 0) > 1);
    const first = poolRequests(await log());
    expect(first).toHaveLength(8);
    const poolTokens = first.reduce((n, e) => n + (e.usage?.prompt_tokens ?? 0), 0);
    const cost = page.getByTestId('rectify-cost');
    await expect(cost).toHaveAttribute('data-one-time-cached', 'false');
    await expect(cost).toHaveAttribute('data-one-time-tokens', String(poolTokens));

    // The embeddings are cached now: the estimate's one-time part costs nothing and says why.
    await expect(estimate).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
    await expect(estimate).toHaveAttribute('data-one-time-cached', 'true');
    await expect(estimate).toHaveAttribute('data-one-time-tokens', '0');
    await expect(page.getByTestId('rectify-estimate-one-time')).toContainText('cached, no request');

    // The second pass sends no pool embedding and reports the one-time cost as served from cache.
    const before = (await log()).length;
    await page.getByRole('button', { name: 'Rectify again' }).click();
    await expect(page.getByTestId('rectify-progress')).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    const after = await log();
    expect(after.length).toBeGreaterThan(before);
    expect(poolRequests(after)).toHaveLength(8);
    await expect(cost).toHaveAttribute('data-one-time-cached', 'true');
    await expect(page.getByTestId('rectify-cost-one-time')).toContainText('served from cache, no request');
  });

  test('batch: the supervised arm’s estimate adds its engines’ calls, and the batch spends what the estimate counted', async ({ page }) => {
    await llm.reset();
    await llm.script({
      rules: [{ match: { contains: 'You sit on the link between two agents' }, content: '{"type":"NONE","to_agent":null,"question":""}' }],
      fallback: { content: 'FINAL ANSWER: 7' },
    });
    await openStudio(page);
    await setEndpoint(page, llm.baseUrl);
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Live' }).click();
    await page.getByRole('tab', { name: 'Batch' }).click();
    const tasks = ['2+5', '3+4'].map((q, i) => JSON.stringify({ id: i, question: `What is ${q}?`, answer: '7' })).join('\n');
    await page.getByLabel('Task set (.jsonl)').setInputFiles({ name: 'sums.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(tasks) });
    await expect(page.getByTestId('batch-new')).toContainText('2 tasks read');
    await page.getByLabel('Max turns').fill('2');
    await page.getByLabel('Concurrency').fill('1');
    await page.getByTestId('batch-engines').getByLabel('Edge clarifier').check();
    // Where the card's progress bar sits in the card, and the estimate line's state, at every change of the page
    // from the card's creation on: the estimate arriving must not move what is below it.
    await page.evaluate(() => {
      const seen: { status: string; barTop: number }[] = [];
      (window as unknown as { batchSeen: typeof seen }).batchSeen = seen;
      new MutationObserver(() => {
        const card = document.querySelector('[data-testid="batch-card"]');
        const bar = card?.querySelector('[role="progressbar"]');
        if (!card || !bar) return;
        const status = card.querySelector('[data-testid="batch-estimate"]')?.getAttribute('data-status') ?? 'none';
        const barTop = Math.round(bar.getBoundingClientRect().top - card.getBoundingClientRect().top);
        if (seen.at(-1)?.status !== status || seen.at(-1)?.barTop !== barTop) seen.push({ status, barTop });
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await page.getByRole('button', { name: 'Create batch' }).click();
    const card = page.getByTestId('batch-card').first();
    const arms = card.getByTestId('batch-estimate-arm');
    await expect(arms).toHaveCount(2, { timeout: 30_000 });
    const seen = await page.evaluate(() => (window as unknown as { batchSeen: { status: string; barTop: number }[] }).batchSeen);
    expect(seen.map((s) => s.status)).toEqual(['pending', 'ready']);
    expect(new Set(seen.map((s) => s.barTop)).size, JSON.stringify(seen)).toBe(1);
    const figure = async (arm: string, what: 'calls' | 'tokens') => Number(await card.locator(`[data-testid="batch-estimate-arm"][data-arm="${arm}"]`).getAttribute(`data-${what}`));
    // Two role turns and the decision agent per task; the clarifier checks each role message once.
    const baselineCalls = await figure('baseline', 'calls');
    const supervisedCalls = await figure('supervised', 'calls');
    expect(baselineCalls).toBe(2 * 3);
    expect(supervisedCalls).toBe(2 * (3 + 2));
    expect(await figure('supervised', 'tokens')).toBeGreaterThan(await figure('baseline', 'tokens'));
    await expect(card.getByTestId('batch-estimate')).not.toContainText('not included');
    expect((await log()).filter((e) => e.path.endsWith('/chat/completions'))).toHaveLength(0);

    await card.getByRole('button', { name: 'Start' }).click();
    await expect(card).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    const chat = (await log()).filter((e) => e.path.endsWith('/chat/completions'));
    expect(chat).toHaveLength(baselineCalls + supervisedCalls);
    expect(chat.filter((e) => JSON.stringify(e.body).includes('You sit on the link between two agents'))).toHaveLength(2 * 2);
  });
});
