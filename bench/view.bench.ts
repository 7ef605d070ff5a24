// Run-view benchmark (SPEC §8): a generated 100k-step run opened in headless Chromium; prints the time to first
// render, the loop analysis inside it (target < 200 ms) and the p95 time per playhead move (target < 16.7 ms, one
// frame).
//
//   npm run bench:view                 builds the app into a private directory (a concurrent `vite build` of dist/
//                                      cannot pull files from under it), then measures
//   npm run bench:view -- --no-build   uses the existing dist/ instead
//   npm run bench:view -- --steps 20000 --moves 400 --reference 1000 --agents 50
//
// The same measures are taken on a small reference run (1,000 steps) in the same browser, so the ratio says whether
// a move's cost grows with the run even when a busy machine inflates the absolute times.
// The bench serves dist/ and the generated session itself, and opens it through the library's `?src=` loader.
// "Per move" is measured in the page: from the key event to React's commit, its effects and a forced style and
// layout, which is the main-thread work a move costs; "frame interval" is the time between frames while moving
// one step per frame, which adds paint.
import { chromium, type Browser } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeResults } from './results.ts';
import { SESSION_FORMAT, SESSION_VERSION } from '../src/model/schema.ts';
import { LOOP_ANALYSIS_MEASURE } from '../src/features/run-view/run-view-model.ts';
import type { Run, Session, Step } from '../src/model/types.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const STEPS = option('steps', 100_000);
const MOVES = option('moves', 300);
const JUMPS = option('jumps', 30);
const REFERENCE_STEPS = option('reference', 1000);
/** 50 agents: the run view must stay legible on a team that large. */
const AGENTS = option('agents', 50);
const ROOT = resolve(import.meta.dirname, '..');
// BENCH_DIST: a build made by the caller (npm run bench builds once for every browser benchmark).
const PREBUILT = args.includes('--no-build') || process.env.BENCH_DIST !== undefined;
const DIST = process.env.BENCH_DIST ?? (PREBUILT ? join(ROOT, 'dist') : join(tmpdir(), 'mas-replay-bench-view'));
const RUN_ID = 'bench-generated';
/** The loop analysis must stay a small part of the run view's first render (issue 13 item 7). */
const LOOP_TARGET_MS = 200;

/** A deterministic synthetic run: a manager, managed agents, tools and memory, errors, labels and loops. */
export function generateRun(steps: number): Run {
  const runId = `${RUN_ID}-${steps}`;
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const agents: Run['agents'] = [{ id: 'manager', name: 'manager', role: 'plans and delegates' }];
  for (let i = 0; i < AGENTS - 1; i++) agents.push({ id: `agent-${i}`, name: `worker_${i}`, parentId: i < 4 ? 'manager' : `agent-${i % 4}` });
  const tools = ['web_search', 'visit_page', 'python', 'read_file', 'memory_recall', 'final_answer'];
  const t0 = Date.UTC(2026, 0, 1);
  let clock = t0;
  const list: Step[] = [];
  const annotations: Run['annotations'] = [];
  const handoffs: Run['handoffs'] = [];
  for (let i = 0; i < steps; i++) {
    const agent = agents[i % 7 === 0 ? 0 : 1 + Math.floor(random() * (AGENTS - 1))];
    const looping = i % 5000 >= 100 && i % 5000 < 130 && agent.id !== 'manager';
    const tool = tools[Math.floor(random() * tools.length)];
    const duration = 200 + Math.floor(random() * 3000);
    const input = 200 + Math.floor(random() * 4000);
    const output = 20 + Math.floor(random() * 400);
    const step: Step = {
      id: `s${i}`,
      index: i,
      kind: i % 7 === 0 ? 'message' : 'action',
      agentId: agent.id,
      number: i,
      name: i % 7 === 0 ? 'delegate' : `Step ${i}`,
      thought: `Step ${i}: thinking about ${tool}`,
      output: i % 7 === 0 ? `Please handle sub-task ${i}` : `Calling ${tool}`,
      toolCalls: i % 7 === 0 ? undefined : [{ name: looping ? 'visit_page' : tool, arguments: looping ? '{"url":"https://example.org/same"}' : `{"q":"query ${i}"}` }],
      observation: i % 7 === 0 ? undefined : `Result ${i} `.repeat(1 + Math.floor(random() * 40)),
      usage: { input, output, total: input + output },
      startTime: clock,
      endTime: clock + duration,
      error: random() < 0.01 ? { message: `Tool failed at step ${i}`, type: 'ToolError' } : undefined,
    };
    if (step.kind === 'message') {
      const to = agents[1 + Math.floor(random() * (AGENTS - 1))].id;
      step.recipients = [to];
      handoffs.push({ id: `h${i}`, from: agent.id, to: [to], kind: 'delegation', stepId: step.id, content: step.output ?? '' });
    }
    if (random() < 0.005) annotations.push({ id: `a${i}`, stepId: step.id, source: 'dataset', taxonomy: 'TRAIL', code: 'Tool Selection Error' });
    list.push(step);
    clock += duration + Math.floor(random() * 100);
  }
  return {
    id: runId,
    title: `Generated run with ${steps.toLocaleString()} steps (simulated)`,
    task: 'Synthetic benchmark run',
    sourceFormat: 'native',
    models: ['simulated'],
    outcome: { status: 'unknown' },
    tags: { dataset: 'bench' },
    startTime: t0,
    endTime: clock,
    agents,
    agentRuns: [],
    steps: list,
    handoffs,
    annotations,
    interventions: [],
    orphanSpans: 0,
    simulated: true,
  };
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Measurement {
  steps: number;
  firstRender: { views: number; graph: number };
  /** The loop analysis (detectLoops and the ledger's verdicts) inside the first render, from its User Timing entry. */
  loopAnalysis: number;
  step: number[];
  jump: number[];
  intervals: number[];
  position: string | null | undefined;
  /** Main-thread CPU time per move (mean), including the frame each move renders. */
  cpuPerStep: number;
  cpuPerJump: number;
  /** JS heap after a full GC: with the run open, and after all the moves (bounded memory: moving must not grow it). */
  heapOpenMb: number;
  heapAfterMovesMb: number;
  errors: string[];
}

/** Opens a generated run of `steps` steps in a fresh page and measures first render and playhead moves. */
async function measure(browser: Browser, base: string, steps: number, screenshot?: string): Promise<Measurement> {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  // tsx keeps function names with a `__name` helper that page.evaluate bodies would otherwise miss.
  await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const runId = `${RUN_ID}-${steps}`;
  const loadStart = performance.now();
  await page.goto(`${base}/?src=${encodeURIComponent(`${base}/bench/run-${steps}.session.json`)}`);
  // The library may also list its bundled samples: pick the generated run by id.
  await page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`).waitFor({ timeout: 300_000 });
  console.log(`${steps.toLocaleString()} steps: library fetched, parsed and listed it in ${((performance.now() - loadStart) / 1000).toFixed(1)} s (context, not the run view)`);

  // Time to first render: click → list, inspector, timeline and charts on screen; then the graph laid out.
  const firstRender = await page.evaluate(async (id) => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const t0 = performance.now();
    (document.querySelector(`[data-testid="run-row"][data-run-id="${id}"] button`) as HTMLButtonElement).click();
    const ready = (...ids: string[]) => ids.every((testId) => document.querySelector(`[data-testid="${testId}"]`));
    while (!ready('inspector', 'timeline', 'token-charts') || !document.querySelector('[data-testid="step-list"] [aria-current="step"]')) await frame();
    const views = performance.now() - t0;
    while (!ready('graph-current')) await frame();
    return { views, graph: performance.now() - t0 };
  }, runId);
  const loopAnalysis = await page.evaluate((name) => performance.getEntriesByName(name).at(-1)?.duration ?? NaN, LOOP_ANALYSIS_MEASURE);
  const opened = await page.getByTestId('playhead-position').innerText();
  if (!opened.includes(`/ ${steps.toLocaleString('en-US')}`)) throw new Error(`opened the wrong run: ${opened}`);

  // Per-move cost: each key press, React's commit and effects, and a forced style/layout. Main-thread CPU time
  // (Chromium's ThreadTime metric) is read around each phase as well: unlike wall time it hardly depends on how
  // busy the machine is.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const threadTime = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return (metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN) * 1000;
  };
  const pressAll = (keys: string[]) =>
    page.evaluate(async (list) => {
      const settle = () =>
        new Promise<void>((r) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => r();
          channel.port2.postMessage(0);
        });
      const times: number[] = [];
      for (const key of list) {
        const t0 = performance.now();
        window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
        await settle();
        void document.body.offsetHeight;
        times.push(performance.now() - t0);
        await new Promise((r) => requestAnimationFrame(r));
      }
      return times;
    }, keys);
  const stepKeys = Array.from({ length: MOVES }, (_, i) => (i % 4 === 3 ? 'k' : 'j'));
  const jumpKeys = Array.from({ length: JUMPS }, (_, i) => ['End', 'Home', 'e', 'l', 'a', 'E', 'L'][i % 7]);
  const heapMb = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const { metrics } = await cdp.send('Performance.getMetrics');
    return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN) / 1048576;
  };
  const heapOpenMb = await heapMb();
  const cpu0 = await threadTime();
  const step = await pressAll(stepKeys);
  const cpu1 = await threadTime();
  const jump = await pressAll(jumpKeys);
  const cpu2 = await threadTime();
  // Frame intervals while moving one step per frame (includes paint).
  const { intervals, position } = await page.evaluate(async (count) => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const out: number[] = [];
    let last = performance.now();
    for (let i = 0; i < count; i++) {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', bubbles: true }));
      await frame();
      const now = performance.now();
      out.push(now - last);
      last = now;
    }
    return { intervals: out, position: document.querySelector('[data-testid="inspector"]')?.getAttribute('data-position') };
  }, MOVES);
  const heapAfterMovesMb = await heapMb();
  const moves = { step, jump, intervals, position, cpuPerStep: (cpu1 - cpu0) / MOVES, cpuPerJump: (cpu2 - cpu1) / JUMPS, heapOpenMb, heapAfterMovesMb };
  if (screenshot) await page.screenshot({ path: screenshot });
  await context.close();
  return { steps, firstRender, loopAnalysis, ...moves, errors };
}

function report(m: Measurement) {
  const all = [...m.step, ...m.jump];
  const p95 = percentile(all, 95);
  const f = (v: number) => v.toFixed(1);
  console.log(`  ${m.steps.toLocaleString()} steps`);
  console.log(`    time to first render:   ${m.firstRender.views.toFixed(0)} ms (list, inspector, timeline, charts); graph laid out at ${m.firstRender.graph.toFixed(0)} ms`);
  console.log(`      of which loop analysis: ${m.loopAnalysis.toFixed(0)} ms`);
  console.log(`    playhead move p95:      ${f(p95)} ms over ${all.length} moves (${m.step.length} steps, ${m.jump.length} jumps)`);
  console.log(`      steps p50/p95/max:    ${f(percentile(m.step, 50))} / ${f(percentile(m.step, 95))} / ${f(Math.max(...m.step))} ms`);
  console.log(`      jumps p50/p95/max:    ${f(percentile(m.jump, 50))} / ${f(percentile(m.jump, 95))} / ${f(Math.max(...m.jump))} ms`);
  console.log(`    main-thread CPU per move (mean, incl. its frame): steps ${f(m.cpuPerStep)} ms, jumps ${f(m.cpuPerJump)} ms`);
  console.log(`    frame interval, one step per frame: p50 ${f(percentile(m.intervals, 50))} ms, p95 ${f(percentile(m.intervals, 95))} ms`);
  console.log(`    final position ${m.position}; page errors: ${m.errors.length ? m.errors.join(' | ') : 'none'}`);
  return p95;
}

async function main() {
  if (!PREBUILT) {
    console.log(`building the app into ${DIST} …`);
    const built = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn', '--outDir', DIST, '--emptyOutDir'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('vite build failed');
  } else if (!existsSync(join(DIST, 'index.html'))) {
    throw new Error('--no-build: dist/ has no build; run `npx vite build` first');
  }
  // The reference run is small: its per-move cost is what a move costs with nothing scaling with the step count.
  const sizes = [...new Set([REFERENCE_STEPS, STEPS])];
  const bodies = new Map<number, Buffer>();
  for (const size of sizes) {
    const generatedAt = performance.now();
    const session: Session = {
      format: SESSION_FORMAT,
      version: SESSION_VERSION,
      id: `bench-session-${size}`,
      title: 'run-view benchmark',
      simulated: true,
      runs: [generateRun(size)],
      engineSettings: {},
      llmCalls: [],
    };
    bodies.set(size, Buffer.from(JSON.stringify(session)));
    console.log(`generated ${size.toLocaleString()} steps (${(bodies.get(size)!.length / 1e6).toFixed(1)} MB) in ${(performance.now() - generatedAt).toFixed(0)} ms`);
  }

  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const session = /^\/bench\/run-(\d+)\.session\.json$/.exec(path);
    const body = session ? bodies.get(Number(session[1])) : undefined;
    if (body) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
      return;
    }
    let file = normalize(join(DIST, path));
    if (!file.startsWith(DIST) || !existsSync(file) || statSync(file).isDirectory()) file = join(DIST, 'index.html');
    res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'] });
  try {
    const reference = sizes.length > 1 ? await measure(browser, base, REFERENCE_STEPS) : undefined;
    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    const main = await measure(browser, base, STEPS, join(ROOT, 'test-results', 'bench-view.png'));
    const load = loadavg()[0];
    console.log(`\nrun view (headless Chromium, ${AGENTS} agents; ${cpus().length} cores, load average ${load.toFixed(1)}${load > cpus().length ? ' — machine busy, absolute times inflated' : ''})`);
    const refP95 = reference ? report(reference) : undefined;
    const p95 = report(main);
    console.log(`\n  time to first render (${STEPS.toLocaleString()} steps): ${main.firstRender.views.toFixed(0)} ms`);
    const loopPass = main.loopAnalysis < LOOP_TARGET_MS;
    console.log(`  loop analysis (${STEPS.toLocaleString()} steps, inside the first render): ${main.loopAnalysis.toFixed(0)} ms — target < ${LOOP_TARGET_MS} ms: ${loopPass ? 'PASS' : 'FAIL'}`);
    console.log(`  p95 per playhead move (${STEPS.toLocaleString()} steps): ${p95.toFixed(1)} ms — target < 16.7 ms: ${p95 < 16.7 ? 'met' : 'NOT met'}`);
    console.log(`  main-thread CPU per move (${STEPS.toLocaleString()} steps): ${main.cpuPerStep.toFixed(1)} ms per step, ${main.cpuPerJump.toFixed(1)} ms per jump`);
    if (refP95 !== undefined) {
      console.log(`  same measure on ${REFERENCE_STEPS.toLocaleString()} steps: ${refP95.toFixed(1)} ms (ratio ${(p95 / refP95).toFixed(2)}: near 1 means the move cost does not grow with the run)`);
    }
    const sessionMb = bodies.get(STEPS)!.length / 1048576;
    const heapRatio = main.heapAfterMovesMb / sessionMb;
    console.log(`  JS heap (after GC): ${main.heapOpenMb.toFixed(0)} MB with the run open, ${main.heapAfterMovesMb.toFixed(0)} MB after ${MOVES + JUMPS + MOVES} moves; the session file is ${sessionMb.toFixed(0)} MB (${heapRatio.toFixed(2)}×)`);
    console.log('  screenshot: test-results/bench-view.png');
    writeResults('view', [
      { name: `playhead move p95 on ${STEPS.toLocaleString('en')} steps in headless Chromium`, value: p95, unit: 'ms', target: '< 16.7 ms (one frame)', pass: p95 < 16.7, note: `first render ${main.firstRender.views.toFixed(0)} ms` },
      {
        name: `loop analysis on ${STEPS.toLocaleString('en')} steps in headless Chromium (inside the first render)`,
        value: main.loopAnalysis,
        unit: 'ms',
        target: `< ${LOOP_TARGET_MS} ms (our bound: a small part of the run view's first render)`,
        pass: loopPass,
        note: `${main.loopAnalysis.toFixed(0)} of ${main.firstRender.views.toFixed(0)} ms first render`,
      },
      ...(refP95 !== undefined
        ? [{ name: `move cost ${STEPS.toLocaleString('en')} vs ${REFERENCE_STEPS.toLocaleString('en')} steps (nothing scales with the step count)`, value: p95 / refP95, unit: '×', target: '≈ 1 (≤ 1.5, our bound)', pass: p95 / refP95 <= 1.5 }]
        : []),
      {
        name: `JS heap with ${STEPS.toLocaleString('en')} steps open after scrubbing, vs the session file`,
        value: heapRatio,
        unit: '×',
        target: '≤ 3 × file size (our bound, as for import)',
        pass: heapRatio <= 3,
        note: `${main.heapAfterMovesMb.toFixed(0)} MB after the moves, ${main.heapOpenMb.toFixed(0)} MB when opened; session ${sessionMb.toFixed(0)} MB`,
      },
    ]);
    if (main.errors.length || reference?.errors.length) process.exitCode = 1;
  } finally {
    await browser.close();
    server.close();
  }
}

// Runs when started as a script; importing the file (for generateRun) does nothing else.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
