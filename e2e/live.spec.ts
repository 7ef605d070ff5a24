// Live runs in the studio against the project's test server: fork a real Who&When run at a step from the run view's
// inspector, edit the message, continue (live calls from the next step, the fork stops at the browser agent whose
// request changed) and land in the compare view against the parent; and a small GSM8K batch in two arms that
// finishes, scores and opens in the corpus. Screenshots go to test-results/live/.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const TRACE = 'who-and-when/hand-crafted/1.json';
const TASKS = resolve(import.meta.dirname, '../../shared/tasks/gsm8k.jsonl');
const SHOTS = 'test-results/live';

test.use({ viewport: { width: 1500, height: 1000 } });

let llm: LlmServer;
let baseUrl = '';

test.beforeAll(async () => {
  llm = await startLlmServer();
  baseUrl = llm.baseUrl;
});

test.afterAll(() => llm?.stop());

const chatLog = async () =>
  ((await llm.log()) as unknown as { path: string; body: { messages: { content: string }[] } }[]).filter((e) => e.path === '/v1/chat/completions');

async function setEndpoint(page: Page) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Engines' }).click();
  await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
  await page.getByLabel('Base URL').fill(baseUrl);
  await page.getByLabel('Supervisor model').fill('test-model');
  await page.getByLabel('Retries').fill('0');
}

test('fork a real Who&When run at a step, edit the message, continue against the test server, see the fork in compare', async ({ page }) => {
  skipWithoutShared(TRACE);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await llm.reset();
  await llm.script({ fallback: { content: 'Please find Brazilian jiu-jitsu gyms within five minutes of 11 Wall Street with evening classes.' } });

  await openStudio(page);
  await setEndpoint(page);
  await openTraceInRunView(page, sharedTrace(TRACE));
  const parentId = new URL(page.url()).searchParams.get('run')!;
  // Step 1: the Orchestrator's initial plan.
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-position', '1');
  await expect(page.getByTestId('inspector-agent')).toHaveText('Orchestrator');
  await page.getByTestId('inspector').screenshot({ path: `${SHOTS}/inspector-fork-here.png` });
  await page.getByTestId('inspector').getByRole('button', { name: 'Fork here' }).click();

  await expect(page.getByTestId('fork-panel')).toBeVisible();
  await expect(page.getByLabel('Run to fork')).toHaveValue(parentId);
  await expect(page.getByLabel('Fork step')).toHaveValue(`${parentId}:s1`);
  const box = page.getByLabel(/Message at step 2 /);
  await expect(box).toHaveValue(/Initial plan/);
  await box.fill('Initial plan: search only for Brazilian jiu-jitsu gyms near 11 Wall Street, then check their evening hours.');
  await page.screenshot({ path: `${SHOTS}/fork-panel.png`, fullPage: true });
  await page.getByRole('button', { name: 'Fork and continue' }).click();

  // The compare view opens with the parent as A and the fork as B.
  await expect(page.getByTestId('compare-page')).toBeVisible({ timeout: 30_000 });
  const url = new URL(page.url());
  expect(url.searchParams.get('view')).toBe('compare');
  expect(url.searchParams.get('a')).toBe(parentId);
  const forkId = url.searchParams.get('b')!;
  expect(forkId).toMatch(/^fork-/);
  await expect(page.getByLabel('Run B').locator('option:checked')).toHaveText(/^Fork of .* at step 2 \(stopped at step 5\)/);
  await expect(page.getByTestId('compare-deltas')).toBeVisible();
  // The fork stopped early: never shown as a saving; the figures cover the steps both runs made, the totals stand apart.
  await expect(page.getByTestId('compare-early-stop')).toContainText('B stopped at step 5 (WebSurfer)');
  await expect(page.getByTestId('delta-tokens-n')).toHaveText('steps 1–4 of each');
  await expect(page.getByTestId('delta-full')).toBeVisible();
  await expect(page.getByTestId('delta-steps')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/compare-fork.png`, fullPage: true });

  // Live calls only after the edited step: the Orchestrator's two next turns; then the WebSurfer's request changed.
  const calls = await chatLog();
  expect(calls).toHaveLength(2);
  expect(JSON.stringify(calls[0].body.messages)).toContain('search only for Brazilian jiu-jitsu');

  // The fork is a library run linked to its parent, stored like any other; its inspector says where each turn came from.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Library' }).click();
  await expect(page.getByTestId('persistence-status')).toHaveAttribute('data-status', 'saved');
  // Its row in the runs table, named after its file (the file list below names the file too).
  const forkRow = page.getByTestId('library-table').locator(`[data-testid="run-row"][data-run-id=${JSON.stringify(forkId)}]`);
  await expect(forkRow).toBeVisible();
  await expect(forkRow.getByTestId('run-file')).toHaveText(/^live: Fork of /);
  await page.goto(`/?run=${encodeURIComponent(forkId)}&step=${encodeURIComponent(`${forkId}:s2`)}`);
  await expect(page.getByTestId('inspector')).toContainText('live call');
  await page.goto(`/?run=${encodeURIComponent(forkId)}&step=${encodeURIComponent(`${forkId}:s0`)}`);
  await expect(page.getByTestId('inspector')).toContainText('from the recording');
  expect(problems).toEqual([]);
});

test('a GSM8K batch of 3 tasks × {baseline, supervised} survives a server failure, resumes, scores and opens in the corpus', async ({ page }) => {
  test.skip(!existsSync(TASKS), `${TASKS} is absent; batch test skipped`);
  await llm.reset();
  // The first item (3 calls: two roles and the decision agent) gets answers; then the server fails.
  await llm.script({ queue: [1, 2, 3].map(() => ({ content: 'FINAL ANSWER: 18' })), fallback: { status: 500 } });
  await openStudio(page);
  await setEndpoint(page);
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Live' }).click();
  await page.getByRole('tab', { name: 'Batch' }).click();
  await page.getByLabel('Task set (.jsonl)').setInputFiles(TASKS);
  await expect(page.getByTestId('batch-new')).toContainText('1319 tasks read');
  await page.getByLabel('Tasks (first N)').fill('3');
  await page.getByLabel('Max turns').fill('2');
  await page.getByLabel('Concurrency').fill('1');
  // The supervised arm needs an engine: nothing is on yet, so the batch cannot be created; the supervisor is chosen.
  await expect(page.getByRole('button', { name: 'Create batch' })).toBeDisabled();
  const armEngines = page.getByTestId('batch-engines');
  await expect(armEngines.getByLabel('Rectify-or-reject')).toBeEnabled();
  await expect(armEngines.getByLabel('Edge clarifier')).toBeEnabled();
  await armEngines.getByLabel('Runtime supervisor').check();
  await page.getByRole('button', { name: 'Create batch' }).click();
  await expect(page.getByTestId('batch-card').first()).toContainText('baseline vs supervised (engines: supervisor)');
  const card = page.getByTestId('batch-card').first();
  // The price per arm before Start (issue 21), and nothing sent for it.
  const arms = card.getByTestId('batch-estimate-arm');
  await expect(arms).toHaveCount(2, { timeout: 30_000 });
  await expect(arms.first()).toHaveAttribute('data-arm', 'baseline');
  expect(Number(await arms.first().getAttribute('data-calls'))).toBeGreaterThan(0);
  await card.getByRole('button', { name: 'Start' }).click();
  await expect(card).toHaveAttribute('data-status', 'stopped', { timeout: 30_000 });
  await expect(card).toContainText(/the endpoint failed on task .*HTTP 500.*resume/);
  await expect(card.getByTestId('batch-progress')).toContainText('1 of 6 done, 1 failed');
  await page.screenshot({ path: `${SHOTS}/batch-stopped.png`, fullPage: true });

  // The first three GSM8K answers are 18, 3 and 70000: the team gets the first two right.
  await llm.reset();
  await llm.script({
    rules: [
      { match: { contains: 'Janet’s ducks' }, content: 'FINAL ANSWER: 18' },
      { match: { contains: 'A robe takes' }, content: 'FINAL ANSWER: 3' },
    ],
    fallback: { content: 'FINAL ANSWER: 12' },
  });
  await card.getByRole('button', { name: 'Resume' }).click();
  await expect(card).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
  await expect(card.getByTestId('batch-progress')).toContainText('6 of 6 done');
  await expect(card.getByTestId('accuracy-baseline')).toContainText('2 / 3 correct');
  await expect(card.getByTestId('accuracy-supervised')).toContainText('2 / 3 correct');
  // The finished item was not asked again: 5 items × 3 calls after the resume.
  expect(await chatLog()).toHaveLength(15);
  await card.getByRole('button', { name: 'Tasks' }).click();
  await page.screenshot({ path: `${SHOTS}/batch.png`, fullPage: true });

  // A reload keeps the batch (IndexedDB) and its runs (library).
  await page.reload();
  await page.getByRole('tab', { name: 'Batch' }).click();
  await expect(page.getByTestId('batch-card').first()).toHaveAttribute('data-status', 'complete');
  await page.getByTestId('batch-card').first().getByRole('button', { name: 'Open in corpus' }).click();
  await expect(page).toHaveURL(/view=corpus/);
  await expect(page.getByText('gsm8k 0 · baseline')).toBeVisible();
  await expect(page.getByText('gsm8k 2 · supervised')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/batch-corpus.png`, fullPage: true });
});

test('runner: a math chain with the supervisor on runs in the worker, scores, and opens in the run view', async ({ page }) => {
  await llm.reset();
  const long = `${'<div class="noise">carry the one</div>\n'.repeat(120)}FINAL ANSWER: 15`;
  await llm.script({ queue: [{ content: long }], fallback: { content: '5 pens at 3 dollars: FINAL ANSWER: 15' } });
  await openStudio(page);
  await setEndpoint(page);
  await page.goto('/?view=live&tab=runner');
  await page.getByLabel('Task', { exact: true }).fill('A pen costs 3 dollars. How much do 5 pens cost?');
  await page.getByLabel('Reference answer (optional, for scoring)').fill('15');
  await page.getByLabel('Runtime supervisor').check();
  await page.getByRole('button', { name: 'Run team' }).click();
  const result = page.getByTestId('runner-result');
  await expect(result).toContainText('complete', { timeout: 30_000 });
  await expect(result).toContainText('success');
  await expect(result).toContainText('answer: 15');
  await page.screenshot({ path: `${SHOTS}/runner.png`, fullPage: true });
  // Solver, Checker, Critic and the decision agent called the endpoint; the over-long message was purified before
  // the Checker saw it (the supervisor fired on τ_len and decided with the endpoint's supervisor model).
  const calls = await chatLog();
  expect(calls.length).toBeGreaterThanOrEqual(4);
  await result.getByRole('button', { name: 'Open in run view' }).click();
  await expect(page.getByTestId('inspector-agent')).toHaveText('Solver');
  await expect(page.getByTestId('inspector')).toContainText('live call');
  await expect(page.getByTestId('timeline-panel').getByText(/^interventions \(1\)$/)).toBeVisible();
  await expect(page.getByTestId('inspector-intervention')).toContainText(/correct_observation · excessive/);
});

test('runner with rectify-or-reject and the clarifier on: a message rewritten, one pruned, one question answered', async ({ page }) => {
  await llm.reset();
  const verdict = (flawed: boolean) =>
    JSON.stringify(
      flawed
        ? { evidence_quote: '14', analysis: 'five threes are 15', suggestion: 'Recompute 5 × 3', impact_assessment: 'YES, the total changes', is_flawed: true }
        : { evidence_quote: 'N/A', analysis: 'N/A', suggestion: 'N/A', impact_assessment: 'NO, nothing to change', is_flawed: false },
    );
  await llm.script({
    rules: [
      // Rectifier audits (zero-shot: no pool loaded): the Checker's draft and every Critic attempt are flawed.
      { match: { contains: 'Message to review:\nCHECKER-DRAFT' }, content: verdict(true) },
      { match: { contains: 'Message to review:\nCRITIC-DRAFT' }, content: verdict(true) },
      { match: { contains: 'Message to review:' }, content: verdict(false) },
      // Clarifier: it asks the Solver once, then lets everything pass.
      { match: { contains: 'You sit on the link between two agents' }, times: 1, content: '{"type":"SC","to_agent":"sender","question":"Is the price per pen 3 dollars?"}' },
      { match: { contains: 'You sit on the link between two agents' }, content: '{"type":"NONE","to_agent":null,"question":""}' },
      { match: { contains: 'A clarifying question for you' }, content: 'Yes, 3 dollars each.' },
      // Regenerations after feedback, then the agents' turns.
      { match: { contains: 'CRITIC-DRAFT' }, content: 'CRITIC-DRAFT again: about 14' },
      { match: { contains: 'CHECKER-DRAFT' }, content: 'CHECKER-FIXED: 5 × 3 = 15\nFINAL ANSWER: 15' },
      { match: { contains: 'You are the decision agent' }, content: 'FINAL ANSWER: 15' },
      { match: { contains: 'You are the Solver' }, content: 'SOLVER: 5 × 3 = 15\nFINAL ANSWER: 15' },
      { match: { contains: 'You are the Checker' }, content: 'CHECKER-DRAFT: 5 × 3 = 14\nFINAL ANSWER: 14' },
      { match: { contains: 'You are the Critic' }, content: 'CRITIC-DRAFT: roughly 14' },
    ],
  });
  await openStudio(page);
  await page.goto('/?view=live&tab=runner');
  // Offline the rectifier cannot audit, so it cannot be switched on; the clarifier can, with its LLM-free rules.
  await expect(page.getByLabel('Rectify-or-reject')).toBeDisabled();
  await expect(page.getByTestId('runner-run')).toContainText('needs an endpoint');
  await page.getByLabel('Edge clarifier').check();
  await expect(page.getByLabel(/flag with its LLM-free rules/)).toBeChecked();
  await expect(page.getByLabel(/flag with its LLM-free rules/)).toBeDisabled();
  await setEndpoint(page);
  await page.goto('/?view=live&tab=runner');
  await page.getByLabel('Task', { exact: true }).fill('A pen costs 3 dollars. How much do 5 pens cost?');
  await page.getByLabel('Reference answer (optional, for scoring)').fill('15');
  await page.getByLabel('Rectify-or-reject').check();
  await expect(page.getByTestId('rectifier-pool-note')).toContainText('zero-shot');
  const clarifier = page.getByLabel('Edge clarifier');
  if (!(await clarifier.isChecked())) await clarifier.check();
  await expect(page.getByLabel(/flag with its LLM-free rules/)).toBeEnabled();
  await expect(page.getByLabel(/flag with its LLM-free rules/)).not.toBeChecked();
  await page.screenshot({ path: `${SHOTS}/runner-engines.png`, fullPage: true });
  await page.getByRole('button', { name: 'Run team' }).click();
  const result = page.getByTestId('runner-result');
  await expect(result).toContainText('complete', { timeout: 30_000 });
  await expect(result).toContainText('success');
  const effects = page.getByTestId('runner-effects');
  await expect(effects).toContainText('Rectify-or-reject audited 3 messages (zero-shot, general indicator): 1 message rewritten after feedback, 1 message pruned');
  await expect(effects).toContainText('Edge clarifier checked 2 messages: 1 flagged, answers delivered with the message');
  await page.screenshot({ path: `${SHOTS}/runner-rectified.png`, fullPage: true });
  // The decision agent saw the Checker's revision and the Solver's answer to the question, never the pruned Critic.
  const calls = await chatLog();
  const decider = calls.find((c) => c.body.messages[0].content.includes('You are the decision agent'))!;
  const seen = decider.body.messages.map((m) => m.content).join('\n');
  expect(seen).toContain('CHECKER-FIXED');
  expect(seen).toContain('Yes, 3 dollars each.');
  expect(seen).not.toContain('CRITIC');
  // Agents 4 + audits (1 + 2 + 3) + regenerations (1 + 2) + clarifier (ask, answer, re-check; one check on the Checker).
  expect(calls).toHaveLength(4 + 6 + 3 + 4);
  await result.getByRole('button', { name: 'Open in run view' }).click();
  await expect(page.getByTestId('step-pruned')).toHaveCount(1);
  await expect(page.getByTestId('step-pruned')).toHaveText('pruned');
  await page.screenshot({ path: `${SHOTS}/runner-rectified-run.png`, fullPage: true });
});

test('batch: the supervised arm with rectify-or-reject prunes every message and restarts the team without auditing', async ({ page }) => {
  test.skip(!existsSync(TASKS), `${TASKS} is absent; batch test skipped`);
  await llm.reset();
  const flawed = JSON.stringify({ evidence_quote: 'x', analysis: 'the total is wrong', suggestion: 'Recompute', impact_assessment: 'YES', is_flawed: true });
  await llm.script({
    rules: [
      { match: { contains: 'Message to review:' }, content: flawed },
      { match: { contains: 'A reviewer checked your last message' }, content: 'Still 17.' },
      { match: { contains: 'You are the decision agent' }, content: 'FINAL ANSWER: 18' },
    ],
    fallback: { content: 'She sells 9 eggs at 2 dollars: FINAL ANSWER: 18' },
  });
  await openStudio(page);
  await setEndpoint(page);
  await page.goto('/?view=live&tab=batch');
  await page.getByLabel('Task set (.jsonl)').setInputFiles(TASKS);
  await page.getByLabel('Tasks (first N)').fill('1');
  await page.getByLabel('Max turns').fill('1');
  await page.getByLabel('Dataset name').fill('gsm8k-rect');
  await page.getByRole('checkbox', { name: 'baseline' }).uncheck();
  await page.getByTestId('batch-engines').getByLabel('Rectify-or-reject').check();
  await page.getByRole('button', { name: 'Create batch' }).click();
  const card = page.getByRole('region', { name: /Batch gsm8k-rect/ });
  await expect(card).toContainText('supervised (engines: rectifier)');
  await card.getByRole('button', { name: 'Start' }).click();
  await expect(card).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
  await expect(card.getByTestId('accuracy-supervised')).toContainText('1 / 1 correct');
  // Solver; three flawed audits and two regenerations (T_max 3): pruned; γ = 1 → the Solver again, unaudited; decider.
  const calls = await chatLog();
  expect(calls).toHaveLength(1 + 3 + 2 + 1 + 1);
  await card.getByRole('button', { name: 'Tasks' }).click();
  await card.getByRole('button', { name: 'open', exact: true }).click();
  await expect(page.getByTestId('step-pruned')).toHaveCount(1);
  await expect(page.getByTestId('step-restart')).toHaveCount(1);
  await expect(page.getByTestId('step-restart')).toHaveAttribute('title', /0 of 1 messages survived the audit, fewer than γ = 1/);
  await page.screenshot({ path: `${SHOTS}/batch-rectifier-run.png`, fullPage: true });
});

test('batch: a dataset name typed while the task set is still being read is kept; choosing a file again names it after the file', async ({ page }) => {
  test.skip(!existsSync(TASKS), `${TASKS} is absent; batch test skipped`);
  // The file's text arrives 600 ms after it is asked for: the name is typed meanwhile (a CI run hit this by chance).
  await page.addInitScript(() => {
    const text = File.prototype.text;
    File.prototype.text = function (this: File) {
      return new Promise<string>((done, fail) => setTimeout(() => text.call(this).then(done, fail), 600));
    };
  });
  await openStudio(page);
  await page.goto('/?view=live&tab=batch');
  const name = page.getByLabel('Dataset name');
  await page.getByLabel('Task set (.jsonl)').setInputFiles(TASKS);
  await name.fill('typed-before-read');
  await expect(page.getByTestId('batch-new')).toContainText(/\d+ tasks read/);
  await expect(name).toHaveValue('typed-before-read');
  // Chosen again without typing: the file names the dataset, as before.
  await page.getByLabel('Task set (.jsonl)').setInputFiles([]);
  await page.getByLabel('Task set (.jsonl)').setInputFiles(TASKS);
  await expect(page.getByTestId('batch-new')).toContainText(/\d+ tasks read/);
  await expect(name).toHaveValue('gsm8k');
});
