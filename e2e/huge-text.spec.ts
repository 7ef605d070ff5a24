// Huge step texts render lazily (issue 14 goal 3): a run whose steps carry a 10 MB single-line message, a 10 MB
// observation and a model call with a 10 MB prompt turn opens, and the playhead moves onto
// and off those steps, without a long task over 200 ms; the first screen of each text is shown at once, more on
// demand, and the whole text is reachable by download and copy.
// 200 ms, not the 100 ms of the goal: with the whole suite sharing two cores an unrelated 115 ms task was seen; the
// eager rendering this guards against cost 250–440 ms here (the benchmarks judge the 100 ms goal, on a quiet machine).
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { openStudio } from './fixtures.ts';

const TEN_MB = 10 * 1024 * 1024;
const LONG_TASK_MS = 200;
/** One line of words: no line break anywhere. */
const HUGE = `start:${'abcd efghi '.repeat(TEN_MB / 10)}:end`;

function session() {
  const step = (i: number, fields: Record<string, unknown>) => ({ id: `s${i}`, index: i, kind: 'action', agentId: i % 2 ? 'b' : 'a', usage: { input: 10, output: 5, total: 15 }, ...fields });
  return {
    format: 'mas-replay-session',
    version: 2,
    id: 'huge-text',
    runs: [
      {
        id: 'huge-run',
        title: 'huge texts',
        sourceFormat: 'native',
        models: [],
        outcome: { status: 'unknown' },
        tags: {},
        agents: [
          { id: 'a', name: 'alpha' },
          { id: 'b', name: 'beta' },
        ],
        agentRuns: [],
        steps: [
          { ...step(0, { output: HUGE }), kind: 'message', recipients: ['b'] },
          step(1, { thought: 'short', output: 'calling', toolCalls: [{ name: 'fetch', arguments: '{}' }], observation: HUGE }),
          // A model call whose prompt holds the message again: the conversation's turn shows its first screen too.
          { ...step(2, { output: 'done', input: [{ role: 'user', content: HUGE }] }), kind: 'llm' },
        ],
        handoffs: [{ id: 'h0', from: 'a', to: ['b'], kind: 'message', stepId: 's0', content: HUGE }],
        annotations: [],
        interventions: [],
        orphanSpans: 0,
      },
    ],
    engineSettings: {},
    llmCalls: [],
  };
}

// Its long-task bound is a timing on a shared 2-core machine: a task of 244 ms was seen once in a fresh-clone CI run
// (the next runs passed). A retry absorbs one such outlier; a real regression fails every attempt.
test.describe.configure({ retries: 2 });

test('a 10 MB single-line message opens at once and is reachable whole on demand', async ({ page, context }, testInfo) => {
  test.setTimeout(120_000);
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.__longTasks.push(entry.duration);
    }).observe({ type: 'longtask' });
  });
  // A file on disk, not a buffer: a 40 MB buffer crosses to the page as base64 (~4 s of both cores on a busy machine);
  // a path is handed to Chromium, which reads the file itself, as it does for a person's file.
  const file = testInfo.outputPath('huge.session.json');
  writeFileSync(file, JSON.stringify(session()));
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = page.locator('[data-testid="run-row"][data-file="huge.session.json"]').first();
  await expect(row).toBeVisible({ timeout: 60_000 });
  // Importing is measured elsewhere: from here on, what opening the run and moving the playhead cost.
  await page.waitForTimeout(1000);
  const longTasks = () => page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.splice(0));
  await longTasks();

  await row.getByRole('button').first().click();
  const output = page.getByTestId('inspector-output');
  await expect(output).toContainText('start:abcd efghi');
  // Only the first screen is in the page.
  expect((await page.getByTestId('inspector-panel').innerText()).length).toBeLessThan(20_000);
  await page.keyboard.press('j');
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-position', '1');
  await expect(page.getByTestId('inspector-observation')).toContainText('start:abcd efghi');
  await page.keyboard.press('j');
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-position', '2');
  await expect(page.getByTestId('inspector-prompt')).toContainText('start:abcd efghi');
  expect((await page.getByTestId('inspector-panel').innerText()).length).toBeLessThan(20_000);
  await page.keyboard.press('Home');
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-position', '0');
  await page.waitForTimeout(500);
  const opening = await longTasks();
  expect(opening.filter((d) => d > LONG_TASK_MS), `long tasks while opening and moving: ${opening.map((d) => d.toFixed(0)).join(', ')} ms`).toEqual([]);
  await expect(output.getByTestId('text-download')).toBeVisible();

  // More on demand: each "show more" adds a chunk, without a long task either.
  const shownLength = async () => (await output.locator('pre').innerText()).length;
  const before = await shownLength();
  await output.getByTestId('text-more').click();
  await expect.poll(shownLength).toBeGreaterThan(before + 10_000);
  await page.waitForTimeout(300);
  const more = await longTasks();
  expect(more.filter((d) => d > LONG_TASK_MS), `long tasks on "show more": ${more.map((d) => d.toFixed(0)).join(', ')} ms`).toEqual([]);

  // The whole text: downloaded as a file, and copied to the clipboard.
  const [download] = await Promise.all([page.waitForEvent('download'), output.getByTestId('text-download').click()]);
  const saved = readFileSync((await download.path())!, 'utf8');
  expect(saved.length).toBe(HUGE.length);
  expect(saved.endsWith(':end')).toBe(true);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await output.getByTestId('text-copy').click();
  const copied = await page.evaluate(async () => {
    const text = await navigator.clipboard.readText();
    return { length: text.length, end: text.slice(-4) };
  });
  expect(copied).toEqual({ length: HUGE.length, end: ':end' });
});
