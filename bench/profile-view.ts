// Profiles playhead moves in the run view (issue 14 goal 3): a Chromium trace (devtools.timeline) of real key
// presses on a generated run, summed per press by what the renderer's main thread did (key handlers, style, layout,
// pre-paint, paint, layerize, commit), optionally with the hottest JS functions from a CPU profile. With --css the
// same presses are traced again with each style sheet added, alternating rounds (A B A B…) so a busy machine
// weighs on both alike: a layering idea can be tried without a rebuild.
//   npx tsx bench/profile-view.ts --steps 100000 --presses 60 --rounds 2 [--dist DIR] [--css '…'] [--keys End,Home] [--cpu] [--out trace.json] [--shot page.png]
// DIR is a build (`npx vite build --outDir DIR`); by default the one `npm run bench:view` leaves in the temp directory.
import { chromium, type CDPSession, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium-args.ts';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { loadavg, tmpdir } from 'node:os';
import { generateSessionBody, waitForSaved } from './view.bench.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const STEPS = Number(opt('steps', '100000'));
const PRESSES = Number(opt('presses', '60'));
const ROUNDS = Number(opt('rounds', '2'));
const DIST = opt('dist', join(tmpdir(), 'mas-replay-bench-view'));
const OUT = opt('out', '');
/** Style sheets to try, one variant each (`--css` may be given more than once). */
const CSS = args.flatMap((a, i) => (a === '--css' ? [args[i + 1]] : []));
const CPU = args.includes('--cpu');
/** `--total N`: rows of the CPU profile's inclusive list. */
const TOTAL_ROWS = Number(opt('total', '40'));
/** `--keys End,Home,e`: press these in turn instead of the default mix of steps and jumps. */
const KEYS = opt('keys', '').split(',').filter((k) => k !== '');
/** `--frames`: also the frame pipeline (begin frame, draw, raster) and what each move invalidated (style, layout, paint). */
const FRAMES = args.includes('--frames');
const WALL = args.includes('--wall');
/** `--shot FILE.png`: a screenshot of the page after the presses (to look at what was measured). */
const SHOT = opt('shot', '');
/**
 * `--categories blink,cc`: more trace categories. With `blink`, the last two rows say which layerization a move got:
 * `PaintArtifactCompositor::Update` (the full pass: a paint chunk was added or removed, or changed its bounds, opacity,
 * text or property nodes) or `UpdateRepaintedLayers` (the repaint-only path); without it both rows read 0.
 */
const EXTRA = opt('categories', '').split(',').filter((c) => c !== '');
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', ...(FRAMES ? ['disabled-by-default-devtools.timeline.frame', 'disabled-by-default-devtools.timeline.invalidationTracking'] : []), ...EXTRA].join(',');

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread (CPU) time of the event: unlike wall time it hardly depends on how busy the machine is. */
  tdur?: number;
  tid: number;
  pid: number;
  args?: { data?: { type?: string; nodeName?: string } };
}

async function threadTime(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN) * 1000;
}

async function tracePresses(page: Page, cdp: CDPSession, offset: number) {
  const events: TraceEvent[] = [];
  const cpu0 = await threadTime(cdp);
  const collect = (e: { value: object[] }) => events.push(...(e.value as unknown as TraceEvent[]));
  cdp.on('Tracing.dataCollected', collect);
  const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  if (CPU) await cdp.send('Profiler.start');
  for (let i = 0; i < PRESSES; i++) {
    const n = offset + i;
    const key = KEYS.length > 0 ? KEYS[n % KEYS.length] : n % 10 === 9 ? ['End', 'Home', 'e', 'l', 'a'][(n / 10) % 5 | 0] : n % 4 === 3 ? 'k' : 'j';
    await page.keyboard.press(key);
    await page.waitForTimeout(20 + (n % 7) * 3);
  }
  const cpu = (await threadTime(cdp)) - cpu0;
  const profile = CPU ? (await cdp.send('Profiler.stop')).profile : undefined;
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);
  return { events, profile, cpu };
}

/**
 * Milliseconds per press by event name on the busiest renderer thread, counting only the outermost of nested same-name
 * events: thread (CPU) time, which a loaded machine inflates far less than wall time (wall time with --wall).
 */
function perPress(events: TraceEvent[]): Map<string, number> {
  const byThread = new Map<string, number>();
  for (const e of events) if (e.ph === 'X' && e.name === 'RunTask') byThread.set(`${e.pid}:${e.tid}`, (byThread.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
  const main = [...byThread.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const totals = new Map<string, number>();
  const openUntil = new Map<string, number>();
  for (const e of events.filter((x) => x.ph === 'X' && `${x.pid}:${x.tid}` === main).sort((a, b) => a.ts - b.ts)) {
    const name = e.name === 'EventDispatch' ? `EventDispatch ${e.args?.data?.type ?? ''}` : e.name;
    if ((openUntil.get(name) ?? -1) > e.ts) continue;
    openUntil.set(name, e.ts + (e.dur ?? 0));
    totals.set(name, (totals.get(name) ?? 0) + ((WALL ? e.dur : (e.tdur ?? e.dur)) ?? 0) / 1000 / PRESSES);
    // How many frames took each path, per press (1.00: every press; a press may take more than one frame).
    const path = name === 'PaintArtifactCompositor::Update' ? 'full layerizes per press' : name === 'PaintArtifactCompositor::UpdateRepaintedLayers' ? 'repaint-only per press' : undefined;
    if (path) totals.set(path, (totals.get(path) ?? 0) + 1 / PRESSES);
  }
  return totals;
}

const SHOWN = ['main-thread CPU time', 'RunTask', 'EventDispatch keydown', 'FunctionCall', 'TimerFire', 'EventDispatch scroll', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit', 'EventDispatch pointerout', 'EventDispatch mouseout', 'MajorGC', 'MinorGC', 'PaintArtifactCompositor::Update', 'PaintArtifactCompositor::UpdateRepaintedLayers', 'full layerizes per press', 'repaint-only per press'];

const body = generateSessionBody(STEPS);
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  if (path === '/bench/run.session.json') {
    for (const c of body) res.write(c);
    res.end();
    return;
  }
  let file = normalize(join(DIST, path));
  if (!existsSync(file) || statSync(file).isDirectory()) file = join(DIST, 'index.html');
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`${base}/?src=${encodeURIComponent(`${base}/bench/run.session.json`)}`);
  const row = page.locator(`[data-testid="run-row"][data-run-id="bench-generated-${STEPS}"] button`).first();
  await row.waitFor({ timeout: 900_000 });
  await waitForSaved(page);
  await row.click();
  await page.getByTestId('graph-current').waitFor({ timeout: 120_000 });
  await page.mouse.move(800, 990);
  await page.waitForTimeout(1000);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  if (CPU) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  }
  const variants = ['as built', ...CSS.map((_, i) => `css ${i + 1}`)];
  const sums = variants.map(() => new Map<string, number>());
  let style: Awaited<ReturnType<Page['addStyleTag']>> | undefined;
  let offset = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [v, variant] of variants.entries()) {
      if (style) {
        await style.evaluate((el) => (el as HTMLElement).remove());
        style = undefined;
      }
      if (v > 0) style = await page.addStyleTag({ content: CSS[v - 1] });
      await page.waitForTimeout(300);
      const { events, profile, cpu } = await tracePresses(page, cdp, offset);
      sums[v].set('main-thread CPU time', (sums[v].get('main-thread CPU time') ?? 0) + cpu / PRESSES / ROUNDS);
      offset += PRESSES;
      for (const [k, ms] of perPress(events)) sums[v].set(k, (sums[v].get(k) ?? 0) + ms / ROUNDS);
      if (OUT && round === 0 && v === 0) writeFileSync(OUT, JSON.stringify({ traceEvents: events }));
      if (profile && round === 0) {
        if (OUT && v === 0) writeFileSync(`${OUT}.cpuprofile`, JSON.stringify(profile));
        const self = new Map<string, number>();
        const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
        const dt = profile.timeDeltas ?? [];
        (profile.samples ?? []).forEach((id, i) => {
          const f = nodes.get(id)!.callFrame;
          const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}:${f.columnNumber}`;
          self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000 / PRESSES);
        });
        console.log(`CPU profile (${variant}), self ms per press:`);
        for (const [name, ms] of [...self.entries()].filter(([n]) => !n.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${ms.toFixed(2).padStart(7)}  ${name}`);
        // Total (inclusive) time by function name: each sample counts once for every function on its stack, so a
        // component's figure holds what it calls (read on an unminified build: `npx vite build --minify false`).
        const parent = new Map<number, number>();
        for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
        const total = new Map<string, number>();
        (profile.samples ?? []).forEach((id, i) => {
          const seen = new Set<string>();
          for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
            const name = nodes.get(at)!.callFrame.functionName || '(anonymous)';
            if (seen.has(name)) continue;
            seen.add(name);
            total.set(name, (total.get(name) ?? 0) + (dt[i] ?? 0) / 1000 / PRESSES);
          }
        });
        console.log(`CPU profile (${variant}), total ms per press (callees included):`);
        for (const [name, ms] of [...total.entries()].filter(([n]) => !['(root)', '(program)', '(idle)', '(anonymous)'].includes(n)).sort((a, b) => b[1] - a[1]).slice(0, TOTAL_ROWS)) console.log(`  ${ms.toFixed(2).padStart(7)}  ${name}`);
      }
    }
  }
  if (SHOT) {
    if (style) await style.evaluate((el) => (el as HTMLElement).remove());
    await page.screenshot({ path: SHOT });
  }
  console.log(`\n${STEPS.toLocaleString()} steps, ${ROUNDS}×${PRESSES} presses per variant (load average ${loadavg()[0].toFixed(1)}): renderer main thread, ${WALL ? 'wall' : 'CPU'} ms per press`);
  console.log(`  ${'event'.padEnd(48)}${variants.map((v) => v.padStart(12)).join('')}`);
  for (const name of SHOWN) console.log(`  ${name.padEnd(48)}${sums.map((s) => (s.get(name) ?? 0).toFixed(2).padStart(12)).join('')}`);
} finally {
  await browser.close();
  server.close();
}
