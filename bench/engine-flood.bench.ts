// An engine's results in a flood (ADR 0085, 0086, 0087): three engines run offline (their LLM-free defaults) in headless
// Chromium, through the studio's real UI: over a generated chat log, the rectifier (every agent message audited) and the
// edge clarifier (every handoff checked by its flagger); over a generated session of agent action steps, half of them
// failed, the supervisor (its filter fires on every failed step, and the heuristics intervene on each). Offline, results come as fast as the worker makes them, and each
// is kept in its run, written and shown. Before ADR 0085, a rectify pass over 2,000 messages took 231 s, with 748 long
// tasks; before ADR 0086, a clarifier pass over 20,000 messages took 13.7 s, with long tasks of up to 314 ms.
// Printed for each engine, with their targets:
//   - the pass, from the click to the progress bar's "complete", per result (audited message, handoff) ≤ 1 ms
//   - the longest main-thread task from the click to 1 s after the end (Long Tasks API, wall time)      ≤ 100 ms
// The rectifier needs the published indicator pool in ../shared (ADR 0085's figures use it); without it, says so and
// measures the clarifier only.
//
//   npx vite build --outDir <dir> && BENCH_DIST=<dir> npx tsx bench/engine-flood.bench.ts
//   BENCH_STEPS=…   messages in the chat log (default 20,000: ADR 0086; 5,000 passed with no long task then)
//   BENCH_ENGINES=rectify,clarifier,supervisor   some engines only
//   BENCH_PROFILE=tasks  sample the page's main thread from the click to the end and name what ran in each long task
//                        (build with `vite build --minify false` for readable names)
//   BENCH_PROFILE=pass   sample it over the whole pass (and the second after) and print its heaviest functions by self
//                        time (BENCH_PROFILE_TOTAL=1: by total time too)
//   BENCH_TRACE=<file.json>  a Chrome trace (page and workers) of each pass, from the click to "complete" (the engine's
//                        name is put before the file's extension)
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium-args.ts';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { appDist, printLongTaskProfile, printProfile, startTaskProfile } from './browser-import.bench.ts';
import { serve, writeChatLog } from './million.bench.ts';
import { writeResults, type Figure } from './results.ts';
import { closeBench, openedInLibrary, runWhenMain } from './library-page.ts';
import { whenShown } from './wait-in-page.ts';
import { failingSession } from './gen-failing-session.ts';

const STEPS = Number(process.env.BENCH_STEPS ?? 20_000);
const POOL = resolve(import.meta.dirname, '../../shared/indicator-pool/agentdropoutv2-math-pool.json');
const PER_RESULT_TARGET_MS = 1;
const LONG_TASK_TARGET_MS = 100;
const PROFILE_TASKS = process.env.BENCH_PROFILE === 'tasks';
/** BENCH_PROFILE=pass: the page's main thread sampled over the whole pass, its heaviest functions by self (and total) time. */
const PROFILE_PASS = process.env.BENCH_PROFILE === 'pass';
const TRACE = process.env.BENCH_TRACE;

const ENGINES = (process.env.BENCH_ENGINES ?? 'rectify,clarifier,supervisor').split(',');

/** One pass through the page: its figures (per result, longest task). */
async function timePass(page: Page, what: string, unit: string, results: number, prefix: string, start: () => Promise<void>): Promise<Figure[]> {
  const sampling = PROFILE_TASKS || PROFILE_PASS ? await startTaskProfile(page) : undefined;
  const browser = page.context().browser();
  if (TRACE && browser) {
    const path = TRACE.replace(/(\.[a-z]+)?$/, (ext) => `-${prefix}${ext}`);
    await browser.startTracing(page, { path, screenshots: false, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'blink.user_timing', 'toplevel', 'disabled-by-default-v8.gc'] });
  }
  const from = (await page.evaluate('performance.now()')) as number;
  await start();
  await page.waitForFunction((p) => document.querySelector(`[data-testid="${p}-progress"]`)?.getAttribute('data-status') === 'complete', prefix, { timeout: 900_000, polling: 'raf' });
  const passMs = ((await page.evaluate('performance.now()')) as number) - from;
  if (TRACE && browser) await browser.stopTracing();
  await page.waitForTimeout(1000);
  const longTasks = ((await page.evaluate('window.__longTasks')) as { start: number; duration: number }[]).filter((t) => t.start + t.duration > from);
  if (sampling && PROFILE_PASS) printProfile(await sampling.stop(), `main thread over the ${prefix} pass, self time (ms)`);
  else if (sampling) printLongTaskProfile(await sampling.stop(), sampling.at, longTasks, from);
  const tasks = longTasks.map((t) => t.duration);
  const longest = tasks.reduce((m, d) => (d > m ? d : m), 0);
  const perResult = passMs / results;
  return [
    {
      name: `${what}, per ${unit}`,
      value: perResult,
      unit: 'ms',
      target: `≤ ${PER_RESULT_TARGET_MS} ms per ${unit}`,
      pass: perResult <= PER_RESULT_TARGET_MS,
      note: `${passMs.toFixed(0)} ms from the click to "complete"`,
    },
    {
      name: `${what}: longest main-thread task`,
      value: longest,
      unit: 'ms',
      target: `≤ ${LONG_TASK_TARGET_MS} ms`,
      pass: longest <= LONG_TASK_TARGET_MS,
      note: `${tasks.length} long tasks${tasks.length ? `, the longest: ${[...tasks].sort((x, y) => y - x).slice(0, 12).map((d) => d.toFixed(0)).join(', ')}` : ''}`,
    },
  ];
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'mas-bench-flood-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const { server, base } = await serve(resolve(appDist(tmp)));
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    const file = join(tmp, 'group-chat.json');
    await writeChatLog(file, STEPS);
    const { page, id } = await openedInLibrary(browser, base, file);
    const chat = `${STEPS.toLocaleString('en')}-message chat log`;
    if (ENGINES.includes('rectify') && !existsSync(POOL)) notes.push(`rectify: the indicator pool is absent (${POOL}); not measured`);
    else if (ENGINES.includes('rectify')) {
      await page.goto(`${base}/?view=rectify&run=${encodeURIComponent(id)}`);
      await page.getByTestId('pool-file-input').setInputFiles(POOL);
      const poolAt = await whenShown(page, '[data-testid="pool-summary"][data-size="2000"]', { timeout: 60_000 });
      const picked = (await page.getByLabel('Run', { exact: true }).locator('option:checked').textContent()) ?? '';
      const audited = Number(/audits ([\d,]+) agent messages/.exec(picked)?.[1].replace(/,/g, '') ?? Number.NaN);
      // The cost estimate runs in the rectifier's worker when the view opens: the pass is timed once it is shown.
      const estimateMs = (await whenShown(page, '[data-testid="rectify-estimate"]:is([data-status="ready"], [data-status="error"])', { timeout: 600_000 })) - poolAt;
      await page.waitForTimeout(2000);
      const what = `offline rectify pass over a ${chat} (${audited.toLocaleString('en')} audited) in Chromium`;
      figures.push({ name: `Rectify view on a ${chat}: pool loaded → the pass's cost estimate shown`, value: estimateMs, unit: 'ms', target: 'reported', pass: true, note: 'prompts of at most 4,000 messages counted, the rest scaled (ADR 0086)' });
      figures.push(...(await timePass(page, what, 'audited message', audited, 'rectify', () => page.getByRole('button', { name: 'Rectify run' }).click())));
    }
    if (ENGINES.includes('clarifier')) {
      await page.goto(`${base}/?view=taxonomy&tab=edges&run=${encodeURIComponent(id)}`);
      const button = page.getByRole('button', { name: /^Run clarifier/ });
      await button.waitFor({ timeout: 120_000 });
      const edges = Number(/(\d[\d,]*) handoffs?/.exec((await page.getByLabel('Run', { exact: true }).locator('option:checked').textContent()) ?? '')?.[1].replace(/,/g, '') ?? Number.NaN);
      await page.locator('[data-testid="clarifier-estimate"]:is([data-status="ready"], [data-status="error"])').waitFor({ timeout: 600_000 });
      await page.waitForTimeout(2000);
      const what = `offline clarifier pass over a ${chat} (${edges.toLocaleString('en')} handoffs) in Chromium`;
      figures.push(...(await timePass(page, what, 'handoff', edges, 'clarifier', () => button.click())));
    }
    if (ENGINES.includes('supervisor')) {
      const session = join(tmp, 'failing-steps.json');
      writeFileSync(session, failingSession(STEPS));
      const opened = await openedInLibrary(browser, base, session);
      const sup = opened.page;
      await sup.goto(`${base}/?view=engines&run=${encodeURIComponent(opened.id)}`);
      const button = sup.getByRole('button', { name: 'Run supervisor' });
      await button.waitFor({ timeout: 120_000 });
      await sup.locator('[data-testid="supervisor-estimate"]:is([data-status="ready"], [data-status="error"])').waitFor({ timeout: 600_000 });
      await sup.waitForTimeout(2000);
      const what = `offline supervisor pass over ${STEPS.toLocaleString('en')} action steps, half of them failed, in Chromium`;
      figures.push(...(await timePass(sup, what, 'step', STEPS, 'supervisor', () => button.click())));
      const listed = (await sup.getByTestId('intervention-list').locator('h2, h3').first().textContent()) ?? '';
      notes.push(`supervisor: ${listed.trim()} once the pass ended`);
    }
    console.log(`engines' results in a flood, offline, in headless Chromium; ${cpus().length} cores, load average ${loadavg()[0].toFixed(2)}`);
    for (const n of notes) console.log(`  ${n}`);
    for (const f of figures) console.log(`  ${f.pass ? 'PASS' : 'FAIL'}  ${f.value.toFixed(f.value < 10 ? 2 : 0)} ms  target ${f.target}  ${f.name} (${f.note})`);
    writeResults('engine-flood', figures, { steps: STEPS, notes });
  } finally {
    await closeBench(server, browser, tmp);
  }
}

runWhenMain(import.meta.url, main);
