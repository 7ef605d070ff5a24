// The stage view (EvoMAS) in the studio: on a real TRAIL GAIA trace, derive the stages offline and step through them
// with the keyboard, the subtask board, the workflow graph and the heatmap following the playhead; the stages survive a
// reload and a deep link opens the stage of its step. Then the Planner → Evaluator → Updater pass against the
// project's test server, with a failed call, the stages before it kept, and a resume. Screenshots: test-results/stages/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceFiles, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const TRACE = 'trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json';
const SHOTS = 'test-results/stages';

test.use({ viewport: { width: 1500, height: 1100 } });
skipWithoutShared(TRACE);

async function openStages(page: Page) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Stages' }).click();
  await expect(page.getByTestId('stages-view')).toBeVisible();
}

/** Replay ranges of the placed stages, read from the chips ("steps a–b", 1-based). */
async function stageRanges(page: Page): Promise<[number, number][]> {
  const titles = await page.getByTestId('stage-chip').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
  return titles.flatMap((t) => {
    const m = /^steps (\d+)–(\d+)/.exec(t);
    return m ? [[Number(m[1]) - 1, Number(m[2]) - 1] as [number, number]] : [];
  });
}

test('offline stages of a real TRAIL run: board, workflow and heatmap follow the playhead; reload and deep link', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(TRACE));
  const runId = new URL(page.url()).searchParams.get('run')!;
  // Start from the run view's playhead: three steps in.
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('playhead-position')).toHaveText(/^step 4 \//);

  await openStages(page);
  await expect(page).toHaveURL(new RegExp(`view=stages.*run=${runId}|run=${runId}.*view=stages`));
  await expect(page.getByTestId('stage-source')).toHaveAttribute('data-source', 'none');
  await page.getByRole('button', { name: 'Derive offline (heuristic)' }).click();
  await expect(page.getByTestId('stage-source')).toHaveAttribute('data-source', 'offline');
  await expect(page.getByTestId('stage-source')).toContainText('heuristic');
  await expect(page.getByTestId('stage-note')).toContainText('a stage opens at each action step of the manager');
  // Six stages (one per manager action step) and the closing state.
  await expect(page.getByTestId('stage-chip')).toHaveCount(7);
  // The run picker counts the stages as the view does: the closing state is not one of them.
  await expect(page.getByLabel('Run', { exact: true }).locator('option:checked')).toContainText(/, 6 stages\)$/);
  const ranges = await stageRanges(page);
  expect(ranges).toHaveLength(6);
  const total = Number((await page.getByTestId('playhead-position').textContent())!.split('/')[1].trim());
  expect(ranges[0][0]).toBe(0);
  expect(ranges.at(-1)![1]).toBe(total - 1);
  const heatmap = page.getByTestId('selection-heatmap');
  await expect(heatmap).toHaveAttribute('data-measure', 'frequency');
  await expect(heatmap).toContainText('frequency, not a probability');

  // The playhead kept its place from the run view (step 4); walk every step with → and check the views agree.
  await expect(page.getByTestId('playhead-position')).toHaveText(new RegExp(`^step 4 / ${total}$`));
  await page.keyboard.press('Home');
  const stageOf = (p: number) => ranges.findIndex(([a, b]) => a <= p && p <= b);
  let previousStage = -1;
  for (let p = 0; p < total; p++) {
    if (p > 0) await page.keyboard.press('ArrowRight');
    const s = stageOf(p);
    await expect(page.getByTestId('playhead-position')).toHaveText(`step ${p + 1} / ${total}`);
    await expect(page.getByTestId('stage-position')).toHaveText(`stage ${s + 1} / 6`);
    await expect(page.getByTestId('subtask-board')).toHaveAttribute('data-stage', `stage-${s + 1}`);
    await expect(page.getByTestId('workflow-graph')).toHaveAttribute('data-stage', `stage-${s + 1}`);
    await expect(page.getByTestId('stage-chip').nth(s)).toHaveAttribute('aria-current', 'step');
    await expect(heatmap.locator('[data-testid="heatmap-column"][data-current]')).toHaveAttribute('data-stage', `stage-${s + 1}`);
    if (s !== previousStage) {
      // Entering a stage: one subtask per stage so far, the newest active; the one before judged.
      await expect(page.getByTestId('subtask-card')).toHaveCount(s + 1);
      await expect(page.locator(`[data-testid="subtask-card"][data-subtask="t${s + 1}"]`)).toHaveAttribute('data-active', 'true');
      await expect(page.locator(`[data-testid="subtask-card"][data-subtask="t${s + 1}"]`)).toHaveAttribute('data-status', 'TODO');
      if (s > 0) await expect(page.locator(`[data-testid="subtask-card"][data-subtask="t${s}"]`)).toHaveAttribute('data-changed', 'TODO');
      previousStage = s;
      if (s === 3) {
        // Stage 4: the manager hands the file to search_agent: two layers, search_agent in the second.
        await expect(page.getByTestId('workflow-graph')).toHaveAttribute('data-layers', '2');
        await expect(page.locator('[data-testid="workflow-node"][data-agent="agent-search_agent"]')).toHaveAttribute('data-layer', '2');
        await page.screenshot({ path: `${SHOTS}/offline-stage-4.png`, fullPage: true });
      }
      if (s === 4) {
        // Stage 5 goes back to search_agent: stage 4's delegation is judged as needing refinement, highlighted.
        const t4 = page.locator('[data-testid="subtask-card"][data-subtask="t4"]');
        await expect(t4).toHaveAttribute('data-status', 'NEED-REFINE');
        await expect(t4).toContainText('was TODO');
        await expect(page.getByTestId('evaluator-verdict')).toContainText('needs refinement');
        await expect(page.getByTestId('evaluator-verdict')).toContainText('no confidence (no evaluator offline)');
        await page.getByTestId('subtask-board').screenshot({ path: `${SHOTS}/offline-board-stage-5.png` });
      }
    }
  }
  // s / S jump between stages; the "end" chip shows the closing state.
  await page.keyboard.press('S');
  await expect(page.getByTestId('stage-position')).toHaveText('stage 5 / 6');
  await expect(page.getByTestId('playhead-position')).toHaveText(`step ${ranges[4][0] + 1} / ${total}`);
  await page.keyboard.press('s');
  await expect(page.getByTestId('stage-position')).toHaveText('stage 6 / 6');
  await page.getByTestId('stage-chip').last().click();
  await expect(page.getByTestId('stage-position')).toHaveText('closing state');
  await expect(page.getByTestId('subtask-board')).toHaveAttribute('data-stage', 'stage-closing');
  await expect(page.locator('[data-testid="subtask-card"][data-status="TODO"]')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/offline-closing.png`, fullPage: true });

  // The stages are saved on the run: a reload keeps them; a deep link to a step opens its stage.
  // Saved: the library's write of the change has committed (a change sets it to saving at once; ADR 0025's status).
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved');
  const stage3Start = ranges[2][0];
  await page.keyboard.press('Home');
  for (let i = 0; i < stage3Start; i++) await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('stage-position')).toHaveText('stage 3 / 6');
  // The step at the playhead is named by the same 1-based number as the playhead counter.
  await expect(page.getByTestId('playhead-position')).toHaveText(new RegExp(`^step ${stage3Start + 1} /`));
  await expect(page.getByTestId('current-step')).toContainText(`At the playhead: step ${stage3Start + 1} · `);
  const stepId = (await page.getByTestId('current-step').getAttribute('data-step-id'))!;
  // The URL follows the playhead once it rests, naming the step by its 1-based number (model/steps.ts).
  await expect.poll(() => new URL(page.url()).searchParams.get('step')).toBe(String(stage3Start + 1));
  await page.reload();
  await expect(page.getByTestId('stage-source')).toHaveAttribute('data-source', 'offline');
  await expect(page.getByTestId('stage-chip')).toHaveCount(7);
  await expect(page.getByTestId('stage-position')).toHaveText('stage 3 / 6');
  await page.goto(`/?view=stages&run=${encodeURIComponent(runId)}&step=${stage3Start + 1}`);
  await expect(page.getByTestId('stage-position')).toHaveText('stage 3 / 6');
  await expect(page.getByTestId('current-step')).toHaveAttribute('data-step-id', stepId);
  // The run view opened from here is at the same step.
  await page.getByRole('button', { name: 'open in the run view' }).click();
  await expect(page.getByTestId('run-view')).toBeVisible();
  await expect(page.getByTestId('playhead-position')).toHaveText(`step ${stage3Start + 1} / ${total}`);
  expect(problems).toEqual([]);
});

/** A native session whose run carries recorded stages (an EvoMAS-style recording), written by hand for this test. */
function recordedSession(path: string): void {
  const step = (id: string, index: number, agentId: string, number: number) => ({ id, index, kind: 'action', agentId, agentRunId: `r-${agentId}`, number, output: `${agentId} step ${number}` });
  const run = {
    id: 'recorded-stages-run',
    title: 'Hand-made run with recorded stages',
    task: 'Find the answer.',
    sourceFormat: 'native',
    models: [],
    outcome: { status: 'success' },
    tags: {},
    agents: [
      { id: 'coordinator', name: 'coordinator' },
      { id: 'searcher', name: 'web searcher', parentId: 'coordinator' },
      { id: 'exit', name: 'early exit', parentId: 'coordinator' },
    ],
    agentRuns: [{ id: 'r-coordinator', agentId: 'coordinator' }, { id: 'r-searcher', agentId: 'searcher', parentRunId: 'r-coordinator' }],
    steps: [step('x1', 0, 'coordinator', 1), step('x2', 1, 'searcher', 1), step('x3', 2, 'coordinator', 2), step('x4', 3, 'coordinator', 3)],
    handoffs: [],
    annotations: [],
    interventions: [],
    orphanSpans: 0,
    stages: [
      {
        id: 'evo-1', index: 0, startStepId: 'x1', endStepId: 'x2', nextSubtaskId: 'a', summary: 'Starting.',
        subtasks: [{ id: 'a', title: 'Search the web', status: 'TODO' }, { id: 'b', title: 'Answer', status: 'TODO' }],
        layers: [[{ agentId: 'coordinator', probability: 0.8, selected: true }, { agentId: 'searcher', probability: 0.2, selected: false }], [{ agentId: 'searcher', probability: 0.7, selected: true }, { agentId: 'exit', probability: 0.3, selected: false }]],
      },
      {
        id: 'evo-2', index: 1, startStepId: 'x3', nextSubtaskId: 'b', verdict: 'success', confidence: 0.92, feedback: 'Found it.', summary: 'Search done.',
        subtasks: [{ id: 'a', title: 'Search the web', status: 'DONE' }, { id: 'b', title: 'Answer', status: 'TODO' }],
        layers: [[{ agentId: 'coordinator', probability: 0.35, selected: false }, { agentId: 'exit', probability: 0.65, selected: true }]],
      },
    ],
  };
  writeFileSync(path, JSON.stringify({ format: 'mas-replay-session', version: 1, id: 'recorded-stages', runs: [run], engineSettings: {}, llmCalls: [] }));
}

test('recorded stages from a native session: probabilities in the heatmap and the graph, derivation refused', async ({ page }) => {
  mkdirSync(SHOTS, { recursive: true });
  const file = resolve(SHOTS, 'recorded-stages.session.json');
  recordedSession(file);
  await openStudio(page);
  const [card] = await openTraceFiles(page, file);
  await expect(card).toBeVisible();
  // Stored before the deep link reloads the page.
  await expect.poll(async () => Number(await page.getByTestId('persistence-status').getAttribute('data-writes'))).toBeGreaterThan(0);
  await page.goto('/?view=stages&run=recorded-stages-run&step=x3');
  await expect(page.getByTestId('stage-source')).toHaveAttribute('data-source', 'recorded');
  await expect(page.getByTestId('stage-position')).toHaveText('stage 2 / 2');
  await expect(page.getByTestId('verdict-confidence')).toHaveText('confidence 0.92');
  await expect(page.getByRole('button', { name: 'Derive offline (heuristic)' })).toBeDisabled();
  await expect(page.getByTestId('selection-heatmap')).toHaveAttribute('data-measure', 'probability');
  const exit = page.locator('[data-testid="workflow-node"][data-agent="exit"]');
  await expect(exit).toHaveAttribute('data-selected', 'true');
  await expect(exit).toContainText('p = 0.65');
  await expect(page.locator('[data-testid="workflow-node"][data-agent="coordinator"]')).toHaveAttribute('data-selected', 'false');
  await page.keyboard.press('Home');
  await expect(page.getByTestId('stage-position')).toHaveText('stage 1 / 2');
  await expect(page.getByTestId('workflow-graph')).toHaveAttribute('data-layers', '2');
  await expect(page.locator('[data-testid="workflow-node"][data-agent="searcher"][data-layer="2"]')).toContainText('p = 0.70');
  await page.screenshot({ path: `${SHOTS}/recorded-stage-1.png`, fullPage: true });
});

test.describe('against the test server', () => {
  let llm: LlmServer;
  let baseUrl = '';

  test.beforeAll(async () => {
    llm = await startLlmServer();
    baseUrl = llm.baseUrl;
  });

  test.afterAll(() => llm?.stop());

  const chatCalls = async () =>
    ((await llm.log()) as unknown as { path: string }[]).filter((e) => e.path === '/v1/chat/completions').length;

  test('Planner → Evaluator → Updater: verdicts with confidence, tokens equal to the scripted usage, a failure kept apart and resumed', async ({ page }) => {
    const USAGE = { prompt_tokens: 200, completion_tokens: 40 };
    const plan = {
      content: JSON.stringify({
        subtasks: [
          { id: 's1', title: 'Read the attached JSON-LD file', status: 'TODO' },
          { id: 's2', title: 'Count pre-2020 works per person', status: 'TODO' },
        ],
        next_subtask_id: 's1',
        summary: 'Nothing done yet.',
      }),
      usage: USAGE,
    };
    const verdict = { content: JSON.stringify({ verdict: 'needs_refinement', confidence: 0.65, feedback: 'The file could not be read yet.' }), usage: USAGE };
    const update = {
      content: JSON.stringify({
        subtasks: [
          { id: 's1', title: 'Read the attached JSON-LD file', status: 'NEED-REFINE' },
          { id: 's2', title: 'Count pre-2020 works per person', status: 'TODO' },
        ],
        next_subtask_id: 's1',
        summary: 'Tried to read the file; it failed.',
      }),
      usage: USAGE,
    };
    await llm.reset();
    // Planner, then stage 2's evaluator and updater, then a server error (retries 0): two stages are kept.
    await llm.script({ queue: [plan, verdict, update, { status: 500 }], rules: [{ match: { contains: '[stage evaluator]' }, ...verdict }, { match: { contains: '[stage updater]' }, ...update }] });

    await openStudio(page);
    await openTraceInRunView(page, sharedTrace(TRACE));
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Engines' }).click();
    await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
    await page.getByLabel('Base URL').fill(baseUrl);
    await page.getByLabel('Supervisor model').fill('test-model');
    await page.getByLabel('Retries').fill('0');

    await openStages(page);
    await page.getByRole('button', { name: 'Derive with endpoint' }).click();
    await expect(page.getByTestId('stages-progress')).toHaveAttribute('data-status', 'failed', { timeout: 30_000 });
    await expect(page.getByTestId('stages-failure')).toContainText('HTTP 500');
    await expect(page.getByRole('alert').filter({ hasText: 'The evaluator call failed on stage 3' })).toBeVisible();
    await expect(page.getByTestId('stage-chip')).toHaveCount(2);
    await expect(page.getByTestId('stages-tokens')).toHaveText((3 * 240).toLocaleString('en'));
    await page.screenshot({ path: `${SHOTS}/endpoint-failed.png`, fullPage: true });

    await page.getByRole('button', { name: 'Resume LLM pass (2 stages kept)' }).click();
    await expect(page.getByTestId('stages-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
    await expect(page.getByTestId('stage-source')).toHaveAttribute('data-source', 'llm');
    await expect(page.getByTestId('stage-chip')).toHaveCount(7);
    // Planner once; evaluator + updater for stages 2–6 and the closing state; the failed call; nothing asked twice.
    expect(await chatCalls()).toBe(1 + 2 * 6 + 1);
    await expect(page.getByTestId('stages-tokens')).toHaveText(((1 + 2 * 6) * 240).toLocaleString('en'));

    // Stage 2 shows the evaluator's verdict with its confidence, and the updated board.
    await page.getByTestId('stage-chip').nth(1).click();
    await expect(page.getByTestId('stage-position')).toHaveText('stage 2 / 6');
    await expect(page.getByTestId('evaluator-verdict')).toContainText('needs refinement');
    await expect(page.getByTestId('verdict-confidence')).toHaveText('confidence 0.65');
    await expect(page.getByTestId('evaluator-verdict')).toContainText('The file could not be read yet.');
    const s1 = page.locator('[data-testid="subtask-card"][data-subtask="s1"]');
    await expect(s1).toHaveAttribute('data-status', 'NEED-REFINE');
    await expect(s1).toHaveAttribute('data-changed', 'TODO');
    await expect(page.getByTestId('stage-summary')).toContainText('Tried to read the file; it failed.');
    await page.screenshot({ path: `${SHOTS}/endpoint-stage-2.png`, fullPage: true });
  });
});
