// Shared helpers for e2e tests: the real traces in ../shared/traces (skipped when absent) and opening files through
// the library's real file input, as a person would.
import { execFile } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';

export const SHARED_TRACES = resolve(import.meta.dirname, '../../shared/traces');
const ROOT = resolve(import.meta.dirname, '..');

/**
 * The command line's JSON output for `args`, run as a person runs it (bin/mas-replay.mjs: the bundle built on install
 * when it is current, else the sources through tsx, ~2.5 times slower to start). Asynchronous, so a test can start it
 * and open the page meanwhile.
 */
export function cliJson<T>(args: string[]): Promise<T> {
  return new Promise((done, fail) =>
    execFile(process.execPath, [resolve(ROOT, 'bin/mas-replay.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, MAS_REPLAY_CLI_NOTE: 'off' } }, (error, out) =>
      error ? fail(error) : done(JSON.parse(out) as T),
    ),
  );
}

/** Absolute path of a file under ../shared/traces (e.g. `trail/gaia/<id>.json`). */
export function sharedTrace(relative: string): string {
  return resolve(SHARED_TRACES, relative);
}

/** Skip the current test (call inside it) or the file (call at top level) when these shared traces are absent. */
export function skipWithoutShared(...relatives: string[]): void {
  const missing = relatives.filter((r) => !existsSync(sharedTrace(r)));
  test.skip(missing.length > 0, `../shared/traces is absent here (missing ${missing.join(', ')}); real-trace test skipped`);
}

/**
 * Open the studio at `path` without the first-visit sample load, so a test sees only what it opens itself.
 * (On a person's very first visit with an empty library the bundled samples are loaded.)
 */
export async function openStudio(page: Page, path = '/'): Promise<void> {
  await page.addInitScript(() => localStorage.setItem('mas-replay:visited', 'e2e'));
  await page.goto(path);
  await expect(page.getByRole('heading', { name: 'MAS Replay Studio' })).toBeVisible();
}

/** The rows of the library's runs table that came from a file (named as opened: a folder's files by their path in it). */
export function fileRuns(page: Page, fileName: string) {
  return page.locator(`[data-testid="run-row"][data-file=${JSON.stringify(fileName)}]`);
}

/**
 * Opens `file` through the Library's file input and then its one run: what the Library's row and the opened run say
 * about it (row text without the file name and saving state, step count and counts line, token panel text).
 */
export async function openedRunFacts(page: Page, file: string, name: string) {
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = fileRuns(page, name);
  await expect(row).toHaveCount(1, { timeout: 90_000 });
  // The row is read once it shows its file's name: in CI (a fresh clone, on a loaded machine) a streamed file's row was
  // read as "" the moment it was added, its text not yet laid out; the run it opened was right.
  await expect(row).toContainText(name, { timeout: 30_000 });
  const listed = (await row.innerText()).replace(name, '').replace(/saving…|saved/g, '').replace(/\s+/g, ' ').trim();
  await row.getByRole('button').first().click();
  const counts = page.getByTestId('run-step-counts');
  await expect(counts).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('token-charts-panel')).toBeVisible();
  return { listed, steps: await counts.getAttribute('data-steps'), counts: await counts.innerText(), tokens: await page.getByTestId('token-charts-panel').innerText() };
}

/** The size past which the studio reads a file as a stream, not whole (parse-input.ts MAX_FILE_BYTES). */
export const WHOLE_READ_LIMIT = 400 * 1024 * 1024;

/**
 * A trace too large to read whole opens into the run the same trace gives read whole: `small` is opened in `page`;
 * `big` (written from `pieces`, the same JSON with whitespace added) and then `zip(big's bytes)` each in a library of
 * their own. Both big files are removed after. Returns what `small`'s run shows (openedRunFacts).
 */
export async function expectStreamedAsWhole(page: Page, browser: Browser, files: { small: string; big: string; pieces: Iterable<string>; zipped: string; zip: (bytes: Buffer) => Buffer }) {
  const fd = openSync(files.big, 'w');
  try {
    for (const piece of files.pieces) writeSync(fd, piece);
  } finally {
    closeSync(fd);
  }
  try {
    expect(statSync(files.big).size).toBeGreaterThan(WHOLE_READ_LIMIT);
    await openStudio(page);
    const whole = await openedRunFacts(page, files.small, basename(files.small));
    expect(await openedInFreshLibrary(browser, files.big, basename(files.big))).toEqual(whole);
    writeFileSync(files.zipped, files.zip(readFileSync(files.big)));
    expect(await openedInFreshLibrary(browser, files.zipped, basename(files.zipped))).toEqual(whole);
    return whole;
  } finally {
    rmSync(files.big, { force: true });
    rmSync(files.zipped, { force: true });
  }
}

/** openedRunFacts in a fresh browser context: a library of its own (two files of the same trace would be one run). */
export async function openedInFreshLibrary(browser: Browser, file: string, name: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await openStudio(page);
    const facts = await openedRunFacts(page, file, name);
    await expect(page.getByTestId('failure-detail')).toHaveCount(0);
    return facts;
  } finally {
    await context.close();
  }
}

/** The library's entry for an opened file (in the file list: per-file actions, warnings, saved settings). */
export function fileCard(page: Page, fileName: string) {
  return page.getByTestId('library-file').filter({ has: page.getByRole('heading', { name: fileName, exact: true }) });
}

/**
 * Open trace files (absolute paths) through `<input data-testid="open-file-input">` on the library page and wait
 * until the import has finished. Goes to the library first when another view is showing. Returns the cards of the
 * files that opened (a file that failed shows in the error banners instead).
 */
export async function openTraceFiles(page: Page, ...paths: string[]) {
  const input = page.getByTestId('open-file-input');
  if ((await input.count()) === 0) await page.getByRole('button', { name: 'Library', exact: true }).click();
  await input.setInputFiles(paths);
  await expect(page.getByTestId('import-progress')).toHaveCount(0, { timeout: 30_000 });
  return paths.map((p) => fileCard(page, basename(p)));
}

/** Open one trace file and click its (first) run: the run view of that trace. */
export async function openTraceInRunView(page: Page, path: string): Promise<void> {
  await openTraceFiles(page, path);
  await fileRuns(page, basename(path)).first().getByRole('button').first().click();
  await expect(page).toHaveURL(/[?&]run=/);
  // The run view is loaded on first visit: wait until it is on screen, so keys reach its handlers.
  await expect(page.getByTestId('playhead-position')).toBeVisible();
}

/**
 * The colour an element is drawn in at (x, y) of its box, as `rgb(r, g, b)`: read from a screenshot of it, decoded in
 * the page (createImageBitmap of the PNG's bytes, so no data: URL meets the CSP). For what computed styles cannot
 * tell, e.g. the value part of a native progress bar.
 */
export async function pixelOf(page: Page, element: Locator, x: number, y: number): Promise<string> {
  const png = await element.screenshot({ animations: 'disabled' });
  return page.evaluate(
    async ({ bytes, x, y }) => {
      const bitmap = await createImageBitmap(new Blob([new Uint8Array(bytes)], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext('2d')!;
      context.drawImage(bitmap, 0, 0);
      const [r, g, b] = context.getImageData(x, y, 1, 1).data;
      return `rgb(${r}, ${g}, ${b})`;
    },
    { bytes: [...png], x, y },
  );
}

/**
 * An AG2 group chat of `messages` short messages among four agents (Who&When's `history` shape): the generated large
 * run of the tests that need one (a chat log has one step and one handoff per message).
 */
export function groupChat(messages: number): string {
  const names = ['Planner', 'Coder', 'Critic', 'Writer'];
  const history = Array.from({ length: messages }, (_, i) => `{"content":"step ${i}: noted item ${i % 97}","role":"assistant","name":"${names[i % names.length]}"}`);
  return `{"question":"Write the report.","history":[${history.join(',')}]}`;
}

/**
 * A generated group chat of `messages` messages (groupChat) written to `file` and opened in a freshly loaded studio;
 * resolves, once the library has saved it, to its run's row.
 */
export async function openGroupChat(page: Page, file: string, messages: number): Promise<Locator> {
  writeFileSync(file, groupChat(messages));
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = fileRuns(page, basename(file));
  await expect(row).toHaveCount(1, { timeout: 60_000 });
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  return row.first();
}

/**
 * Traces the main threads of the page's renderer from now on (Chromium's trace of its tasks, across reloads);
 * the function returned stops the trace and reads its longest task in **thread time**, the CPU the task used, in ms.
 * Not the Long Tasks API's wall time: on two cores shared with another test's browser, a thread waits to be scheduled
 * inside its tasks, and tasks of 12–19 ms of CPU measured 60–135 ms there (262 ms once in CI) — the test then timed
 * the machine, not the studio. The work a test guards against (a run copied or checked in one task) is CPU either way.
 *
 * Not counted either: the thread time of Chromium's start of a dedicated worker (`DedicatedWorker::ContinueStartInternal`,
 * ADR 0097). Its main-thread part spins in `sched_yield` until the new worker's thread runs: 0.3–2.5 ms (once 10.9)
 * when a test runs alone, but over 30 ms (up to 181 ms of CPU) in 8 of 92 watched windows beside another test, whose
 * browser holds the other core. It is the browser's wait, not the studio's work; the test's annotations show it when
 * it passes 30 ms.
 */
export async function watchLongTasks(page: Page): Promise<() => Promise<number>> {
  const browser = page.context().browser();
  if (!browser) throw new Error('watchLongTasks needs a launched browser (Chromium tracing)');
  // A worker's browser serves its next test too: a trace left running by a test that failed before reading it ends here.
  if (tracing.has(browser)) await browser.stopTracing();
  // `toplevel` alone leaves out most of the renderer's RunTask events; this category has them all, with thread time.
  await browser.startTracing(page, { categories: ['disabled-by-default-devtools.timeline'] });
  tracing.add(browser);
  // A task run at once could be missing from the trace: once in CI a 400 ms task read as 1.4 ms, and here 1 in 80 such
  // tasks beside three busy processes. With a short task of the page's before and after it, none in 280. Which end was
  // missed is not known (the renderer starting to record late, or its last task not yet written), so both are covered:
  // a task in the page and a short wait before the watched work, and again before the trace stops.
  await page.evaluate(SETTLE);
  return async () => {
    tracing.delete(browser);
    await page.evaluate(SETTLE).catch(() => {}); // a page closed or navigating: its trace is read as it is
    const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
    const mains = new Set<string>();
    for (const e of trace.traceEvents) if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain') mains.add(`${e.pid}:${e.tid}`);
    if (mains.size === 0) throw new Error('the trace holds no renderer main thread');
    // The worker starts of each main thread, by their place in it (a handful per page load).
    const starts = new Map<string, TraceEvent[]>();
    for (const e of trace.traceEvents) {
      const thread = `${e.pid}:${e.tid}`;
      if (e.ph !== 'X' || e.name !== WORKER_START || e.tdur === undefined || !mains.has(thread)) continue;
      const list = starts.get(thread);
      if (list) list.push(e);
      else starts.set(thread, [e]);
    }
    let longest = 0;
    let longestStart = 0;
    for (const e of trace.traceEvents) {
      const thread = `${e.pid}:${e.tid}`;
      if (e.ph !== 'X' || e.name !== 'RunTask' || e.tdur === undefined || !mains.has(thread)) continue;
      let waited = 0;
      for (const s of starts.get(thread) ?? []) if (s.ts >= e.ts && s.ts <= e.ts + (e.dur ?? 0)) waited += s.tdur ?? 0;
      longest = Math.max(longest, (e.tdur - waited) / 1000);
      longestStart = Math.max(longestStart, waited / 1000);
    }
    if (longestStart > 30) test.info().annotations.push({ type: 'worker start', description: `a task spent ${longestStart.toFixed(1)} ms of CPU in Chromium's start of a dedicated worker (not counted, ADR 0097)` });
    return longest;
  };
}

/** A task in the page, then one after a 50 ms wait (as a string: no bundler helpers). */
const SETTLE = 'new Promise((resolve) => setTimeout(resolve, 50))';

/** Chromium's main-thread part of a dedicated worker's start (see watchLongTasks). */
const WORKER_START = 'DedicatedWorker::ContinueStartInternal';

const tracing = new WeakSet<Browser>();

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  /** Start and (complete events) wall duration, in µs. */
  ts: number;
  dur?: number;
  /** Thread time of a complete event, in µs. */
  tdur?: number;
  args?: { name?: string };
}

/**
 * The keys of one store of the studio's library database, read in the page with the plain IndexedDB API (as a
 * string: no bundler helpers); [] when the store is not there.
 */
export async function libraryStoreKeys(page: Page, store: string): Promise<unknown[]> {
  const script = `new Promise((resolve, reject) => {
    const open = indexedDB.open('mas-replay-studio');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains(${JSON.stringify(store)})) { db.close(); resolve([]); return; }
      const req = db.transaction(${JSON.stringify(store)}).objectStore(${JSON.stringify(store)}).getAllKeys();
      req.onsuccess = () => { db.close(); resolve(req.result); };
      req.onerror = () => reject(req.error);
    };
  })`;
  return (await page.evaluate(script)) as unknown[];
}

/**
 * Rewrites stored run records of the studio's library database, as a bad write or another program would: `edit` is
 * given each record in key order with how many were changed before it, and returns it changed, or undefined to leave it.
 * Runs in the page as a string (no bundler helpers): `edit` must use nothing from outside itself. The keys changed.
 */
export async function editStoredRuns(page: Page, edit: (value: Record<string, unknown>, changed: number) => Record<string, unknown> | undefined): Promise<string[]> {
  const script = `new Promise((resolve, reject) => {
    const edit = ${edit.toString()};
    const open = indexedDB.open('mas-replay-studio');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction('runs', 'readwrite');
      const keys = [];
      const cursor = tx.objectStore('runs').openCursor();
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c) return;
        const value = edit(structuredClone(c.value), keys.length);
        if (value !== undefined) {
          keys.push(String(c.key));
          c.update(value);
        }
        c.continue();
      };
      tx.oncomplete = () => { open.result.close(); resolve(keys); };
      tx.onerror = () => reject(tx.error);
    };
  })`;
  return (await page.evaluate(script)) as string[];
}
