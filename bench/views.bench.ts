// Every view loaded afresh on a run of a million steps (issue 14 goal 2: "a million steps without a frozen page"), in
// headless Chromium through the studio's real UI. The 1M-message chat log of bench/million is opened once through the
// Library and saved; then each view is loaded by its address, as a link or a reload would open it, and the bench
// waits for what the view shows first and then a few seconds more (sliced builds, estimates in workers).
// Printed, per view, with its target:
//   - the longest main-thread task that ends after the stored Library has been read and checked (the page's
//     `mas-replay:library-read` mark, just before the views get the runs) and before the end of the wait (Long
//     Tasks API, wall time)                                                                            ≤ 100 ms
//   - from the address loaded to the view's first content                                              (reported)
//   - for a view with a playhead (run, stages, compare) or a current row (the taxonomy's edges): the
//     longest task while its keys move it                                                             ≤ 100 ms
//   - the edge list: a label saved on the current edge, the longest task until the run is saved      ≤ 100 ms
// The Library's own load is measured by bench/million ("Library loaded anew"); it is left out here, so that each
// figure is the view's. bench/million's engine visits open their views on a run view already built; these do not:
// the Stages view opened first built the whole run view in one task of 1.2–1.7 s, and the Fork tab listed a
// million options in a task of 7.7 s (both found by this sweep, 2026-11-30).
//
//   npx vite build --outDir <dir> && BENCH_DIST=<dir> npx tsx bench/views.bench.ts
//   BENCH_STEPS=…           messages in the chat log (default 1M)
//   BENCH_FILE=otlp         bench/million's flat OTLP/JSON Lines file of as many spans instead of the chat log
//   BENCH_VIEWS=run,stages  some views only (names as in VIEWS below)
//   BENCH_SETTLE_MS=…       how long each view is watched after its first content (default 4000)
//   BENCH_PROFILE=tasks     sample the page's main thread from its load event to the end of the wait and name what ran
//                           in each long task after the Library was read (build with `vite build --minify false`)
//   BENCH_HEAP=1            also the page's JS heap after a full collection (CDP) once each view has settled, Library
//                           included. Off by default: the collection also clears the page a visit leaves, and with it
//                           on, the Run and Compare views' long tasks (125–503 ms in full runs, the previous visit's
//                           garbage collected in the next one's window) were gone on the old build too (ADR 0089)
//   BENCH_TRACE=<file.json> a Chrome trace (page and workers) of each view's visit, from its address loaded to the end
//                           of the wait (the view's name is put before the file's extension)
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium-args.ts';
import { mkdtempSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { appDist, printLongTaskProfile, startTaskProfile } from './browser-import.bench.ts';
import { serve, writeChatLog, writeFlatOtlpLines } from './million.bench.ts';
import { writeResults, type Figure } from './results.ts';
import { closeBench, openedInLibrary, runWhenMain } from './library-page.ts';
import { whenShown } from './wait-in-page.ts';

const STEPS = Number(process.env.BENCH_STEPS ?? 1_000_000);
const OTLP = process.env.BENCH_FILE === 'otlp';
const WHAT = OTLP ? `${Number(process.env.BENCH_STEPS ?? 1_000_000).toLocaleString('en')}-span flat OTLP file` : `${Number(process.env.BENCH_STEPS ?? 1_000_000).toLocaleString('en')}-message chat log`;
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 4000);
const LONG_TASK_TARGET_MS = 100;
/** The page's mark once its stored Library is read and checked (src/store/library-db.ts, LIBRARY_READ_MARK). */
const LIBRARY_READ_MARK = 'mas-replay:library-read';

/** The presses of a view with a playhead: steps, jumps to the ends, back (and stages: `s`, `S`). */
const PLAYHEAD = ['ArrowRight*20', 'End', 'ArrowLeft*5', 'Home'];

/**
 * Each view: its address for a run (`id`), what it shows first (the Fork tab: the step picker, or why the run cannot be
 * forked), and, for a view with a playhead, the keys pressed once it has settled.
 */
const VIEWS: { name: string; label: string; query: (id: string) => string; ready: string; keys?: string[]; focus?: string }[] = [
  { name: 'library', label: 'Library', query: () => '', ready: '[data-testid="run-row"]' },
  { name: 'run', label: 'Run view', query: (id) => `?run=${id}`, ready: '[data-testid="step-list"] li', keys: PLAYHEAD },
  { name: 'stages', label: 'Stages', query: (id) => `?view=stages&run=${id}`, ready: '[data-testid="stages-view"] [data-testid="playhead-position"]', keys: [...PLAYHEAD, 's', 'S'] },
  { name: 'fork', label: 'Live: Fork', query: (id) => `?view=live&tab=fork&forkOf=${id}`, ready: '[data-testid="fork-panel"] :is([aria-label="Fork step"], [role="alert"])' },
  { name: 'compare', label: 'Compare (the run with itself)', query: (id) => `?view=compare&a=${id}&b=${id}`, ready: '[data-testid="compare-deltas"]', keys: PLAYHEAD },
  { name: 'corpus', label: 'Corpus', query: () => '?view=corpus', ready: '[data-testid="corpus-page"]' },
  { name: 'engines', label: 'Engines', query: (id) => `?view=engines&run=${id}`, ready: '[data-testid="supervisor-estimate"][data-status="ready"]' },
  { name: 'rectify', label: 'Rectify', query: (id) => `?view=rectify&run=${id}`, ready: '[data-testid="rectify-page"]' },
  { name: 'taxonomy', label: 'Taxonomy', query: (id) => `?view=taxonomy&run=${id}`, ready: '[data-testid="taxonomy-page"]' },
  { name: 'edges', label: 'Taxonomy: edges & labels', query: (id) => `?view=taxonomy&tab=edges&run=${id}`, ready: '[data-testid="edge-row"]', keys: ['ArrowDown*10', 'End', 'Home'], focus: '[data-testid="edge-row"]' },
];

interface Visit {
  name: string;
  label: string;
  readyMs: number;
  longestMs: number;
  tasks: { start: number; duration: number }[];
  /** The keys pressed (a view with a playhead): how many, and the long tasks from the first press to 1 s after the last. */
  keys?: { presses: number; ms: number; longestMs: number; tasks: number[] };
  /** The edge list: a label saved on the current edge, from the click to the label shown and to the run saved. */
  labelled?: { shownMs: number; savedMs: number; longestMs: number; tasks: number[] };
  /** The page's JS heap after a full collection, once the view has settled (before any key). */
  heapMB?: number;
  error?: string;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'mas-bench-views-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const { server, base } = await serve(resolve(appDist(tmp)));
  try {
    const file = join(tmp, OTLP ? 'flat-agent-otlp.jsonl' : 'group-chat.json');
    await (OTLP ? writeFlatOtlpLines(file, STEPS) : writeChatLog(file, STEPS));
    const { page, id } = await openedInLibrary(browser, base, file);
    const only = process.env.BENCH_VIEWS?.split(',');
    const visits: Visit[] = [];
    for (const view of VIEWS.filter((v) => !only || only.includes(v.name))) {
      const start = Date.now();
      try {
        const trace = process.env.BENCH_TRACE?.replace(/(\.[a-z]+)?$/, (ext) => `-${view.name}${ext}`);
        if (trace) await browser.startTracing(page, { path: trace, screenshots: false, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'blink.user_timing', 'toplevel', 'disabled-by-default-v8.gc'] });
        await page.goto(`${base}/${view.query(encodeURIComponent(id))}`);
        // Started at the load event: the views' long tasks come after the Library has been read, seconds later.
        const sampling = process.env.BENCH_PROFILE === 'tasks' ? await startTaskProfile(page) : undefined;
        const readyMs = (await whenShown(page, view.ready, { timeout: 120_000, clock: 'epoch' })) - start;
        // Some views show their frame before the Library has been read: the wait starts once it has.
        await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, LIBRARY_READ_MARK, { timeout: 120_000 });
        await page.waitForTimeout(SETTLE_MS);
        if (trace) await browser.stopTracing();
        const { tasks, loadedAt } = (await page.evaluate(`({ tasks: window.__longTasks, loadedAt: performance.getEntriesByName('${LIBRARY_READ_MARK}')[0]?.startTime })`)) as { tasks: { start: number; duration: number }[]; loadedAt?: number };
        if (loadedAt === undefined) throw new Error(`the page made no ${LIBRARY_READ_MARK} mark`);
        const after = tasks.filter((t) => t.start + t.duration > loadedAt);
        if (sampling) {
          console.log(`  ${view.label}:`);
          printLongTaskProfile(await sampling.stop(), sampling.at, after, 0);
        }
        // BENCH_HEAP=1: what the view holds, the page's heap after a full collection (the Library's runs included).
        let heapMB: number | undefined;
        if (process.env.BENCH_HEAP === '1') {
          const cdp = await page.context().newCDPSession(page);
          await cdp.send('HeapProfiler.collectGarbage');
          heapMB = ((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize / 1048576;
          await cdp.detach();
        }
        let keys: Visit['keys'];
        if (view.keys) {
          const from = (await page.evaluate('performance.now()')) as number;
          // A list takes its keys once a row of it is chosen (the click is in the window measured).
          if (view.focus) await page.locator(view.focus).first().click();
          let presses = 0;
          for (const k of view.keys) {
            const [key, times] = k.split('*');
            for (let i = 0; i < Number(times ?? 1); i++, presses++) await page.keyboard.press(key);
          }
          const ms = ((await page.evaluate('performance.now()')) as number) - from;
          await page.waitForTimeout(1000);
          const during = ((await page.evaluate('window.__longTasks')) as { start: number; duration: number }[]).filter((t) => t.start + t.duration > from).map((t) => t.duration);
          keys = { presses, ms, longestMs: during.reduce((m, d) => (d > m ? d : m), 0), tasks: during };
        }
        let labelled: Visit['labelled'];
        if (view.name === 'edges') {
          // A person labels the current edge: a new run (same handoffs, one more annotation) listed again and saved.
          const form = page.getByTestId('label-form');
          await form.getByRole('radio', { name: /^RD/ }).click();
          // The library's count of committed writes (library-db.ts): the label is saved once one more has committed.
          const writesBefore = Number(await page.evaluate('document.documentElement.dataset.libraryWrites'));
          const from = (await page.evaluate('performance.now()')) as number;
          await form.getByRole('button', { name: 'Save label' }).click();
          const shownMs = (await whenShown(page, '[data-testid="saved-label"]', { timeout: 60_000, text: 'Saved: RD' })) - from;
          await page.waitForFunction(
            (before) => Number(document.documentElement.dataset.libraryWrites) > before && document.documentElement.dataset.libraryStatus === 'saved',
            writesBefore,
            { timeout: 120_000 },
          );
          const savedMs = ((await page.evaluate('performance.now()')) as number) - from;
          await page.waitForTimeout(1000);
          const during = ((await page.evaluate('window.__longTasks')) as { start: number; duration: number }[]).filter((t) => t.start + t.duration > from).map((t) => t.duration);
          labelled = { shownMs, savedMs, longestMs: during.reduce((m, d) => (d > m ? d : m), 0), tasks: during };
        }
        visits.push({ name: view.name, label: view.label, readyMs, longestMs: after.reduce((m, t) => (t.duration > m ? t.duration : m), 0), tasks: after, keys, labelled, heapMB });
      } catch (e) {
        visits.push({ name: view.name, label: view.label, readyMs: Number.NaN, longestMs: Number.NaN, tasks: [], error: e instanceof Error ? e.message.split('\n')[0] : String(e) });
      }
    }
    const load = loadavg()[0];
    const mb = (statSync(file).size / 1048576).toFixed(0);
    const figures: Figure[] = visits.map((v) => ({
      name: `${v.label} loaded afresh on a ${WHAT}: longest main-thread task after the Library is loaded`,
      value: v.longestMs,
      unit: 'ms',
      target: `≤ ${LONG_TASK_TARGET_MS} ms`,
      pass: v.longestMs <= LONG_TASK_TARGET_MS,
      note: v.error ?? `first content ${v.readyMs.toFixed(0)} ms after the address was loaded; ${v.heapMB === undefined ? '' : `page heap after GC ${v.heapMB.toFixed(0)} MB; `}${v.tasks.length} long tasks${v.tasks.length ? `: ${v.tasks.map((t) => `${t.start.toFixed(0)}+${t.duration.toFixed(0)}`).join(', ')}` : ''}`,
    }));
    for (const v of visits) {
      if (!v.keys) continue;
      figures.push({
        name: `${v.label} on a ${WHAT}: longest main-thread task while ${v.name === 'edges' ? 'the current edge' : 'the playhead'} moved by key (${v.keys.presses} presses)`,
        value: v.keys.longestMs,
        unit: 'ms',
        target: `≤ ${LONG_TASK_TARGET_MS} ms`,
        pass: v.keys.longestMs <= LONG_TASK_TARGET_MS,
        note: `${v.keys.presses} presses in ${v.keys.ms.toFixed(0)} ms; ${v.keys.tasks.length} long tasks${v.keys.tasks.length ? `: ${v.keys.tasks.map((d) => d.toFixed(0)).join(', ')}` : ''}`,
      });
    }
    for (const v of visits) {
      if (!v.labelled) continue;
      figures.push({
        name: `Taxonomy: edges & labels on a ${WHAT}: longest main-thread task from a label saved until the run is saved`,
        value: v.labelled.longestMs,
        unit: 'ms',
        target: `≤ ${LONG_TASK_TARGET_MS} ms`,
        pass: v.labelled.longestMs <= LONG_TASK_TARGET_MS,
        note: `label shown ${v.labelled.shownMs.toFixed(0)} ms after the click, the run saved at ${v.labelled.savedMs.toFixed(0)} ms; ${v.labelled.tasks.length} long tasks${v.labelled.tasks.length ? `: ${v.labelled.tasks.map((d) => d.toFixed(0)).join(', ')}` : ''}`,
      });
    }
    console.log(`every view loaded afresh on a ${mb} MB ${WHAT} in headless Chromium; ${cpus().length} cores, load average ${load.toFixed(2)}`);
    for (const f of figures) console.log(`  ${f.pass ? 'PASS' : 'FAIL'}  ${Number.isNaN(f.value) ? '—' : `${f.value.toFixed(0)} ms`}  target ${f.target}  ${f.name} (${f.note})`);
    writeResults(OTLP ? 'views-otlp' : 'views', figures, { steps: STEPS, file: OTLP ? 'otlp' : 'chat', loadAverage: load, visits });
  } finally {
    await closeBench(server, browser, tmp);
  }
}

runWhenMain(import.meta.url, main);
