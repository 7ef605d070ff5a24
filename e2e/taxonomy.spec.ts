// The Taxonomy view in the studio: every gallery case renders (screenshots of the gallery and of a case go to
// test-results/taxonomy/), a person labels an edge of a real Who&When run and finds the label after a reload (with the
// dataset's decisive-step label shown as unmapped, the offline flagger run, and the edge promoted to the gallery),
// and the quiz is taken to the end with the keyboard, its score matching the feedback given on each item.
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceFiles, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const SHOTS = 'test-results/taxonomy';
const WHO_WHEN = 'who-and-when/hand-crafted/1.json';

test.use({ viewport: { width: 1400, height: 950 } });

async function openTaxonomy(page: Page, tab: 'Gallery' | 'Edges & labels' | 'Quiz' | 'Charts') {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Taxonomy' }).click();
  await expect(page.getByTestId('taxonomy-page')).toBeVisible();
  await page.getByRole('tab', { name: tab }).click();
}

test('the gallery holds at least 12 cases, each renders with its handoff, question, addressee and revision', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await openStudio(page);
  await openTaxonomy(page, 'Gallery');
  const cards = page.getByTestId('case-card');
  const count = await cards.count();
  expect(count).toBeGreaterThanOrEqual(12);
  for (const t of ['DG', 'RD', 'SC', 'CG']) expect(await cards.filter({ has: page.locator(`[data-type="${t}"]`) }).count(), t).toBeGreaterThanOrEqual(3);
  await page.screenshot({ path: `${SHOTS}/gallery.png`, fullPage: true });

  const ids = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-case-id')!));
  for (const id of ids) {
    await page.locator(`[data-testid="case-card"][data-case-id="${id}"]`).click();
    const view = page.getByTestId('case-view');
    await expect(view).toHaveAttribute('data-case-id', id);
    await expect(view.getByTestId('case-message')).not.toBeEmpty();
    await expect(view.getByTestId('case-explanation')).toContainText('Why');
    if (!id.startsWith('none-')) {
      await expect(view.getByTestId('case-question')).toContainText(/Clarifier asks .+ \((sender|receiver)\): .+\?/);
      await expect(view.getByTestId('case-revised')).not.toBeEmpty();
    }
    if (id === 'sc-math-tank') await view.screenshot({ path: `${SHOTS}/case-sc-math-tank.png` });
    await expect(page).toHaveURL(new RegExp(`case=${id}`));
    await page.getByRole('button', { name: '← All cases' }).click();
  }
  // Filtering by type keeps only that type.
  await page.getByRole('button', { name: 'CG · Capability Gap' }).click();
  await expect(cards).toHaveCount(3);
  expect(problems).toEqual([]);
});

test('labels an edge of a real Who&When run; the label survives a reload and joins the gallery', async ({ page }) => {
  skipWithoutShared(WHO_WHEN);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(WHO_WHEN));
  await openTaxonomy(page, 'Edges & labels');
  const rows = page.getByTestId('edge-row');
  expect(await rows.count()).toBeGreaterThan(5);

  // The dataset's decisive step (WebSurfer, history index 12) sits on the edge it sent, shown as unmapped.
  const decisive = rows.filter({ has: page.getByText('dataset', { exact: true }) });
  await expect(decisive).toHaveCount(1);
  await expect(decisive).toContainText('WebSurfer → Orchestrator');
  await decisive.click();
  // A key pressed on the clicked row moves the current edge and the focus together, and back.
  const current = rows.and(page.locator('[aria-current="true"]'));
  const decisiveId = await decisive.getAttribute('data-edge-id');
  await page.keyboard.press('ArrowDown');
  await expect(current).not.toHaveAttribute('data-edge-id', decisiveId!);
  await expect(current).toBeFocused();
  await page.keyboard.press('k');
  await expect(current).toHaveAttribute('data-edge-id', decisiveId!);
  await expect(decisive).toBeFocused();
  const datasetLabel = page.getByTestId('dataset-label');
  await expect(datasetLabel).toContainText('Who&When decisive error by WebSurfer');
  await expect(datasetLabel).toContainText('unmapped');

  // The history window H is in the URL and changes the local history shown (and sent to the clarifier).
  await expect(page.getByTestId('edge-detail')).toContainText('Local history (the last 3 related handoffs)');
  // Each new H asks the worker for a new cost estimate: the line keeps its height from "Estimating…" to the
  // estimate, so nothing below it (the label's buttons) moves under the pointer when it arrives.
  await page.evaluate(() => {
    const heights: string[] = [];
    (window as unknown as { estimateHeights: string[] }).estimateHeights = heights;
    const note = () => {
      const line = document.querySelector('[data-testid="clarifier-estimate"]');
      if (line) heights.push(`${line.getAttribute('data-status')} ${line.getBoundingClientRect().height}`);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  });
  await page.getByLabel('History window H').selectOption('1');
  await expect(page).toHaveURL(/[?&]h=1/);
  await expect(page.getByTestId('edge-detail')).toContainText('Local history (the last 1 related handoff)');
  await page.getByLabel('History window H').selectOption('3');
  await expect(page.getByTestId('clarifier-estimate')).toHaveAttribute('data-status', 'ready');
  const heights = new Set(await page.evaluate(() => (window as unknown as { estimateHeights: string[] }).estimateHeights));
  expect([...heights].some((h) => h.startsWith('pending')), [...heights].join(', ')).toBe(true);
  expect(new Set([...heights].map((h) => h.split(' ')[1])).size, [...heights].join(', ')).toBe(1);

  // Label it with the keyboard (3 = SC), then by click (RD), with a note, then save.
  const edgeId = await decisive.getAttribute('data-edge-id');
  const form = page.getByTestId('label-form');
  await form.getByRole('radio', { name: /^DG/ }).focus();
  await page.keyboard.press('3');
  await expect(form.getByRole('radio', { name: /^SC/ })).toHaveAttribute('aria-checked', 'true');
  await form.getByRole('radio', { name: /^RD/ }).click();
  await form.getByLabel('Note').fill('the summary points at "the listings" without saying which site');
  await form.getByRole('button', { name: 'Save label' }).click();
  await expect(page.getByTestId('saved-label')).toContainText('Saved: RD');
  await expect(decisive).toContainText('you:');
  await form.getByLabel('Show in the gallery').check();

  // The offline flagger over every edge, labelled heuristic.
  await expect(page.getByTestId('clarifier-mode')).toContainText('Offline');
  await page.getByRole('button', { name: 'Run clarifier on all edges' }).click();
  const progress = page.getByTestId('clarifier-progress');
  await expect(progress).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
  expect(await progress.getAttribute('data-done')).toBe(String(await rows.count()));
  await expect(page.getByTestId('clarification').getByText('heuristic', { exact: true })).toBeVisible();
  await expect(page.getByTestId('extra-cost')).toContainText('0%');

  // Agreement: your labels vs the heuristic flagger, over the one edge both labelled.
  const agreementPanel = page.getByTestId('agreement');
  await agreementPanel.getByLabel('Source B').selectOption('heuristic');
  await expect(page.getByTestId('agreement-result')).toContainText('1 edge labelled by both: 0 agree (0%)');
  await page.screenshot({ path: `${SHOTS}/edges.png`, fullPage: true });
  await page.getByTestId('clarification').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/edges-labels.png` });

  // Reload: the label and the clarifier results come back from the stored library.
  // Saved: the library's write of the change has committed (a change sets it to saving at once; ADR 0025's status).
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved');
  await page.reload();
  await expect(page.getByTestId('edge-detail')).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`edge=${encodeURIComponent(edgeId!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await expect(page.getByTestId('saved-label')).toContainText('Saved: RD');
  await expect(page.getByTestId('label-form').getByLabel('Note')).toHaveValue('the summary points at "the listings" without saying which site');
  await expect(page.getByTestId('clarifier-summary')).toBeVisible();

  // The labelled edge is now a gallery case from a real trace.
  await page.getByRole('tab', { name: 'Gallery' }).click();
  const traceCard = page.getByTestId('trace-case-card');
  await expect(traceCard).toHaveCount(1);
  await traceCard.click();
  await expect(page.getByTestId('trace-case-view')).toContainText('WebSurfer → Orchestrator');
  await expect(page.getByTestId('trace-case-view')).toContainText('which site');
  await page.getByTestId('trace-case-view').screenshot({ path: `${SHOTS}/trace-case.png` });

  // The quiz can include it: its type is the person's label; with no clarifier ask on it, only the type is scored.
  await page.getByRole('tab', { name: 'Quiz' }).click();
  await page.getByLabel('Include the edge from your traces in the gallery (restarts)').check();
  const quizTotal = Number((await page.getByTestId('quiz-progress').textContent())!.match(/of (\d+)/)![1]);
  let found = false;
  for (let i = 0; i < quizTotal && !found; i++) {
    found = (await page.getByTestId('quiz-item').getByText('real trace', { exact: true }).count()) > 0;
    await page.keyboard.press(found ? '2' : '1');
    await page.keyboard.press('s');
    await page.keyboard.press('Enter');
    if (!found) await page.keyboard.press('Enter');
  }
  expect(found).toBe(true);
  await expect(page.getByTestId('quiz-feedback')).toContainText('Type: right');
  await expect(page.getByTestId('quiz-feedback')).toContainText('Whom: not scored for this edge.');
  await expect(page.getByTestId('quiz-feedback')).toContainText('which site');
  await page.getByTestId('quiz-item').screenshot({ path: `${SHOTS}/quiz-trace-item.png` });
  await page.getByRole('tab', { name: 'Gallery' }).click();
  await page.getByTestId('trace-case-card').click();

  // The run view's inspector shows the label on the step that sent the message.
  await page.getByRole('button', { name: 'Open the edge →' }).click();
  await page.getByRole('button', { name: 'Open in run view →' }).click();
  await expect(page.getByTestId('run-view')).toBeVisible();
  await expect(page.getByTestId('inspector')).toContainText('AgentAsk');
  // …and links back to the edge it sends.
  await page.getByTestId('inspector-handoffs').getByRole('button', { name: 'Label this edge in Taxonomy →' }).click();
  await expect(page.getByTestId('edge-row').and(page.locator('[aria-current="true"]'))).toHaveAttribute('data-edge-id', edgeId!);
  await expect(page.getByTestId('saved-label')).toContainText('Saved: RD');
  expect(problems).toEqual([]);
});

test('the quiz runs to the end with the keyboard and keeps score', async ({ page }) => {
  await openStudio(page);
  await openTaxonomy(page, 'Quiz');
  const progress = page.getByTestId('quiz-progress');
  const total = Number((await progress.textContent())!.match(/of (\d+)/)![1]);
  expect(total).toBeGreaterThanOrEqual(12);
  let expected = 0;
  for (let i = 0; i < total; i++) {
    await expect(progress).toHaveText(`Handoff ${i + 1} of ${total}`);
    // Alternate answers so some are right and some wrong: SC asked of the sender, or CG asked of the receiver.
    await page.keyboard.press(i % 2 === 0 ? '3' : '4');
    await page.keyboard.press(i % 2 === 0 ? 's' : 'r');
    await page.keyboard.press('Enter');
    const feedback = page.getByTestId('quiz-feedback');
    await expect(feedback).toBeVisible();
    const text = (await feedback.textContent()) ?? '';
    expected += (text.includes('Type: right') ? 1 : 0) + (text.includes('Whom: right') ? 1 : 0);
    await expect(page.getByTestId('quiz-score')).toHaveAttribute('data-score', String(expected));
    if (i === 0) await page.screenshot({ path: `${SHOTS}/quiz-feedback.png` });
    await page.keyboard.press('Enter');
  }
  await expect(page.getByTestId('quiz-result')).toContainText(`You scored ${expected} of ${total * 2}`);
  expect(expected).toBeGreaterThan(0);
  expect(expected).toBeLessThan(total * 2);
  await page.screenshot({ path: `${SHOTS}/quiz-result.png` });
  await page.getByRole('button', { name: 'Take it again' }).click();
  await expect(progress).toHaveText(`Handoff 1 of ${total}`);
  await expect(page.getByTestId('quiz-score')).toHaveAttribute('data-score', '0');
});

test.describe('against the test server', () => {
  let llm: LlmServer;
  let baseUrl = '';

  test.beforeAll(async () => {
    llm = await startLlmServer();
    baseUrl = llm.baseUrl;
  });

  test.afterAll(() => llm?.stop());

  test('the clarifier asks, the addressee answers, original and revised side by side, extra cost of the run', async ({ page }) => {
    skipWithoutShared(WHO_WHEN);
    const none = { content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 100, completion_tokens: 5 } };
    const script = {
      queue: [
        { content: '{"type":"DG","to_agent":"sender","question":"Which weekdays count as after work?"}', usage: { prompt_tokens: 400, completion_tokens: 20 } },
        { content: 'Monday to Friday, between 7 and 9 pm.', usage: { prompt_tokens: 200, completion_tokens: 10 } },
        { ...none, usage: { prompt_tokens: 420, completion_tokens: 10 } },
      ],
      fallback: none,
    };
    await llm.reset();
    await llm.script(script);

    await openStudio(page);
    await openTraceFiles(page, sharedTrace(WHO_WHEN));
    // An offline pass first: once the endpoint is set, its heuristic verdicts are asked again, not reused.
    await openTaxonomy(page, 'Edges & labels');
    await page.getByRole('button', { name: 'Run clarifier on all edges' }).click();
    await expect(page.getByTestId('clarifier-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Engines' }).click();
    await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
    await page.getByLabel('Base URL').fill(baseUrl);
    await page.getByLabel('Supervisor model').fill('test-model');
    await page.getByLabel('Clarifier model').fill('clarifier-model');
    await openTaxonomy(page, 'Edges & labels');
    await expect(page.getByTestId('clarifier-mode')).toContainText('Clarifier model “clarifier-model”');
    const edges = await page.getByTestId('edge-row').count();
    await expect(page.getByTestId('clarifier-redo')).toHaveText(`${edges} edges checked offline by the flagger will be asked again through the endpoint.`);
    await expect(page.getByRole('button', { name: 'Run clarifier on all edges' })).toBeVisible();
    // First the one edge alone (the call a live runner makes per handoff), then the rest of the run.
    await page.getByTestId('edge-row').first().click();
    const c = page.getByTestId('clarification');
    await expect(c.getByText('heuristic', { exact: true })).toBeVisible();
    await c.getByRole('button', { name: 'Clarify this edge again' }).click();
    await expect(c).toContainText('asked human (sender)');
    await page.getByRole('button', { name: `Resume (1 of ${edges} edges done)` }).click();
    await expect(page.getByTestId('clarifier-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });

    await expect(c.getByText('heuristic', { exact: true })).toHaveCount(0);
    await expect(c).toContainText('asked human (sender)');
    await expect(c.getByTestId('clarifier-question')).toContainText('Which weekdays count as after work?');
    await expect(c).toContainText('resolved in one shot: yes');
    await expect(c).toContainText('extra tokens: 1,060');
    const original = await c.getByTestId('original-message').textContent();
    const revised = await c.getByTestId('revised-message').textContent();
    expect(revised!.startsWith(original!)).toBe(true);
    expect(revised).toContain('human answered: Monday to Friday, between 7 and 9 pm.');
    // The three recorded calls: clarifier, the addressee played by the agents' model (falls back to the supervisor
    // model here), the second check.
    await c.getByText('Clarifier’s LLM exchange (3 calls)').click();
    const exchange = c.getByTestId('llm-exchange');
    await expect(exchange).toContainText('clarifier-model · 400 in + 20 out tokens');
    await expect(exchange).toContainText('test-model · 200 in + 10 out tokens');
    await expect(exchange).toContainText('Which weekdays count as after work?');
    await expect(exchange).toContainText('You are the person (human) who gave a team of AI agents the task');
    await c.getByText('Clarifier’s LLM exchange (3 calls)').click();
    await c.screenshot({ path: `${SHOTS}/clarification-endpoint.png` });

    const extra = 1060 + 105 * (edges - 1);
    const cost = page.getByTestId('extra-cost');
    await expect(cost).toContainText(`${extra.toLocaleString('en')} tokens of`);
    const runTokens = Number((await cost.textContent())!.match(/tokens of ([\d,]+)/)![1].replace(/,/g, ''));
    await expect(cost).toContainText(`${Math.round((10000 * extra) / runTokens) / 100}%`);
    await expect(page.getByTestId('clarifier-summary')).toContainText('100%');

    // The charts count the clarifier's ask and its one-shot resolution beside the paper's figures.
    await page.getByRole('tab', { name: 'Charts' }).click();
    await expect(page.locator('[data-testid="distribution-svg"] rect[data-series="clarifier"][data-type="DG"]')).toHaveAttribute('data-value', '100');
    await expect(page.locator('[data-testid="one-shot-svg"] rect[data-series="clarifier"][data-type="DG"]')).toHaveAttribute('data-value', '100');
    await expect(page.locator('[data-testid="distribution-svg"] rect[data-series="paper"][data-type="SC"]')).toHaveAttribute('data-value', '36.8');
    await page.screenshot({ path: `${SHOTS}/charts.png`, fullPage: true });
  });
});
