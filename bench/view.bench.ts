// Run-view benchmark (SPEC §8): a generated 100k-step run opened in headless Chromium; prints the time to first
// render and the p95 time per playhead move (target < 16.7 ms, one frame).
//
//   npm run bench:view                 uses dist/ (builds it when missing)
//   npm run bench:view -- --build      rebuilds dist/ first
//   npm run bench:view -- --steps 20000 --moves 400
//
// The bench serves dist/ and the generated session itself, and opens it through the library's `?src=` loader.
// "Per move" is measured in the page: from the key event to React's commit, its effects and a forced style and
// layout, which is the main-thread work a move costs; "frame interval" is the time between frames while moving
// one step per frame, which adds paint.
import { chromium } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { SESSION_FORMAT, SESSION_VERSION } from '../src/model/schema.ts';
import type { Run, Session, Step } from '../src/model/types.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const STEPS = option('steps', 100_000);
const MOVES = option('moves', 300);
const JUMPS = option('jumps', 30);
/** 50 agents: the run view must stay legible on a team that large. */
const AGENTS = option('agents', 50);
const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const RUN_ID = 'bench-generated';

/** A deterministic synthetic run: a manager, managed agents, tools and memory, errors, labels and loops. */
export function generateRun(steps: number): Run {
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
    id: RUN_ID,
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

async function main() {
  if (args.includes('--build') || !existsSync(join(DIST, 'index.html'))) {
    console.log('building dist/ …');
    const built = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('vite build failed');
  }
  const generatedAt = performance.now();
  const session: Session = {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    id: 'bench-session',
    title: 'run-view benchmark',
    simulated: true,
    runs: [generateRun(STEPS)],
    engineSettings: {},
    llmCalls: [],
  };
  const body = Buffer.from(JSON.stringify(session));
  console.log(`generated ${STEPS.toLocaleString()} steps (${(body.length / 1e6).toFixed(1)} MB) in ${(performance.now() - generatedAt).toFixed(0)} ms`);

  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path === '/bench/run.session.json') {
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
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    // tsx keeps function names with a `__name` helper that page.evaluate bodies would otherwise miss.
    await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const loadStart = performance.now();
    await page.goto(`${base}/?src=${encodeURIComponent(`${base}/bench/run.session.json`)}`);
    // The library may also list its bundled samples: pick the generated run by id.
    await page.locator(`[data-testid="run-row"][data-run-id="${RUN_ID}"]`).waitFor({ timeout: 300_000 });
    console.log(`library: fetched, parsed and listed in ${((performance.now() - loadStart) / 1000).toFixed(1)} s (not the run view; for context)`);

    // Time to first render: click → list, inspector, timeline and charts on screen; then the graph laid out.
    const firstRender = await page.evaluate(async (runId) => {
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const t0 = performance.now();
      (document.querySelector(`[data-testid="run-row"][data-run-id="${runId}"] button`) as HTMLButtonElement).click();
      const ready = (...ids: string[]) => ids.every((id) => document.querySelector(`[data-testid="${id}"]`));
      while (!ready('inspector', 'timeline', 'token-charts') || !document.querySelector('[data-testid="step-list"] [aria-current="step"]')) await frame();
      const views = performance.now() - t0;
      while (!ready('graph-current')) await frame();
      return { views, graph: performance.now() - t0 };
    }, RUN_ID);
    const opened = await page.getByTestId('playhead-position').innerText();
    if (!opened.includes(STEPS.toLocaleString('en-US'))) throw new Error(`opened the wrong run: ${opened}`);

    // Per-move cost: each key press, React's commit and effects, and a forced style/layout.
    const perMove = await page.evaluate(
      async ({ moves, jumps }) => {
        const settle = () => new Promise<void>((r) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => r();
          channel.port2.postMessage(0);
        });
        const press = async (key: string) => {
          const t0 = performance.now();
          window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
          await settle();
          void document.body.offsetHeight;
          return performance.now() - t0;
        };
        const frame = () => new Promise((r) => requestAnimationFrame(r));
        const step: number[] = [];
        const jump: number[] = [];
        for (let i = 0; i < moves; i++) {
          step.push(await press(i % 4 === 3 ? 'k' : 'j'));
          await frame();
        }
        const jumpKeys = ['End', 'Home', 'e', 'l', 'a', 'E', 'L'];
        for (let i = 0; i < jumps; i++) {
          jump.push(await press(jumpKeys[i % jumpKeys.length]));
          await frame();
        }
        // Frame intervals while moving one step per frame (includes paint).
        const intervals: number[] = [];
        let last = performance.now();
        for (let i = 0; i < moves; i++) {
          window.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', bubbles: true }));
          await frame();
          const now = performance.now();
          intervals.push(now - last);
          last = now;
        }
        return { step, jump, intervals, position: document.querySelector('[data-testid="inspector"]')?.getAttribute('data-position') };
      },
      { moves: MOVES, jumps: JUMPS },
    );
    await page.screenshot({ path: join(ROOT, 'test-results', 'bench-view.png') });
    const all = [...perMove.step, ...perMove.jump];
    const p95 = percentile(all, 95);
    const load = loadavg()[0];
    console.log(`\nrun view, ${STEPS.toLocaleString()} steps, ${AGENTS} agents (headless Chromium; ${cpus().length} cores, load average ${load.toFixed(1)}${load > cpus().length ? ' — machine busy, times inflated' : ''})`);
    console.log(`  time to first render:        ${firstRender.views.toFixed(0)} ms (list, inspector, timeline, charts); graph laid out at ${firstRender.graph.toFixed(0)} ms`);
    console.log(`  playhead move, p95:          ${p95.toFixed(2)} ms over ${all.length} moves (${perMove.step.length} steps, ${perMove.jump.length} jumps; target < 16.7 ms) ${p95 < 16.7 ? 'OK' : 'OVER TARGET'}`);
    console.log(`    single steps p50/p95/max:  ${percentile(perMove.step, 50).toFixed(2)} / ${percentile(perMove.step, 95).toFixed(2)} / ${Math.max(...perMove.step).toFixed(2)} ms`);
    console.log(`    jumps p50/p95/max:         ${percentile(perMove.jump, 50).toFixed(2)} / ${percentile(perMove.jump, 95).toFixed(2)} / ${Math.max(...perMove.jump).toFixed(2)} ms`);
    console.log(`  frame interval while moving one step per frame, p95: ${percentile(perMove.intervals, 95).toFixed(1)} ms (p50 ${percentile(perMove.intervals, 50).toFixed(1)} ms)`);
    console.log(`  screenshot: test-results/bench-view.png; final position ${perMove.position} of ${STEPS.toLocaleString()}; page errors: ${errors.length ? errors.join(' | ') : 'none'}`);
    if (errors.length) process.exitCode = 1;
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
