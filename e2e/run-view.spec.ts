// The run view on real traces: one playhead drives graph, timeline, step list, inspector and token charts; keys move
// it; deep links reopen the same step; loops are outlined. Screenshots of each view go to test-results/run-view/.
import { expect, test, type Page } from '@playwright/test';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const TRACES = fileURLToPath(new URL('../../shared/traces/', import.meta.url));
const TRAIL_TRACE = `${TRACES}trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json`;
const TRAIL_ANNOTATIONS = `${TRACES}trail/annotations/3205fa0cb2135fe671bf7cd0e5a26151.json`;
const WHO_AND_WHEN = `${TRACES}who-and-when/hand-crafted/1.json`;
const WHO_AND_WHEN_LOOPING = `${TRACES}who-and-when/hand-crafted/3.json`;
const SHOTS = 'test-results/run-view';

async function openRun(page: Page, files: string[]) {
  await page.goto('/');
  await page.getByTestId('open-file-input').setInputFiles(files);
  // The library may also list its bundled samples: take the run of the file just opened.
  const row = page.locator(`[data-testid="run-row"][data-file=${JSON.stringify(basename(files[0]))}]`).first();
  await expect(row).toBeVisible();
  await row.getByRole('button').first().click();
  await expect(page.getByTestId('run-view')).toBeVisible();
  await expect(page.getByTestId('graph-current')).toBeAttached();
}

/** Every view shows the same step; returns its id. */
async function expectViewsAgree(page: Page, position: number): Promise<string> {
  const inspector = page.getByTestId('inspector');
  await expect(inspector).toHaveAttribute('data-position', String(position));
  const stepId = (await inspector.getAttribute('data-step-id'))!;
  const agentId = (await inspector.getAttribute('data-agent-id'))!;
  const current = page.locator('[data-testid="step-list"] [aria-current="step"]');
  await expect(current).toHaveCount(1);
  await expect(current).toHaveAttribute('data-step-id', stepId);
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-current-step', stepId);
  await expect(page.getByTestId('timeline-playhead')).toHaveAttribute('data-step-id', stepId);
  await expect(page.getByTestId('graph-current')).toHaveAttribute('data-agent-id', agentId);
  const charts = page.getByTestId('token-charts');
  if ((await charts.count()) > 0) await expect(charts).toHaveAttribute('data-current-step', stepId);
  await expect(page.getByTestId('playhead-position')).toContainText(`step ${position + 1} /`);
  return stepId;
}

async function screenshotViews(page: Page, name: string) {
  await page.mouse.move(0, 0); // no hover tooltip in the pictures
  await page.screenshot({ path: `${SHOTS}/${name}-page.png` });
  for (const view of ['graph-panel', 'timeline-panel', 'token-charts-panel']) {
    await page.getByTestId(view).screenshot({ path: `${SHOTS}/${name}-${view}.png` });
  }
  await page.locator('section[aria-label="Steps"]').screenshot({ path: `${SHOTS}/${name}-step-list.png` });
  await page.getByTestId('inspector-panel').screenshot({ path: `${SHOTS}/${name}-inspector.png` });
}

test.use({ viewport: { width: 1600, height: 1000 } });

test.describe('run view on real traces', () => {
  test.skip(!existsSync(TRACES), `../shared/traces is absent (${TRACES}): real-trace run-view tests skipped`);

  test('TRAIL GAIA span tree: keys move one playhead through every view; a deep link reopens the step', async ({ page, context }) => {
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await openRun(page, existsSync(TRAIL_ANNOTATIONS) ? [TRAIL_TRACE, TRAIL_ANNOTATIONS] : [TRAIL_TRACE]);
    // Manager and managed agent, and the tool the managed agent calls.
    await expect(page.locator('[data-testid="graph"] [data-kind="agent"]')).toHaveCount(2);
    await expect(page.locator('[data-testid="graph"] [data-node-id="tool:inspect_file_as_text"]')).toHaveCount(1);
    await expectViewsAgree(page, 0);
    for (let i = 0; i < 3; i++) await page.keyboard.press('j');
    await expectViewsAgree(page, 3);
    await page.keyboard.press('ArrowLeft');
    await expectViewsAgree(page, 2);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('k');
    await expectViewsAgree(page, 2);
    await page.keyboard.press('End');
    const total = Number((await page.getByTestId('playhead-position').innerText()).split('/')[1].replace(/\D/g, ''));
    await expectViewsAgree(page, total - 1);
    await page.keyboard.press('Home');
    await expectViewsAgree(page, 0);

    // Next error: the inspector shows it.
    await page.keyboard.press('e');
    const errorPosition = Number(await page.getByTestId('inspector').getAttribute('data-position'));
    expect(errorPosition).toBeGreaterThan(0);
    await expectViewsAgree(page, errorPosition);
    await expect(page.getByTestId('inspector').getByText('error', { exact: true }).first()).toBeVisible();
    await page.getByTestId('inspector-error').first().scrollIntoViewIfNeeded();
    await page.getByTestId('inspector-panel').screenshot({ path: `${SHOTS}/trail-inspector-error-step.png` });

    if (existsSync(TRAIL_ANNOTATIONS)) {
      await page.keyboard.press('Home');
      await page.keyboard.press('a');
      await expect(page.getByTestId('inspector-annotations')).toBeVisible();
      await expect(page.getByTestId('inspector-annotations')).toContainText('TRAIL');
    }

    // Clicking a timeline block moves the playhead there.
    await page.keyboard.press('Home');
    const canvas = page.getByTestId('timeline-canvas');
    const box = (await canvas.boundingBox())!;
    await canvas.click({ position: { x: box.width * 0.6, y: 11 } });
    const clicked = Number(await page.getByTestId('inspector').getAttribute('data-position'));
    expect(clicked).toBeGreaterThan(0);
    await expectViewsAgree(page, clicked);

    await page.keyboard.press('j');
    const stepId = await expectViewsAgree(page, clicked + 1);
    // The URL names the step by its 1-based number (model/steps.ts).
    expect(stepId).not.toBe('');
    await expect(page).toHaveURL(new RegExp(`step=${clicked + 2}(&|$)`));
    await screenshotViews(page, 'trail');

    const again = await context.newPage();
    await again.goto(page.url());
    await expect(again.getByTestId('inspector')).toHaveAttribute('data-step-id', stepId);
    await expectViewsAgree(again, clicked + 1);
    expect(problems).toEqual([]);
  });

  test('Who&When hand-crafted chat log: a cycle between agents is outlined and reachable with l', async ({ page }) => {
    // hand-crafted/3: the orchestrator sends the web surfer back to scroll again and again (steps 4, 7, 11, …).
    await openRun(page, [WHO_AND_WHEN_LOOPING]);
    await expectViewsAgree(page, 0);
    const loopNodes = page.locator('[data-testid="graph"] [data-kind="agent"][data-loop="true"]');
    await expect(loopNodes).toHaveCount(2);
    await expect(loopNodes.locator('title')).toContainText([/Orchestrator/, /WebSurfer/]);
    await page.keyboard.press('l');
    await expectViewsAgree(page, 3);
    await expect(page.getByTestId('inspector')).toContainText('repeated call');
    await expect(page.getByTestId('inspector-agent')).toHaveText('Orchestrator');
    await page.keyboard.press('l');
    await expectViewsAgree(page, 6);
    await expect(page.getByTestId('inspector')).toContainText('repeated call');
  });

  test('Who&When hand-crafted chat log: routing lines alone are no loop; annotations, play and help by key', async ({ page }) => {
    await openRun(page, [WHO_AND_WHEN]);
    await expectViewsAgree(page, 0);
    // The orchestrator repeats "Next speaker WebSurfer", but a routing line never counts as a loop on its own.
    await expect(page.locator('[data-testid="graph"] [data-loop="true"]')).toHaveCount(0);
    await expect(page.getByTestId('loop-panel-count')).toHaveText(/^no loops\b/);
    // A chat log has no spans: once the worker has saved it, no empty span tree appears (it once showed "0 spans").
    const views = page.getByRole('navigation', { name: 'Views' });
    await views.getByRole('button', { name: 'Library' }).click();
    await page.getByTestId('persistence-status').and(page.locator('[data-status="saved"]')).waitFor();
    await views.getByRole('button', { name: 'Run' }).click();
    await expect(page.getByTestId('loop-panel-count')).toHaveText(/^no loops\b/);
    await expect(page.getByTestId('span-tree')).toHaveCount(0);
    await page.keyboard.press('l');
    await expectViewsAgree(page, 0);

    // Who&When's decisive step is a dataset annotation.
    await page.keyboard.press('Home');
    await page.keyboard.press('a');
    await expect(page.getByTestId('inspector-annotations')).toContainText('dataset');
    const annotated = Number(await page.getByTestId('inspector').getAttribute('data-position'));
    await expectViewsAgree(page, annotated);

    // Space plays, space again pauses.
    await page.keyboard.press('Home');
    await page.keyboard.press(' ');
    await expect(page.getByTestId('play-toggle')).toHaveText('Pause');
    await expect(page.getByTestId('inspector')).not.toHaveAttribute('data-position', '0', { timeout: 3000 });
    await page.keyboard.press(' ');
    await expect(page.getByTestId('play-toggle')).toHaveText('Play');
    const stopped = Number(await page.getByTestId('inspector').getAttribute('data-position'));
    await expectViewsAgree(page, stopped);

    await page.keyboard.press('j');
    await expectViewsAgree(page, stopped + 1);
    await screenshotViews(page, 'who-and-when');

    // ? lists the bindings; Escape closes.
    await page.keyboard.press('?');
    await expect(page.getByTestId('help-overlay')).toContainText('Next repeated call (loop)');
    await page.screenshot({ path: `${SHOTS}/help-overlay.png` });
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('help-overlay')).toHaveCount(0);
  });
});

test('an unknown run id says so and leads back to the library', async ({ page }) => {
  await page.goto('/?run=no-such-run&step=x');
  await expect(page.getByTestId('run-not-found')).toContainText('no-such-run');
  await page.getByRole('button', { name: 'Back to the library' }).click();
  await expect(page.getByTestId('library-page')).toBeVisible();
});

test('trace text is shown as text, never run as HTML', async ({ page }) => {
  const payload = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  const session = {
    format: 'mas-replay-session',
    version: 1,
    id: 'xss',
    runs: [
      {
        id: 'xss-run',
        title: 'payload run',
        sourceFormat: 'native',
        models: [],
        outcome: { status: 'unknown' },
        tags: {},
        agents: [{ id: 'a', name: payload }],
        agentRuns: [],
        steps: [
          { id: 's0', index: 0, kind: 'action', agentId: 'a', thought: payload, output: payload, observation: payload, toolCalls: [{ name: payload, arguments: payload }], usage: { input: 3, output: 2, total: 5 } },
          { id: 's1', index: 1, kind: 'message', agentId: 'a', output: payload, error: { message: payload }, raw: { [payload]: payload } },
        ],
        handoffs: [],
        annotations: [{ id: 'n', stepId: 's1', source: 'human', taxonomy: payload, code: payload, description: payload }],
        interventions: [],
        orphanSpans: 0,
      },
    ],
    engineSettings: {},
    llmCalls: [],
  };
  await page.goto('/');
  await page.getByTestId('open-file-input').setInputFiles({ name: 'xss.session.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(session)) });
  await page.locator('[data-testid="run-row"][data-file="xss.session.json"]').first().getByRole('button').first().click();
  await expect(page.getByTestId('inspector-output')).toContainText('<img src=x');
  await page.keyboard.press('j');
  await expect(page.getByTestId('inspector-annotations')).toContainText('<script>');
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.locator('[data-testid="run-view"] img, [data-testid="run-view"] script')).toHaveCount(0);
});

test('a run of one agent and one step says so in the singular, in its header and in its graph', async ({ page }) => {
  const trace = `${TRACES}langfuse/autogen-2025-06-06.json`;
  test.skip(!existsSync(trace), `${trace} is absent`);
  await openRun(page, [trace]);
  const header = page.getByTestId('run-step-counts').locator('..');
  await expect(header).toContainText('1 step · 1 agent · outcome');
  await expect(page.getByTestId('graph-panel')).toContainText('1 agent · 0 tools · 0 memory');
});

test("the token chart of a run of two steps marks whole steps on its axis (ticks at #0.2, #0.4, … before)", async ({ page }) => {
  const trace = `${TRACES}otlp/rag_earnings_agent.json`;
  test.skip(!existsSync(trace), `${trace} is absent`);
  await openRun(page, [trace]);
  const chart = page.getByTestId('token-chart-steps');
  await expect(chart).toBeVisible();
  const labels = await chart.locator('text').allTextContents();
  const stepLabels = labels.filter((t) => t === 'step 1' || t.startsWith('#'));
  expect(stepLabels).toEqual(['step 1', '#1', '#2']);
});

test('at 1280×800 the timeline’s and the graph’s toggles keep their own width beside a long hint (a real TRAIL run)', async ({ page }) => {
  test.skip(!existsSync(TRAIL_TRACE), `${TRAIL_TRACE} is absent`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openRun(page, [TRAIL_TRACE]);
  for (const name of ['Block size', 'Edge width']) {
    const group = page.getByRole('group', { name });
    await expect(group).toBeVisible();
    // The group clips what overflows it: squeezed by the hint beside it, it cut the padding of its last button.
    const { clipped, last } = await group.evaluate((g) => {
      const buttons = [...g.querySelectorAll('button')];
      const end = buttons.at(-1)!;
      return { clipped: g.scrollWidth - g.clientWidth, last: g.getBoundingClientRect().right - end.getBoundingClientRect().right };
    });
    expect(clipped, `${name}: nothing of its buttons hidden`).toBe(0);
    expect(last, `${name}: its last button ends inside it`).toBeGreaterThanOrEqual(0);
  }
});
