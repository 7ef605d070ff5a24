// The runtime supervisor in the studio: on a real TRAIL GAIA trace, offline (heuristics) and against the project's
// OpenAI-compatible test server (scripted decisions with usage, one failing call, resume). Checks the interventions
// reach the run view's lane and survive a reload, the cards show the exchange and the observation diff, and the
// overhead equals the scripted usage. Screenshots go to test-results/supervisor/.
import { expect, test, type Page } from '@playwright/test';
import { cliJson, openStudio, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const TRACE = 'trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json';
const SHOTS = 'test-results/supervisor';

test.use({ viewport: { width: 1500, height: 1000 } });
skipWithoutShared(TRACE);

interface CliTrigger {
  agent: string;
  step: number | null;
  context: string;
  action: string;
}

/**
 * What the command line's offline supervisor finds on the same file: the panel must agree with it. Started before the
 * page opens and awaited once the trace is open (a rejection is reported there).
 */
function cliTriggers(): Promise<CliTrigger[]> {
  const triggers = cliJson<{ runs: { triggers: CliTrigger[] }[] }>(['supervise', sharedTrace(TRACE), '--offline', '--json']).then((out) => out.runs[0].triggers);
  triggers.catch(() => undefined);
  return triggers;
}

async function openEngines(page: Page) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Engines' }).click();
  await expect(page.getByTestId('engines-page')).toBeVisible();
}

const lane = (page: Page) => page.getByTestId('timeline-panel').getByText(/^interventions \(\d+\)$/);

test('offline: heuristic interventions on a real TRAIL trace reach the run view, show a diff, and survive a reload', async ({ page }) => {
  const triggers = cliTriggers();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));

  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(TRACE));
  const expected = await triggers;
  expect(expected.length).toBeGreaterThan(0);
  await expect(lane(page)).toHaveText('interventions (0)');
  const runId = new URL(page.url()).searchParams.get('run')!;

  await openEngines(page);
  await expect(page.getByTestId('supervisor-mode')).toContainText('Offline');
  await expect(page.getByLabel('Run', { exact: true })).toHaveValue(runId);
  await page.getByRole('button', { name: 'Run supervisor' }).click();
  await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });

  const cards = page.getByTestId('intervention-card');
  await expect(cards).toHaveCount(expected.length);
  // Same agents, steps, contexts and actions as the command line, in step order.
  for (const [i, t] of expected.entries()) {
    const card = cards.nth(i);
    await expect(card.getByRole('button').first()).toHaveText(`${t.agent} · step ${t.step} →`);
    await expect(card).toContainText(t.action.replace(/_/g, ' '));
    await expect(card.getByText('heuristic', { exact: true })).toBeVisible();
  }
  // Offline spends nothing; the figures are labelled as estimates.
  await expect(page.getByTestId('summary-overhead')).toHaveAttribute('data-value', '0');
  await expect(page.getByTestId('token-summary')).toContainText('Tokens (estimate)');
  const baseline = Number(await page.getByTestId('summary-baseline').getAttribute('data-value'));
  expect(baseline).toBeGreaterThan(0);

  // A sub-agent's report, purified: the diff shows what was removed and what was kept, as text.
  const purified = cards.filter({ hasText: 'sub-agent completion' }).first();
  const diff = purified.getByTestId('observation-diff');
  await expect(diff).toBeVisible();
  await expect(diff.locator('[data-diff="same"]').first()).toBeAttached();
  expect(await diff.locator('[data-diff="removed"], [data-diff="added"]').count()).toBeGreaterThan(0);
  await page.screenshot({ path: `${SHOTS}/offline-engines.png`, fullPage: true });
  await purified.screenshot({ path: `${SHOTS}/offline-card.png` });

  // The card's title moves the run view's playhead to its step; the lane shows every intervention.
  const stepId = await purified.getAttribute('data-step-id');
  await purified.getByRole('button').first().click();
  await expect(page.getByTestId('run-view')).toBeVisible();
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-step-id', stepId!);
  await expect(lane(page)).toHaveText(`interventions (${expected.length})`);
  // The step inspector shows the same intervention with its raw vs purified observation.
  const inInspector = page.getByTestId('inspector').getByTestId('inspector-intervention');
  await expect(inInspector).toHaveCount(1);
  await expect(inInspector).toContainText('subagent_completion');
  await expect(inInspector.getByTestId('observation-diff').locator('[data-diff="removed"]').first()).toBeAttached();
  await page.screenshot({ path: `${SHOTS}/offline-run-view.png` });
  await inInspector.scrollIntoViewIfNeeded();
  await inInspector.screenshot({ path: `${SHOTS}/offline-inspector-intervention.png` });

  // Written into the run as they arrived, so the stored library has them after a reload.
  // Saved: the library's write of the change has committed (a change sets it to saving at once; ADR 0025's status).
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved');
  await page.reload();
  await expect(lane(page)).toHaveText(`interventions (${expected.length})`);

  // Parameters reach the filter: with the trace's tool failure listed as non-critical, no error context is left.
  await openEngines(page);
  await page.getByLabel('Known non-critical tool errors').fill('AgentExecutionError');
  await page.getByRole('button', { name: 'Start over' }).click();
  await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
  const errorsExpected = expected.filter((t) => t.context === 'error').length;
  expect(errorsExpected).toBeGreaterThan(0);
  await expect(cards).toHaveCount(expected.length - errorsExpected);
  await expect(page.getByTestId('intervention-list').getByText('error', { exact: true })).toHaveCount(0);
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

  const serverLog = async () => ((await llm.log()) as unknown as { path: string; authorization?: string }[]);

  test('LLM decisions: exchange in the cards, overhead equal to the scripted usage, a failed call kept apart and resumed', async ({ page }) => {
    const triggers = cliTriggers();
    const USAGE = { prompt_tokens: 300, completion_tokens: 45 };
    const answer = {
      content: JSON.stringify({
        analysis: 'Scripted analysis from the test model.',
        action: 'correct_observation',
        parameters: { new_observation: 'Scripted corrected observation: the file could not be read; read it with inspect_file_as_text instead.' },
      }),
      usage: USAGE,
    };
    await llm.reset();
    // Two good answers, then a server error (retries are set to 0 below), then good answers for the rest.
    await llm.script({ queue: [answer, answer, { status: 500 }], fallback: answer });

    await openStudio(page);
    await openTraceInRunView(page, sharedTrace(TRACE));
    const expected = await triggers;
    await openEngines(page);

    await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
    await page.getByLabel('Base URL').fill(baseUrl);
    await page.getByLabel('Supervisor model').fill('test-model');
    await page.getByLabel('API key').fill('sk-e2e-secret');
    await page.getByLabel('Retries').fill('0');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByTestId('connection-result')).toContainText('Connected (GET /models');
    await expect(page.getByTestId('connection-result')).toContainText('test-model');
    await expect(page.getByTestId('supervisor-mode')).toContainText('“test-model”');
    await page.getByTestId('endpoint-settings').screenshot({ path: `${SHOTS}/endpoint-settings.png` });

    await page.getByRole('button', { name: 'Run supervisor' }).click();
    await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'failed', { timeout: 30_000 });
    await expect(page.getByRole('alert').filter({ hasText: 'Supervisor call failed' })).toContainText('HTTP 500');
    await expect(page.getByTestId('intervention-card')).toHaveCount(2);
    await expect(page.getByTestId('tokens-spent')).toHaveText(String(2 * (USAGE.prompt_tokens + USAGE.completion_tokens)));
    await page.screenshot({ path: `${SHOTS}/endpoint-failed.png`, fullPage: true });

    await page.getByRole('button', { name: /^Resume/ }).click();
    await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
    const cards = page.getByTestId('intervention-card');
    await expect(cards).toHaveCount(expected.length);
    const perCall = USAGE.prompt_tokens + USAGE.completion_tokens;
    await expect(page.getByTestId('summary-overhead')).toHaveAttribute('data-value', String(expected.length * perCall));
    await expect(page.getByTestId('summary-overhead')).toContainText('usage reported by the endpoint');
    await expect(page.getByTestId('tokens-spent')).toHaveText((expected.length * perCall).toLocaleString('en'));

    // The supervisor's exchange: its prompt and the scripted answer, with the reported usage.
    const first = cards.first();
    await expect(first.getByText('LLM', { exact: true })).toBeVisible();
    await first.getByText(/Supervisor’s LLM exchange/).click();
    const exchange = first.getByTestId('llm-exchange');
    await expect(exchange).toContainText('test-model · 300 in + 45 out tokens');
    await expect(exchange).toContainText('Scripted analysis from the test model.');
    await expect(exchange).toContainText('system');
    await expect(first).toContainText('Analysis: Scripted analysis from the test model.');
    await expect(first.getByTestId('observation-diff').locator('[data-diff="added"]').first()).toContainText('Scripted corrected observation');
    await first.screenshot({ path: `${SHOTS}/endpoint-card.png` });
    await page.screenshot({ path: `${SHOTS}/endpoint-engines.png`, fullPage: true });

    // The key went to the endpoint as a bearer token, and nowhere into storage (not opted in).
    const log = await serverLog();
    const chats = log.filter((e) => e.path === '/v1/chat/completions');
    expect(chats.length).toBe(expected.length + 1);
    expect(chats.every((e) => e.authorization === 'Bearer sk-e2e-secret')).toBe(true);
    const stored = await page.evaluate(() => JSON.stringify(Object.entries(localStorage)));
    expect(stored).toContain(baseUrl);
    expect(stored).not.toContain('sk-e2e-secret');

    // The session replays offline exactly: every call answered from the recording, the same decisions, no request.
    const replayCheck = page.getByTestId('replay-check');
    await expect(replayCheck).toContainText(`${expected.length} recorded supervisor calls (model “test-model”)`);
    await replayCheck.getByRole('button', { name: 'Replay recorded calls' }).click();
    const result = page.getByTestId('replay-result');
    await expect(result).toContainText(`Reproduced exactly: ${expected.length} decisions as recorded, ${expected.length} calls answered from the recording, none sent.`);
    await expect(result).toHaveAttribute('data-different', '0');
    await replayCheck.screenshot({ path: `${SHOTS}/replay-check.png` });
    expect((await serverLog()).filter((e) => e.path === '/v1/chat/completions')).toHaveLength(chats.length);
  });

  test('pause keeps what is done and resume finishes it; cancel keeps what is done too', async ({ page }) => {
    const triggers = cliTriggers();
    const USAGE = { prompt_tokens: 100, completion_tokens: 10 };
    const decision = JSON.stringify({ analysis: 'slow answer', action: 'correct_observation', parameters: { new_observation: 'Corrected.' } });
    await llm.reset();
    await llm.script({ fallback: { content: decision, usage: USAGE, delayMs: 600 } });

    await openStudio(page);
    await openTraceInRunView(page, sharedTrace(TRACE));
    const expected = await triggers;
    expect(expected.length).toBeGreaterThan(2);
    await openEngines(page);
    await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
    await page.getByLabel('Base URL').fill(baseUrl);
    await page.getByLabel('Supervisor model').fill('test-model');

    await page.getByRole('button', { name: 'Run supervisor' }).click();
    const cards = page.getByTestId('intervention-card');
    await expect(cards).toHaveCount(1, { timeout: 10_000 });
    await page.getByRole('button', { name: 'Pause' }).click();
    const progress = page.getByTestId('supervisor-progress');
    await expect(progress).toHaveAttribute('data-status', 'paused');
    const kept = await cards.count();
    expect(kept).toBeGreaterThanOrEqual(1);
    expect(kept).toBeLessThan(expected.length);
    await expect(page.getByRole('status').filter({ hasText: 'Paused' })).toContainText(`${kept} intervention${kept === 1 ? '' : 's'} kept in the run`);
    await page.screenshot({ path: `${SHOTS}/paused.png` });

    // Resume asks only about the steps not yet done.
    const before = (await serverLog()).filter((e) => e.path === '/v1/chat/completions').length;
    await llm.script({ fallback: { content: decision, usage: USAGE } });
    await page.getByRole('button', { name: /^Resume/ }).click();
    await expect(progress).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
    await expect(cards).toHaveCount(expected.length);
    const after = (await serverLog()).filter((e) => e.path === '/v1/chat/completions').length;
    expect(after - before).toBe(expected.length - kept);
    await expect(page.getByTestId('summary-overhead')).toHaveAttribute('data-value', String(expected.length * (USAGE.prompt_tokens + USAGE.completion_tokens)));

    // Start over, then cancel: what was decided before the cancel stays in the run, and on the run view's lane.
    await llm.script({ fallback: { content: decision, usage: USAGE, delayMs: 600 } });
    await page.getByRole('button', { name: 'Start over' }).click();
    await expect(cards).toHaveCount(0);
    await expect(cards).toHaveCount(1, { timeout: 10_000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(progress).toHaveAttribute('data-status', 'cancelled');
    const cancelledWith = await cards.count();
    expect(cancelledWith).toBeLessThan(expected.length);
    await cards.first().getByRole('button').first().click();
    await expect(lane(page)).toHaveText(`interventions (${cancelledWith})`);
  });
});
