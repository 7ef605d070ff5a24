// Run-view benchmark (SPEC §8, issue 14 goal 3): generated runs of 100k and 1M steps opened in headless Chromium;
// prints for each the time to first render, the loop analysis inside it (target < 200 ms) and the playhead's
// key → painted time (target p95 ≤ 16.7 ms, one frame) for real key presses.
//
//   npm run bench:view                 builds the app into a private directory (a concurrent `vite build` of dist/
//                                      cannot pull files from under it), then measures
//   npm run bench:view -- --no-build   uses the existing dist/ instead
//   npm run bench:view -- --steps 100000,1000000 --presses 200 --moves 300 --reference 1000 --agents 50
//   BENCH_PROFILE=jumps | steps        also sample the main thread during the synthetic jumps (or single steps) and
//                                      print its heaviest functions (names: BENCH_DIST=<a `vite build --minify false`>)
//   BENCH_TRACE=<file.json>            a Chrome trace of the largest run's synthetic jumps, invalidations included
//                                      (what each jump restyles, lays out and paints; chrome://tracing or Perfetto)
//   BENCH_TRACE_MOVES=steps            (with BENCH_TRACE) trace the single steps instead of the jumps
//   BENCH_CSS=<style sheet>            added to the page before the key → painted presses (a diagnostic: hide a panel
//                                      to see what its paint costs a press; the figures are then not the app's)
//   BENCH_TRACE_MOVES=presses          (with BENCH_TRACE) trace the real key presses of key → painted instead, and read
//                                      the trace: when each press's frame was drawn, and where its key was released
//   BENCH_TRACE_MOVES=presses-at-once  the same for the presses whose key is released at once (see keyToPaint)
//   BENCH_LAYERS=1                     print the run view's compositing layers (size, reason, element) after a move
//   BENCH_PRESSES_OUT=<file>           append each key → painted series (every press's key, handlers, frames and
//                                      painted times, as the page noted them) to <file>, a JSON array per line
//
// The same measures are taken on a small reference run (1,000 steps) in the same browser, so the ratio says whether
// a move's cost grows with the run even when a busy machine inflates the absolute times.
// The bench serves dist/ and the generated session itself (written step by step, so a million steps never exist as
// one array or one string in Node), and opens it through the library's `?src=` loader.
// "Key → painted" is what a person sees: from the key to the frame that shows the move (see keyToPaint). Its floor is
// measured too, in the same browser: the same presses on a page whose handler only changes one line of text (a key
// lands at any phase of the frame and waits for the next one, so even no work gives a p95 near one frame).
// A press is a key held until its move is painted, then released, as a keyboard does (ADR 0093); the same presses
// with the key released at once after the keydown are measured too and printed as a diagnostic (no person releases a
// key inside the frame it pressed, and a release landing there made the measure's own message late).
// Diagnostics beside it: "synthetic move" is the main-thread work of a dispatched key (commit, effects and a forced
// layout); "frame interval" is the time between frames while moving one step per frame.
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium-args.ts';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeResults, type Figure } from './results.ts';
import { printProfile, type CpuProfile } from './browser-import.bench.ts';
import { whenShown } from './wait-in-page.ts';
import { SESSION_FORMAT, SESSION_VERSION } from '../src/model/schema.ts';
import { LOOP_ANALYSIS_MEASURE } from '../src/features/run-view/run-view-model.ts';
import { hasWorkerTracePart, TRACE_PART_MARK } from '../src/features/run-view/trace-parts.ts';
import type { Run, Step } from '../src/model/types.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
/** `--steps 100000,1000000`: every size is measured in the same browser, after the reference run. */
const STEP_SIZES = (() => {
  const i = args.indexOf('--steps');
  return i >= 0 ? args[i + 1].split(',').map(Number) : [100_000, 1_000_000];
})();
const MOVES = option('moves', 300);
/** Real key presses (through the browser's input pipeline) timed from the key to the frame that paints the move. */
const PRESSES = option('presses', 200);
const JUMPS = option('jumps', 30);
const REFERENCE_STEPS = option('reference', 1000);
/**
 * BENCH_PROFILE=jumps | steps: a CPU profile of the main thread during the synthetic jumps (or single steps) of every
 * run measured. Its sampling costs CPU: the moves' CPU figures of that run are then not comparable.
 */
const PROFILE_MOVES = process.env.BENCH_PROFILE;
/** 50 agents: the run view must stay legible on a team that large. */
const AGENTS = option('agents', 50);
const ROOT = resolve(import.meta.dirname, '..');
// BENCH_DIST: a build made by the caller (npm run bench builds once for every browser benchmark).
const PREBUILT = args.includes('--no-build') || process.env.BENCH_DIST !== undefined;
const DIST = process.env.BENCH_DIST ?? (PREBUILT ? join(ROOT, 'dist') : join(tmpdir(), 'mas-replay-bench-view'));
const RUN_ID = 'bench-generated';
/** The loop analysis must stay a small part of the run view's first render (issue 13 item 7). */
const LOOP_TARGET_MS = 200;

/** The run without its steps; `generateSteps` fills `handoffs` and `annotations` as it goes. */
function runShell(steps: number, agents: Run['agents'], end: number): Run {
  return {
    steps: [],
    id: `${RUN_ID}-${steps}`,
    title: `Generated run with ${steps.toLocaleString()} steps (simulated)`,
    task: 'Synthetic benchmark run',
    sourceFormat: 'native',
    models: ['simulated'],
    outcome: { status: 'unknown' },
    tags: { dataset: 'bench' },
    startTime: Date.UTC(2026, 0, 1),
    endTime: end,
    agents,
    agentRuns: [],
    handoffs: [],
    annotations: [],
    interventions: [],
    orphanSpans: 0,
    simulated: true,
  };
}

function benchAgents(): Run['agents'] {
  const agents: Run['agents'] = [{ id: 'manager', name: 'manager', role: 'plans and delegates' }];
  for (let i = 0; i < AGENTS - 1; i++) agents.push({ id: `agent-${i}`, name: `worker_${i}`, parentId: i < 4 ? 'manager' : `agent-${i % 4}` });
  return agents;
}

/**
 * A deterministic synthetic run, one step at a time: a manager, managed agents, tools and memory, errors, labels and
 * loops. Handoffs and annotations are pushed into `shell` as their steps are made; `shell.endTime` is set at the end.
 * Above LEAN_ABOVE steps a step holds only what the views draw (agent, kind, tool, tokens, errors; no texts or
 * times), so a million steps stay a file of ~120 MB that a browser can open.
 */
function* generateSteps(steps: number, shell: Run): Generator<Step> {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const agents = shell.agents;
  const tools = ['web_search', 'visit_page', 'python', 'read_file', 'memory_recall', 'final_answer'];
  const lean = steps > LEAN_ABOVE;
  let clock = shell.startTime ?? 0;
  for (let i = 0; i < steps; i++) {
    const agent = agents[i % 7 === 0 ? 0 : 1 + Math.floor(random() * (AGENTS - 1))];
    const looping = i % 5000 >= 100 && i % 5000 < 130 && agent.id !== 'manager';
    const tool = tools[Math.floor(random() * tools.length)];
    const duration = 200 + Math.floor(random() * 3000);
    const input = 200 + Math.floor(random() * 4000);
    const output = 20 + Math.floor(random() * 400);
    const step: Step = lean
      ? {
          id: `s${i}`,
          index: i,
          kind: i % 7 === 0 ? 'message' : 'action',
          agentId: agent.id,
          output: i % 7 === 0 ? `Sub-task ${i}` : undefined,
          toolCalls: i % 7 === 0 ? undefined : [{ name: looping ? 'visit_page' : tool, arguments: looping ? 'same' : '' }],
          usage: { input, output, total: input + output },
          error: random() < 0.01 ? { message: `Failed at ${i}` } : undefined,
        }
      : {
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
      shell.handoffs.push({ id: `h${i}`, from: agent.id, to: [to], kind: 'delegation', stepId: step.id, content: lean ? '' : (step.output ?? '') });
    }
    if (random() < 0.005) shell.annotations.push({ id: `a${i}`, stepId: step.id, source: 'dataset', taxonomy: 'TRAIL', code: 'Tool Selection Error' });
    yield step;
    clock += duration + Math.floor(random() * 100);
  }
  shell.endTime = clock;
}

/** Above this many steps the generated steps are lean (a million steps with texts and times would be ~0.4 GB of JSON). */
const LEAN_ABOVE = 200_000;

/** A deterministic synthetic run (see generateSteps), as one object: for small runs and tests. */
export function generateRun(steps: number): Run {
  const shell = runShell(steps, benchAgents(), 0);
  shell.steps = [...generateSteps(steps, shell)];
  return shell;
}

/**
 * The session file of a generated run as a list of buffers, written step by step: no array of a million Step objects
 * and no string longer than V8 allows is ever built.
 */
export function generateSessionBody(steps: number): Buffer[] {
  const shell = runShell(steps, benchAgents(), 0);
  const chunks: Buffer[] = [];
  let pending: string[] = [];
  let pendingLength = 0;
  const push = (text: string) => {
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength > 1 << 20) flush();
  };
  const flush = () => {
    chunks.push(Buffer.from(pending.join('')));
    pending = [];
    pendingLength = 0;
  };
  const head = `{"format":${JSON.stringify(SESSION_FORMAT)},"version":${JSON.stringify(SESSION_VERSION)},"id":"bench-session-${steps}","title":"run-view benchmark","simulated":true,"engineSettings":{},"llmCalls":[],"runs":[{"steps":[`;
  push(head);
  let first = true;
  for (const step of generateSteps(steps, shell)) {
    push(first ? JSON.stringify(step) : `,${JSON.stringify(step)}`);
    first = false;
  }
  push('],');
  // The rest of the run's fields (handoffs and annotations are known now); "steps" came first.
  const { steps: _none, ...fields } = shell;
  const rest = JSON.stringify(fields);
  push(`${rest.slice(1)}]}`);
  flush();
  return chunks;
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
  /** Where the loop analysis ran: in the page's first render, or in the import worker before the run was opened. */
  loopWhere: 'page' | 'import worker';
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
  keyToPaint: KeyToPaint;
  /** The same presses with the key released at once after its keydown (a diagnostic: the measure before ADR 0093). */
  keyToPaintAtOnce: KeyToPaint;
  errors: string[];
}

/** Real key presses, each timed from the key event's time stamp to the end of the frame that paints the move. */
interface KeyToPaint {
  /**
   * Key → painted: from the key's time stamp to the vsync of the frame that shows the move — the first frame after the
   * handlers, one frame later for each frame interval its rendering overran.
   */
  latency: number[];
  /** The handlers' work: from the key's time stamp to the end of the run view's listener and React's synchronous render. */
  work: number[];
  /** The painting frame's own work: from its vsync to the end of its rendering (its rAF callbacks, style, layout, paint). */
  render: number[];
  /** Event Timing (PerformanceObserver 'event'): keydowns the browser itself reports as taking ≥ 24 ms to paint. */
  slowEvents: number;
  /** Event Timing entries seen for keydowns (only those ≥ 16 ms are reported by browsers). */
  reportedEvents: number;
  /** Per press: whether it was a jump (End, Home, next error…) rather than a single step; jumps are one press in ten. */
  jumps?: boolean[];
  /** Per press, in the page's clock: the key's time stamp, and the vsync time of the first frame after its handlers. */
  keys: number[];
  frameTimes: number[];
}

/**
 * BENCH_LAYERS=1: the run view's compositing layers after one move (what the compositor draws at each frame): size,
 * why Chromium made each a layer, and the element it paints when it has one.
 */
async function printLayers(page: Page, cdp: CDPSession): Promise<void> {
  interface Layer { layerId: string; parentLayerId?: string; width: number; height: number; drawsContent: boolean; backendNodeId?: number }
  let layers: Layer[] = [];
  const onChange = (event: { layers?: Layer[] }) => {
    if (event.layers) layers = event.layers;
  };
  cdp.on('LayerTree.layerTreeDidChange', onChange);
  await cdp.send('LayerTree.enable');
  await page.keyboard.press('j');
  await page.waitForTimeout(300);
  console.log(`  compositing layers after a move (${await page.title()}): ${layers.length}`);
  for (const layer of layers) {
    const reasons = await cdp.send('LayerTree.compositingReasons', { layerId: layer.layerId }).then((r) => r.compositingReasonIds ?? [], () => []);
    let element = '';
    if (layer.backendNodeId) {
      element = await cdp.send('DOM.describeNode', { backendNodeId: layer.backendNodeId }).then(
        ({ node }) => `${node.nodeName} ${(node.attributes ?? []).join(' ').slice(0, 80)}`,
        () => '',
      );
    }
    console.log(`    layer ${layer.layerId} in ${layer.parentLayerId ?? '—'}: ${layer.width}×${layer.height}${layer.drawsContent ? ', draws' : ''}; ${reasons.join(', ') || 'no reason given'}${element ? `; ${element}` : ''}`);
  }
  cdp.off('LayerTree.layerTreeDidChange', onChange);
  await cdp.send('LayerTree.disable');
}

/** A complete trace event ('X'), as Chrome writes them. */
interface TraceEvent { ph: string; name: string; ts: number; dur?: number; pid: number; tid: number; args?: { name?: string; data?: { type?: string } } }

/**
 * BENCH_TRACE_MOVES=presses | presses-at-once: reads the trace of a key → painted series and prints, for its presses,
 * when the display compositor finished drawing each press's frame (Display::DrawAndSwap, after the frame's
 * BeginMainFrame) counted from that frame's vsync (the begin-frame tick before it), the key → painted figure that gives
 * (the frame's vsync, one frame later per interval the draw overran), and whether each press's keyup was handled after
 * its frame's main-thread work, for the presses the page's message found late and for the others. A press that drew
 * nothing (Home at the first step) has no draw of its own within 50 ms and is left out of the draw figures.
 */
function readPressTrace(path: string, k: KeyToPaint): void {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents ?? [];
  const threads = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name) threads.set(`${e.pid}:${e.tid}`, e.args.name);
  const on = (thread: string, name: string, type?: string) =>
    events
      .filter((e) => e.ph === 'X' && e.name === name && threads.get(`${e.pid}:${e.tid}`) === thread && (type === undefined || e.args?.data?.type === type))
      .map((e) => ({ start: e.ts / 1000, end: (e.ts + (e.dur ?? 0)) / 1000 }))
      .sort((a, b) => a.start - b.start);
  const keydowns = on('CrRendererMain', 'EventDispatch', 'keydown');
  const keyups = on('CrRendererMain', 'EventDispatch', 'keyup');
  const frames = on('CrRendererMain', 'ProxyMain::BeginMainFrame');
  const ticks = on('VizCompositorThread', 'DelayBasedBeginFrameSource::OnTimerTick');
  const draws = on('VizCompositorThread', 'Display::DrawAndSwap');
  if (keydowns.length !== k.latency.length) {
    console.log(`    trace: ${keydowns.length} keydowns for ${k.latency.length} presses; not read`);
    return;
  }
  const firstFrom = <T extends { start: number }>(list: T[], t: number): T | undefined => list.find((x) => x.start >= t);
  const drawnAfter: number[] = [];
  const byDraw: number[] = [];
  const counts = { late: 0, lateReleasedAfter: 0, onTime: 0, onTimeReleasedAfter: 0 };
  for (const [i, down] of keydowns.entries()) {
    const frame = firstFrom(frames, down.end);
    if (!frame) continue;
    const vsync = ticks.filter((t) => t.start <= frame.start).at(-1)?.start ?? frame.start;
    const up = firstFrom(keyups, down.start);
    const releasedAfter = up !== undefined && up.start > frame.end;
    if (k.render[i] >= FRAME_INTERVAL) {
      counts.late++;
      if (releasedAfter) counts.lateReleasedAfter++;
    } else {
      counts.onTime++;
      if (releasedAfter) counts.onTimeReleasedAfter++;
    }
    const draw = firstFrom(draws, frame.end);
    if (!draw || draw.end - vsync > 50) continue;
    drawnAfter.push(draw.end - vsync);
    byDraw.push(k.frameTimes[i] - k.keys[i] + FRAME_INTERVAL * Math.floor((draw.end - vsync) / FRAME_INTERVAL));
  }
  const f = (v: number) => v.toFixed(1);
  console.log(`    trace of these presses: ${drawnAfter.length} drew a frame, its draw done p50/p95 ${f(percentile(drawnAfter, 50))} / ${f(percentile(drawnAfter, 95))} ms after the frame's vsync; key → drawn p50/p95 ${f(percentile(byDraw, 50))} / ${f(percentile(byDraw, 95))} ms`);
  console.log(`      keyup handled after the key's frame (its BeginMainFrame): ${counts.lateReleasedAfter} of the ${counts.late} presses whose message came a frame late, ${counts.onTimeReleasedAfter} of the ${counts.onTime} on time`);
}

/**
 * Waits until the library has written what was opened to IndexedDB (a fresh page: its first write), or says it
 * cannot (its status line is then a warning). The write is debounced, so "saved" alone is not enough.
 */
export async function waitForSaved(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const line = document.querySelector('[data-testid="persistence-status"]');
      if (!line) return true;
      return line.getAttribute('data-status') === 'saved' && Number(line.getAttribute('data-writes')) >= 1;
    },
    null,
    { timeout: 900_000, polling: 250 },
  );
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
  const loadStart = Date.now();
  await page.goto(`${base}/?src=${encodeURIComponent(`${base}/bench/run-${steps}.session.json`)}`);
  // The library may also list its bundled samples: pick the generated run by id.
  const listedAt = await whenShown(page, `[data-testid="run-row"][data-run-id="${runId}"]`, { timeout: 900_000, clock: 'epoch' });
  console.log(`${steps.toLocaleString()} steps: library fetched, parsed and listed it in ${((listedAt - loadStart) / 1000).toFixed(1)} s (context, not the run view)`);
  // The library saves the run in IndexedDB after listing it; until that is done its writes share the main thread
  // with the run view (issue 14 goal 6, measured by the import benchmarks): the playhead is measured after it.
  // The import worker's loop analysis, read from the worker as soon as its trace part has reached the page: the worker
  // is replaced once the run is written (ADR 0077), and its User Timing entries go with it.
  let workerLoop = Number.NaN;
  if (hasWorkerTracePart(steps)) {
    await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, TRACE_PART_MARK, { timeout: 900_000, polling: 50 });
    for (const worker of page.workers()) {
      const inWorker = await worker.evaluate((name) => performance.getEntriesByName(name).at(-1)?.duration ?? NaN, LOOP_ANALYSIS_MEASURE).catch(() => NaN);
      if (!Number.isNaN(inWorker)) workerLoop = inWorker;
    }
  }
  const saveStart = performance.now();
  await waitForSaved(page);
  console.log(`${steps.toLocaleString()} steps: saved in the library ${((performance.now() - saveStart) / 1000).toFixed(1)} s later`);

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
  // On the page, or in the import worker for a run whose trace part it computed (ADR 0043: 5,000–300,000 steps).
  let loopAnalysis = await page.evaluate((name) => performance.getEntriesByName(name).at(-1)?.duration ?? NaN, LOOP_ANALYSIS_MEASURE);
  let loopWhere: Measurement['loopWhere'] = 'page';
  if (Number.isNaN(loopAnalysis) && !Number.isNaN(workerLoop)) {
    loopAnalysis = workerLoop;
    loopWhere = 'import worker';
  }
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
  // BENCH_PROFILE=steps | jumps: the main thread sampled during those presses, its heaviest functions printed
  // (readable names on a build made with `vite build --minify false`, given as BENCH_DIST).
  const sampled = async (name: 'steps' | 'jumps', presses: () => Promise<number[]>): Promise<number[]> => {
    if (PROFILE_MOVES !== name) return presses();
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    const times = await presses();
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
    printProfile(profile, `main thread during ${times.length} ${name === 'steps' ? 'single steps' : 'jumps'} on ${steps.toLocaleString('en-US')} steps, self time (ms)`);
    return times;
  };
  // BENCH_TRACE=<file>: a Chrome trace of the synthetic jumps (BENCH_TRACE_MOVES=steps: single steps) of the largest
  // run (Layout, Paint, … per move).
  const tracing = process.env.BENCH_TRACE && steps === STEP_SIZES.reduce((a, b) => Math.max(a, b), 0);
  const traced = async (name: 'steps' | 'jumps', presses: () => Promise<number[]>): Promise<number[]> => {
    if (!tracing || (process.env.BENCH_TRACE_MOVES ?? 'jumps') !== name) return presses();
    await browser.startTracing(page, { path: process.env.BENCH_TRACE, screenshots: false, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.invalidationTracking', 'blink.user_timing', 'toplevel'] });
    const times = await presses();
    await browser.stopTracing();
    return times;
  };
  const step = await traced('steps', () => sampled('steps', () => pressAll(stepKeys)));
  const cpu1 = await threadTime();
  const jump = await traced('jumps', () => sampled('jumps', () => pressAll(jumpKeys)));
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
  // Key → painted, real key presses: mostly single steps, with jumps mixed in (a jump moves every view at once).
  const pressKeys = Array.from({ length: PRESSES }, (_, i) => (i % 10 === 9 ? ['End', 'Home', 'e', 'l', 'a', 'E', 'L'][(i / 10) % 7 | 0] : i % 4 === 3 ? 'k' : 'j'));
  // BENCH_CSS=<style sheet>: added to the run view before its key → painted presses (a diagnostic: hide a panel, and
  // see what its paint costs the presses). Its figures are then not the app's.
  if (process.env.BENCH_CSS) await page.addStyleTag({ content: process.env.BENCH_CSS });
  if (process.env.BENCH_LAYERS) await printLayers(page, cdp);
  // BENCH_TRACE_MOVES=presses | presses-at-once (with BENCH_TRACE): a Chrome trace of these presses, without
  // invalidation tracking (which would slow every move): what runs between each key and the frame that paints it.
  const pressed = async (release: Release): Promise<KeyToPaint> => {
    const traceIt = tracing && process.env.BENCH_TRACE_MOVES === (release === 'after-paint' ? 'presses' : 'presses-at-once');
    if (traceIt) await browser.startTracing(page, { path: process.env.BENCH_TRACE, screenshots: false, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'toplevel', 'v8.execute', 'disabled-by-default-devtools.timeline.frame', 'input', 'benchmark', 'cc', 'viz'] });
    const measured = await keyToPaint(page, pressKeys, release);
    if (traceIt) {
      await browser.stopTracing();
      readPressTrace(process.env.BENCH_TRACE!, measured);
    }
    measured.jumps = pressKeys.map((k) => k !== 'j' && k !== 'k');
    return measured;
  };
  const keyPaint = await pressed('after-paint');
  const keyPaintAtOnce = await pressed('at-once');
  const heapAfterMovesMb = await heapMb();
  const moves = { step, jump, intervals, position, cpuPerStep: (cpu1 - cpu0) / MOVES, cpuPerJump: (cpu2 - cpu1) / JUMPS, heapOpenMb, heapAfterMovesMb, keyToPaint: keyPaint, keyToPaintAtOnce: keyPaintAtOnce };
  if (screenshot) await page.screenshot({ path: screenshot });
  await context.close();
  return { steps, firstRender, loopAnalysis, loopWhere, ...moves, errors };
}

/** A page with nothing but a key handler that changes one line of text: what key → painted costs with no work. */
const FLOOR_PAGE = `<!doctype html><meta charset="utf-8"><title>floor</title><p id="line">0</p>
<script>let n = 0; window.addEventListener('keydown', () => { document.getElementById('line').textContent = String(++n); });</script>`;

/** Key → painted on FLOOR_PAGE with the presses the run view gets, in the same browser: the floor of the measure. */
async function measureFloor(browser: Browser, base: string): Promise<{ latency: number[]; atOnce: number[] }> {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
  await page.goto(`${base}/bench/floor.html`);
  const keys = Array.from({ length: PRESSES }, (_, i) => (i % 4 === 3 ? 'k' : 'j'));
  const { latency } = await keyToPaint(page, keys, 'after-paint');
  const { latency: atOnce } = await keyToPaint(page, keys, 'at-once');
  await context.close();
  return { latency, atOnce };
}

/** Milliseconds a seeded sequence of pauses between presses: keys land at every phase of the frame, as a person's do. */
function pauses(count: number): number[] {
  let seed = 7;
  return Array.from({ length: count }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 3400) / 100);
}

/**
 * When a press releases its key. 'after-paint': once the frame that paints the move has been noted (three frames after
 * the key), as a keyboard does: a person holds a key for tens of milliseconds at least, and a held key repeats its
 * keydowns without a keyup between them. 'at-once': the keyup is sent as soon as the keydown has been handled (the
 * measure before ADR 0093). Chromium then handles the keyup while the key's frame is being made (its style and layout
 * brought into the keyup's task, and the page's ordinary tasks held until the next frame once it lands after the
 * frame's commit): the measure's message came a frame late although the frame was drawn in time.
 */
type Release = 'after-paint' | 'at-once';

/**
 * Presses `keys` as real key events (CDP Input.dispatchKeyEvent: the browser's input pipeline, as a keyboard does)
 * at every phase of the frame, each released as `release` says. In the page, a requestAnimationFrame loop notes each
 * frame's vsync time; a capture listener notes the key's time stamp, a listener after the run view's notes when the
 * handlers (and React's synchronous render) are done; a message posted from the first frame after that is delivered
 * once the frame's style, layout and paint are done. Event Timing ('event' entries) is read alongside: the browser's
 * own count of keydowns whose next paint came 24 ms or more after the key (it reports none under 16 ms). The page's
 * listeners are installed once; a later call starts a new series.
 */
async function keyToPaint(page: Page, keys: string[], release: Release): Promise<KeyToPaint> {
  await page.evaluate(() => {
    interface Press { key: number; handled: number; frames: { ts: number; at: number }[]; painted: number; before: { ts: number; at: number } }
    interface Series { presses: Press[]; slow: number; reported: number }
    const holder = window as unknown as { __keyPaint?: Series };
    if (holder.__keyPaint) {
      holder.__keyPaint = { presses: [], slow: 0, reported: 0 };
      return;
    }
    holder.__keyPaint = { presses: [], slow: 0, reported: 0 };
    let last = { ts: 0, at: 0 };
    let open: Press[] = [];
    const loop = (ts: number) => {
      const frame = { ts, at: performance.now() };
      for (const p of open) {
        p.frames.push(frame);
        if (p.frames.length === 1) {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => (p.painted = performance.now());
          channel.port2.postMessage(0);
        }
      }
      open = open.filter((p) => p.frames.length < 3);
      last = frame;
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
    let current: Press | undefined;
    window.addEventListener('keydown', (event) => {
      current = { key: event.timeStamp, handled: 0, frames: [], painted: 0, before: last };
      holder.__keyPaint!.presses.push(current);
    }, { capture: true });
    window.addEventListener('keydown', () => {
      if (!current) return;
      current.handled = performance.now();
      open.push(current);
    });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.name !== 'keydown') continue;
        holder.__keyPaint!.reported++;
        if (entry.duration >= 24) holder.__keyPaint!.slow++;
      }
    }).observe({ type: 'event', durationThreshold: 16, buffered: false } as PerformanceObserverInit);
  });
  const wait = pauses(keys.length);
  for (let i = 0; i < keys.length; i++) {
    await page.keyboard.down(keys[i]);
    if (release === 'at-once') await page.keyboard.up(keys[i]);
    await page.waitForFunction((n) => ((window as unknown as { __keyPaint: { presses: { frames: unknown[] }[] } }).__keyPaint.presses[n]?.frames.length ?? 0) >= 3, i, { polling: 5 });
    if (release === 'after-paint') await page.keyboard.up(keys[i]);
    await new Promise((r) => setTimeout(r, wait[i]));
  }
  await page.waitForTimeout(200);
  const raw = await page.evaluate(() => (window as unknown as { __keyPaint: unknown }).__keyPaint) as { presses: { key: number; handled: number; frames: { ts: number; at: number }[]; painted: number; before: { ts: number; at: number } }[]; slow: number; reported: number };
  // BENCH_PRESSES_OUT=<file.json>: every press as the page noted it (key, handlers done, the frames after it, painted).
  if (process.env.BENCH_PRESSES_OUT) appendFileSync(process.env.BENCH_PRESSES_OUT, `${JSON.stringify(raw.presses)}\n`);
  // Frame time stamps are vsync times: the first frame after the handlers is the one that can show the move. It shows
  // it on time when its style, layout, paint and commit end within that frame; each frame interval it overruns
  // pushes the move one frame later, as a person sees it.
  const latency = raw.presses.map((p) => {
    const frame = p.frames[0];
    return frame.ts - p.key + FRAME_INTERVAL * Math.floor(Math.max(0, p.painted - frame.ts) / FRAME_INTERVAL);
  });
  return {
    latency,
    work: raw.presses.map((p) => p.handled - p.key),
    render: raw.presses.map((p) => p.painted - p.frames[0].ts),
    slowEvents: raw.slow,
    reportedEvents: raw.reported,
    keys: raw.presses.map((p) => p.key),
    frameTimes: raw.presses.map((p) => p.frames[0].ts),
  };
}

/** One display refresh at 60 Hz. */
const FRAME_INTERVAL = 1000 / 60;

/** The goal (issue 14 goal 3): key → painted within one frame at the 95th percentile. */
const FRAME_MS = 16.7;

function report(m: Measurement) {
  const all = [...m.step, ...m.jump];
  const f = (v: number) => v.toFixed(1);
  const k = m.keyToPaint;
  const p95 = percentile(k.latency, 95);
  console.log(`  ${m.steps.toLocaleString()} steps`);
  console.log(`    time to first render:   ${m.firstRender.views.toFixed(0)} ms (list, inspector, timeline, charts); graph laid out at ${m.firstRender.graph.toFixed(0)} ms`);
  console.log(m.loopWhere === 'page' ? `      of which loop analysis: ${m.loopAnalysis.toFixed(0)} ms` : `      loop analysis: ${m.loopAnalysis.toFixed(0)} ms in the import worker, before the run was opened (not in the first render)`);
  console.log(`    key → painted (${k.latency.length} real presses): p50 ${f(percentile(k.latency, 50))} ms, p95 ${f(p95)} ms, max ${f(Math.max(...k.latency))} ms — target p95 ≤ ${FRAME_MS} ms: ${p95 <= FRAME_MS ? 'PASS' : 'FAIL'}`);
  console.log(`      key → handlers done p50/p95: ${f(percentile(k.work, 50))} / ${f(percentile(k.work, 95))} ms; painting frame, vsync → rendered p50/p95: ${f(percentile(k.render, 50))} / ${f(percentile(k.render, 95))} ms; Event Timing: ${k.slowEvents} of ${k.latency.length} keydowns ≥ 24 ms (${k.reportedEvents} reported ≥ 16 ms)`);
  if (k.jumps) {
    const of = (jump: boolean) => k.latency.filter((_, i) => k.jumps![i] === jump);
    const steps = of(false);
    const jumps = of(true);
    console.log(`      single steps (${steps.length}) p50/p95: ${f(percentile(steps, 50))} / ${f(percentile(steps, 95))} ms; jumps (${jumps.length}) p50/p95: ${f(percentile(jumps, 50))} / ${f(percentile(jumps, 95))} ms`);
  }
  const once = m.keyToPaintAtOnce;
  console.log(`      the same presses with each key released at once (the measure before ADR 0093, a diagnostic): p50 ${f(percentile(once.latency, 50))} ms, p95 ${f(percentile(once.latency, 95))} ms; painting frame p95 ${f(percentile(once.render, 95))} ms; Event Timing: ${once.slowEvents} of ${once.latency.length} keydowns ≥ 24 ms (${once.reportedEvents} reported ≥ 16 ms)`);
  console.log(`    synthetic move (dispatch → commit, effects, forced layout) p95: ${f(percentile(all, 95))} ms (${m.step.length} steps, ${m.jump.length} jumps)`);
  console.log(`      steps p50/p95/max:    ${f(percentile(m.step, 50))} / ${f(percentile(m.step, 95))} / ${f(Math.max(...m.step))} ms`);
  console.log(`      jumps p50/p95/max:    ${f(percentile(m.jump, 50))} / ${f(percentile(m.jump, 95))} / ${f(Math.max(...m.jump))} ms`);
  console.log(`    main-thread CPU per move (mean, incl. its frame): steps ${f(m.cpuPerStep)} ms, jumps ${f(m.cpuPerJump)} ms`);
  console.log(`    frame interval, one step per frame: p50 ${f(percentile(m.intervals, 50))} ms, p95 ${f(percentile(m.intervals, 95))} ms`);
  console.log(`    JS heap (after GC): ${m.heapOpenMb.toFixed(0)} MB with the run open, ${m.heapAfterMovesMb.toFixed(0)} MB after the moves`);
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
  const sizes = [...new Set([REFERENCE_STEPS, ...STEP_SIZES])];
  const bodies = new Map<number, Buffer[]>();
  const bytes = (size: number) => bodies.get(size)!.reduce((sum, b) => sum + b.length, 0);
  for (const size of sizes) {
    const generatedAt = performance.now();
    bodies.set(size, generateSessionBody(size));
    console.log(`generated ${size.toLocaleString()} steps (${(bytes(size) / 1e6).toFixed(1)} MB) in ${(performance.now() - generatedAt).toFixed(0)} ms`);
  }

  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const session = /^\/bench\/run-(\d+)\.session\.json$/.exec(path);
    if (path === '/bench/floor.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(FLOOR_PAGE);
      return;
    }
    const body = session ? bodies.get(Number(session[1])) : undefined;
    if (body) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes(Number(session![1])) });
      for (const chunk of body) res.write(chunk);
      res.end();
      return;
    }
    let file = normalize(join(DIST, path));
    if (!file.startsWith(DIST) || !existsSync(file) || statSync(file).isDirectory()) file = join(DIST, 'index.html');
    res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    const loads: number[] = [];
    const measured: Measurement[] = [];
    for (const size of sizes) {
      measured.push(await measure(browser, base, size, size === STEP_SIZES[0] ? join(ROOT, 'test-results', 'bench-view.png') : undefined));
      loads.push(loadavg()[0]);
    }

    const floor = await measureFloor(browser, base);
    loads.push(loadavg()[0]);

    console.log(`\nrun view (headless Chromium, ${AGENTS} agents; ${cpus().length} cores, load average while measuring ${loads.map((l) => l.toFixed(1)).join(', ')}${Math.max(...loads) > cpus().length ? ' — machine busy, absolute times inflated' : ''})`);
    const p95s = measured.map(report);
    const refP95 = p95s[0];
    console.log('');
    const figures: Figure[] = [];
    for (const [i, m] of measured.entries()) {
      if (m.steps === REFERENCE_STEPS && sizes.length > 1) continue;
      const label = m.steps.toLocaleString('en');
      const p50 = percentile(m.keyToPaint.latency, 50);
      const pass = p95s[i] <= FRAME_MS;
      const ratio = p95s[i] / refP95;
      console.log(`  key → painted on ${label} steps: p50 ${p50.toFixed(1)} ms, p95 ${p95s[i].toFixed(1)} ms — target p95 ≤ ${FRAME_MS} ms: ${pass ? 'PASS' : 'FAIL'}; ${ratio.toFixed(2)}× the ${REFERENCE_STEPS.toLocaleString('en')}-step run's p95 (${refP95.toFixed(1)} ms)`);
      figures.push({ name: `playhead key → painted p95 on ${label} steps in headless Chromium (real key presses)`, value: p95s[i], unit: 'ms', target: `≤ ${FRAME_MS} ms (one frame)`, pass, note: `p50 ${p50.toFixed(1)} ms; first render ${m.firstRender.views.toFixed(0)} ms` });
      const onceP95 = percentile(m.keyToPaintAtOnce.latency, 95);
      console.log(`    with each key released at once after its keydown (a diagnostic, ADR 0093): p95 ${onceP95.toFixed(1)} ms`);
      figures.push({ name: `key → painted p95 on ${label} steps, each key released at once after its keydown (diagnostic: the measure before ADR 0093)`, value: onceP95, unit: 'ms', target: 'reported', pass: true, note: `p50 ${percentile(m.keyToPaintAtOnce.latency, 50).toFixed(1)} ms` });
      figures.push({ name: `key → painted p95, ${label} vs ${REFERENCE_STEPS.toLocaleString('en')} steps (nothing scales with the step count)`, value: ratio, unit: '×', target: '≈ 1 (≤ 1.5, our bound)', pass: ratio <= 1.5 });
      const sessionMb = bytes(m.steps) / 1048576;
      const heapRatio = m.heapAfterMovesMb / sessionMb;
      figures.push({
        name: `JS heap with ${label} steps open after scrubbing, vs the session file`,
        value: heapRatio,
        unit: '×',
        target: '≤ 2.5 × file size (our bound, as SPEC §8 asks of import)',
        pass: heapRatio <= 2.5,
        note: `${m.heapAfterMovesMb.toFixed(0)} MB after the moves, ${m.heapOpenMb.toFixed(0)} MB when opened; session ${sessionMb.toFixed(0)} MB`,
      });
      if (m.steps === STEP_SIZES[0]) {
        const loopPass = m.loopAnalysis < LOOP_TARGET_MS;
        const where = m.loopWhere === 'page' ? 'inside the first render' : 'in the import worker';
        console.log(`  loop analysis (${label} steps, ${where}): ${m.loopAnalysis.toFixed(0)} ms — target < ${LOOP_TARGET_MS} ms: ${loopPass ? 'PASS' : 'FAIL'}`);
        figures.push({
          name: `loop analysis on ${label} steps in headless Chromium (${where})`,
          value: m.loopAnalysis,
          unit: 'ms',
          target: `< ${LOOP_TARGET_MS} ms (our bound: a small part of the run view's first render)`,
          pass: loopPass,
          note: m.loopWhere === 'page' ? `${m.loopAnalysis.toFixed(0)} of ${m.firstRender.views.toFixed(0)} ms first render` : `in the import worker before the run was opened; first render ${m.firstRender.views.toFixed(0)} ms`,
        });
      }
    }
    const floorP95 = percentile(floor.latency, 95);
    console.log(`  floor of the measure: a page whose key handler changes one line of text, the same presses: p50 ${percentile(floor.latency, 50).toFixed(1)} ms, p95 ${floorP95.toFixed(1)} ms (a key waits for the next frame: up to ${FRAME_INTERVAL.toFixed(1)} ms before any work); keys released at once: p95 ${percentile(floor.atOnce, 95).toFixed(1)} ms`);
    figures.push({ name: 'floor of key → painted: the same presses on a page that only changes one line of text', value: floorP95, unit: 'ms', target: 'reported (the least p95 this measure can give here)', pass: true, note: `p50 ${percentile(floor.latency, 50).toFixed(1)} ms; keys released at once: p95 ${percentile(floor.atOnce, 95).toFixed(1)} ms` });
    console.log('  screenshot: test-results/bench-view.png');
    writeResults('view', figures, { loadAverages: loads });
    if (measured.some((m) => m.errors.length)) process.exitCode = 1;
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
