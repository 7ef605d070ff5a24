// Engine costs in the studio (issue 21), against the project's OpenAI-compatible test server, which logs the usage it
// served: the estimate is shown before Run and nothing is sent for it; after the pass the per-run tokens shown equal
// what the server served; the clarifier's "flagged only" gate sends only the edges the LLM-free flagger flags.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceFiles, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const ROOT = resolve(import.meta.dirname, '..');
const TSX = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs');
const TRAIL = 'trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json';
/** A Who&When log whose flagger flags one of its eight edges. */
const WHO_WHEN = 'who-and-when/hand-crafted/4.json';

test.use({ viewport: { width: 1400, height: 1000 } });

interface Served {
  path: string;
  body?: { model?: string; messages?: { content: string }[] };
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** Chat requests the server answered, and the tokens it served over them. */
function served(entries: Served[]) {
  const chat = entries.filter((e) => e.path.endsWith('/chat/completions'));
  const total = chat.reduce((n, e) => n + (e.usage ? e.usage.prompt_tokens + e.usage.completion_tokens : 0), 0);
  return { chat, total };
}

/** The command line's dry run on the same file: calls the clarifier would make under a gate. */
function cliClarifierCalls(gate: string): number {
  const out = execFileSync(process.execPath, [TSX, 'src/cli/main.ts', 'clarify', sharedTrace(WHO_WHEN), '--endpoint', 'http://127.0.0.1:9/v1', '--model', 'm', '--gate', gate, '--dry-run', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return (JSON.parse(out) as { estimate: { calls: number } }).estimate.calls;
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
    const flaggedCalls = cliClarifierCalls('flagged');
    expect(flaggedCalls).toBeGreaterThan(0);
    // The dry run assumes three calls per flagged edge (clarifier, addressee, second check).
    const flagged = flaggedCalls / 3;
    await llm.reset();
    await llm.script({ fallback: { content: '{"type":"NONE","to_agent":null,"question":""}' } });

    await openStudio(page);
    await openTraceFiles(page, sharedTrace(WHO_WHEN));
    await setEndpoint(page, llm.baseUrl);
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
    await expect(estimate).toHaveAttribute('data-calls', String(cliClarifierCalls('all')));
    await page.getByRole('button', { name: 'Start over' }).click();
    await expect(page.getByTestId('clarifier-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
    const before = s;
    s = served(await log());
    expect(s.chat.length - before.chat.length).toBe(edges);
    await expect(page.getByTestId('clarifier-cost')).toHaveAttribute('data-tokens', String(s.total - before.total));
    await expect(page.getByTestId('clarifier-gate-row')).toHaveCount(2);
    await expect(page.locator('[data-testid="clarifier-gate-row"][data-gate="all"]')).toHaveAttribute('data-sent', String(edges));
  });
});
