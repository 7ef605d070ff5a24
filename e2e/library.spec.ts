import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { fileCard, fileRuns, openStudio, openTraceFiles, sharedTrace, skipWithoutShared } from './fixtures.ts';

const TRAIL_TRACE = 'trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json';
const TRAIL_ANNOTATIONS = 'trail/annotations/3205fa0cb2135fe671bf7cd0e5a26151.json';
const WHO_AND_WHEN = 'who-and-when/algorithm-generated/1.json';
const GROUP_CHAT_SAMPLE = resolve(import.meta.dirname, '../public/samples/simulated-group-chat.session.json');

function watchForErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  return problems;
}

test('a TRAIL GAIA trace opens through the file input, in the worker, with its agents and steps', async ({ page }) => {
  skipWithoutShared(TRAIL_TRACE);
  const problems = watchForErrors(page);
  await openStudio(page);
  const [card] = await openTraceFiles(page, sharedTrace(TRAIL_TRACE));
  await expect(card).toBeVisible();
  const row = fileRuns(page, '3205fa0cb2135fe671bf7cd0e5a26151.json');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('run-agents')).toHaveText('manager, search_agent');
  // Rows of the step list, as `inspect` counts them (SPEC §7): the `Step N` spans of both agents (6 + 4 actions),
  // 8 planning steps and 1 model call outside any step.
  await expect(row.getByTestId('run-steps')).toHaveText('19');
  await expect(row.getByText('smolagents', { exact: false }).first()).toBeVisible();
  await expect(page.getByTestId('import-summary')).toHaveText(/^Opened 1 file · 1 run/);
  expect(problems).toEqual([]);
});

test('a folder of traces opens at once, subfolders included; files that are not traces are named and left out', async ({ page }) => {
  skipWithoutShared(TRAIL_TRACE, TRAIL_ANNOTATIONS, WHO_AND_WHEN);
  // A corpus folder as a person keeps one, made in the OS temp dir for the test (never in the repository).
  const root = mkdtempSync(join(tmpdir(), 'mas-folder-'));
  const folder = join(root, 'my-corpus');
  mkdirSync(join(folder, 'trail', 'annotations'), { recursive: true });
  copyFileSync(sharedTrace(WHO_AND_WHEN), join(folder, 'who-and-when-1.json'));
  copyFileSync(sharedTrace(TRAIL_TRACE), join(folder, 'trail', 'trace.json'));
  copyFileSync(sharedTrace(TRAIL_ANNOTATIONS), join(folder, 'trail', 'annotations', '3205fa0cb2135fe671bf7cd0e5a26151.json'));
  writeFileSync(join(folder, 'README.md'), '# notes about these runs\n');
  try {
    const problems = watchForErrors(page);
    await openStudio(page);
    await page.getByTestId('open-folder-input').setInputFiles(folder);
    await expect(page.getByTestId('import-progress')).toHaveCount(0, { timeout: 30_000 });
    // Loading ends with what it did; no banner about loading is left behind.
    await expect(page.getByTestId('import-summary')).toHaveText(/^Opened 3 files · 2 runs/);
    await expect(page.getByTestId('folder-note')).toContainText('1 other file in my-corpus left out (my-corpus/README.md)');
    await expect(page.getByTestId('folder-note')).not.toContainText('Opening');
    await expect(page.getByTestId('library-file')).toHaveCount(3);
    await expect(page.getByTestId('library-counts')).toHaveText('3 files, 2 runs');
    // Files are named with their folder path, so files with the same name in two folders are told apart.
    const trail = fileRuns(page, 'my-corpus/trail/trace.json');
    await expect(trail.getByTestId('run-file')).toHaveAttribute('title', 'my-corpus/trail/trace.json');
    await expect(trail.getByTestId('run-file')).toContainText('my-corpus/trail/');
    // The annotation file found its trace in the same folder: the TRAIL run carries the human error labels.
    await expect(trail.getByTestId('run-steps')).toHaveText('19');
    const labels = JSON.parse(readFileSync(sharedTrace(TRAIL_ANNOTATIONS), 'utf8')).errors.length as number;
    expect(labels).toBeGreaterThan(0);
    await expect(async () => expect(Number(await trail.getByTestId('run-annotations').textContent())).toBeGreaterThanOrEqual(labels)).toPass();
    expect(problems).toEqual([]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a run exported as OTLP/JSON downloads and opens again with the same tokens', async ({ page }, testInfo) => {
  skipWithoutShared(TRAIL_TRACE);
  const problems = watchForErrors(page);
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(TRAIL_TRACE));
  const row = fileRuns(page, '3205fa0cb2135fe671bf7cd0e5a26151.json');
  const tokens = await row.getByTestId('run-tokens').textContent();
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: /as OTLP\/JSON$/ }).click()]);
  expect(download.suggestedFilename()).toMatch(/\.otlp\.json$/);
  const path = testInfo.outputPath(download.suggestedFilename());
  await download.saveAs(path);
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] };
  expect(doc.resourceSpans[0].scopeSpans[0].spans.length).toBeGreaterThan(20);
  const [again] = await openTraceFiles(page, path);
  await expect(again).toContainText('OTLP');
  await expect(fileRuns(page, download.suggestedFilename()).getByTestId('run-tokens')).toHaveText(tokens!);
  expect(problems).toEqual([]);
});

test('a TRAIL annotation file opened later attaches to the trace already in the library', async ({ page }) => {
  skipWithoutShared(TRAIL_TRACE, TRAIL_ANNOTATIONS);
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(TRAIL_TRACE));
  const annotationsCell = fileRuns(page, '3205fa0cb2135fe671bf7cd0e5a26151.json').getByTestId('run-annotations');
  const before = Number(await annotationsCell.textContent());
  const expected = JSON.parse(readFileSync(sharedTrace(TRAIL_ANNOTATIONS), 'utf8')).errors.length as number;
  expect(expected).toBeGreaterThan(0);
  await page.getByTestId('open-file-input').setInputFiles({ name: 'annotations-3205.json', mimeType: 'application/json', buffer: readFileSync(sharedTrace(TRAIL_ANNOTATIONS)) });
  await expect(fileCard(page, 'annotations-3205.json')).toContainText('all attached');
  await expect(async () => expect(Number(await annotationsCell.textContent())).toBeGreaterThan(before)).toPass();
});

test('a Who&When chat log opens with its agents and estimated tokens marked', async ({ page }) => {
  skipWithoutShared(WHO_AND_WHEN);
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(WHO_AND_WHEN));
  const row = fileRuns(page, '1.json');
  await expect(row.getByTestId('run-agents')).toContainText('Excel_Expert');
  await expect(row.getByTestId('run-agents')).toContainText('Computer_terminal');
  await expect(row.getByTestId('run-steps')).toHaveText('6');
  await expect(row.getByTestId('run-tokens')).toContainText('estimated');
});

test('an estimate of millions of tokens shows whole in its cell at 1280×800: millions to one decimal with its badge, the exact count in its title', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  // A chat log of 100 long messages: about a million and a half estimated tokens over few steps.
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
  const text = (i: number) => Array.from({ length: 6000 }, (_, k) => `${words[(i + k) % words.length]}${k % 13}`).join(' ');
  const history = Array.from({ length: 100 }, (_, i) => ({ content: text(i), role: 'assistant', name: i % 2 ? 'Coder' : 'Planner' }));
  const file = testInfo.outputPath('long-messages.json');
  writeFileSync(file, JSON.stringify({ question: 'Write it all down.', history }));
  await openStudio(page);
  await openTraceFiles(page, file);
  const cell = fileRuns(page, 'long-messages.json').getByTestId('run-tokens');
  await expect(cell).toContainText('estimated');
  const exact = Number(/^About ([\d,]+) tokens$/.exec((await cell.getAttribute('title')) ?? '')?.[1].replaceAll(',', ''));
  expect(exact).toBeGreaterThanOrEqual(1_000_000);
  await expect(cell).toHaveText(`≈${(exact / 1_000_000).toFixed(1)}Mestimated`);
  // Nothing of it cut: the cell holds its content (a count of millions in full and its badge did not fit).
  expect(await cell.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
});

test('a bad file gives a precise, dismissible error naming the file, the format and the location', async ({ page }) => {
  const problems = watchForErrors(page);
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles([
    { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"trace_id": "x", "spans": [] "more": 1}') },
    { name: 'not-a-trace.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": "world"}') },
  ]);
  const alerts = page.getByRole('alert');
  await expect(alerts).toHaveCount(2);
  const broken = alerts.filter({ hasText: 'Could not open broken.json' });
  await expect(broken).toContainText('line 1, column 31');
  await expect(broken).toContainText('invalid JSON');
  const unknown = alerts.filter({ hasText: 'Could not open not-a-trace.json' });
  await expect(unknown).toContainText('not a recognised trace format');
  await expect(unknown).toContainText('none matched');
  await broken.getByRole('button', { name: /Dismiss/ }).click();
  await expect(alerts).toHaveCount(1);
  await expect(page.getByRole('heading', { name: 'MAS Replay Studio' })).toBeVisible();
  expect(problems).toEqual([]);
});

test('JSON pasted into the paste panel, and pasted onto the page, opens', async ({ page }) => {
  await openStudio(page);
  const text = readFileSync(GROUP_CHAT_SAMPLE, 'utf8');
  await page.getByRole('button', { name: 'Paste…' }).click();
  await page.getByTestId('paste-text').fill(text);
  await page.getByRole('button', { name: 'Open pasted text' }).click();
  const runs = fileRuns(page, 'pasted.json');
  await expect(runs).toHaveCount(1);
  await expect(runs).toContainText('Simulated group chat');

  // Ctrl+V outside a text field: a paste event carrying the text.
  const session = JSON.parse(text);
  session.runs[0].id = 'pasted-copy';
  await page.evaluate((json) => {
    const data = new DataTransfer();
    data.setData('text/plain', json);
    document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
  }, JSON.stringify(session));
  await expect(page.getByTestId('library-file')).toHaveCount(2);
});

/** Run a change and wait until the library has written it to IndexedDB. */
async function andSaved(page: Page, change: () => Promise<void>): Promise<void> {
  const status = page.getByTestId('persistence-status');
  await expect(status).toHaveAttribute('data-status', 'saved');
  const before = Number(await status.getAttribute('data-writes'));
  await change();
  await expect(async () => expect(Number(await status.getAttribute('data-writes'))).toBeGreaterThan(before)).toPass();
  await expect(status).toHaveAttribute('data-status', 'saved');
}

test('the library survives a reload', async ({ page }) => {
  await openStudio(page);
  const card = fileCard(page, 'simulated-group-chat.session.json');
  await andSaved(page, async () => {
    await page.getByTestId('open-file-input').setInputFiles(GROUP_CHAT_SAMPLE);
    await expect(card).toBeVisible();
  });
  await page.reload();
  const runs = fileRuns(page, 'simulated-group-chat.session.json');
  await expect(runs).toHaveCount(1);
  await expect(runs.getByTestId('run-agents')).toHaveText('user_proxy, planner, researcher, calculator, critic');
  await andSaved(page, () => card.getByRole('button', { name: /Remove/ }).click());
  await page.reload();
  await expect(page.getByText('The library is empty.')).toBeVisible();
});

test('the bundled samples load on ?samples=1, labelled simulated, and a run opens the run view', async ({ page }) => {
  await openStudio(page, '/?samples=1');
  const cards = page.getByTestId('library-file');
  await expect(cards).toHaveCount(3, { timeout: 30_000 });
  await expect(page.getByTestId('library-counts')).toHaveText('3 files, 63 runs');
  for (const card of await cards.all()) await expect(card.getByText('simulated', { exact: true }).first()).toBeVisible();
  await expect(fileRuns(page, 'simulated-gaia-corpus.session.json')).toHaveCount(60);
  const titles = await page.getByTestId('run-row').getByRole('button').filter({ hasNotText: /^(Export|OTLP)$/ }).allTextContents();
  expect(titles.length).toBe(63);
  for (const t of titles) expect(t).toMatch(/^Simulated/);
  await page.screenshot({ path: 'test-results/library-samples.png', fullPage: false });
  // Keyboard: focus a run title and press Enter.
  const showcase = fileRuns(page, 'simulated-gaia-showcase.session.json');
  await showcase.getByRole('button', { name: 'Simulated GAIA-style run: manager + search agent (baseline)', exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/[?&]run=sim-gaia-showcase-baseline/);
});

test('the first visit with an empty library loads the samples; later visits respect an emptied library', async ({ page }) => {
  await page.goto('/');
  const cards = page.getByTestId('library-file');
  await expect(cards).toHaveCount(3, { timeout: 30_000 });
  // The samples are written before they are removed (else the two changes cancel out in one debounced write).
  await expect.poll(async () => Number(await page.getByTestId('persistence-status').getAttribute('data-writes'))).toBeGreaterThan(0);
  await andSaved(page, async () => {
    for (let left = 3; left > 0; left--) {
      await cards.first().getByRole('button', { name: /Remove/ }).click();
      await expect(cards).toHaveCount(left - 1);
    }
  });
  await page.reload();
  await expect(page.getByText('The library is empty.')).toBeVisible();
  await expect(cards).toHaveCount(0);
  await page.getByRole('button', { name: 'Load samples' }).click();
  await expect(cards).toHaveCount(3, { timeout: 30_000 });
});

test('?src= opens a same-origin URL; a URL that cannot be fetched or read says why', async ({ page }) => {
  await openStudio(page, '/?src=/samples/simulated-group-chat.session.json');
  await expect(fileRuns(page, 'simulated-group-chat.session.json')).toHaveCount(1);
  // Nothing listens on port 9: the request itself fails.
  await page.goto('/?src=http://127.0.0.1:9/trace.json');
  // Another origin (another port): asked first (issue 17, item 6).
  await page.getByTestId('src-confirm').getByRole('button', { name: 'Load it' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Could not fetch http://127.0.0.1:9/trace.json' })).toContainText('the request failed');
  // The preview server answers unknown paths with the app's HTML: fetched, but not a trace.
  await page.goto('/?src=/samples/missing.session.json');
  await expect(page.getByRole('alert').filter({ hasText: 'Could not open missing.session.json' })).toContainText('not JSON');
});

test('screenshot: a real trace, samples and an error together', async ({ page }) => {
  skipWithoutShared(TRAIL_TRACE, WHO_AND_WHEN);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await openStudio(page, '/?samples=1');
  await expect(page.getByTestId('library-file')).toHaveCount(3, { timeout: 30_000 });
  await openTraceFiles(page, sharedTrace(TRAIL_TRACE), sharedTrace(WHO_AND_WHEN));
  await page.getByTestId('open-file-input').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"a": 1 "b": 2}') });
  await expect(page.getByRole('alert')).toHaveCount(1);
  await page.screenshot({ path: 'test-results/library-overview.png', fullPage: false });
});
