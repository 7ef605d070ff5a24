// The import worker's mapping phase in Node (issue 14, goal 1): a file imported as src/workers/import-files.ts
// importFiles does it (the same function, with a progress listener), the time of each phase read from its progress
// reports: parsing (from the `parsing` report to the first `mapping` one) and mapping (from there to the result).
// For a JSON array of OTLP documents (bench/gen-otlp.ts) the spans are read while the documents are parsed, so its
// `parsing` holds part of its mapping. No target: a tool for A/B runs and profiles.
//
//   npx tsx bench/map-profile.ts time flat|goal4|<file> [runs]     phase times, a full GC before each run
//   npx tsx bench/map-profile.ts repeat flat|<file> [runs]         one parse, then the mapping alone `runs` times (default 10):
//                                                                  min and median (steadier than single runs on a busy machine)
//   npx tsx bench/map-profile.ts hash flat|goal4|<file>...         sha256 of each file's result (undefined and Maps kept)
//   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/map-profile.ts time flat 3
//   npx tsx bench/map-profile.ts top <file.cpuprofile> [n] [windows.json]   the heaviest functions by self time
//   (BENCH_WINDOWS=<windows.json> on the `time` run writes its mapping phases' times: then only their samples are counted)
// BENCH_NO_COUNTER=1 maps as a fresh import worker does, without the token counter loaded (a refused estimate maps again).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { importFiles, type ImportPhase } from '../src/workers/import-files.ts';
import { detectText, importDetected } from '../src/import/index.ts';
import { mapTicks, stepTicks } from '../src/model/run-builder.ts';
import { forgetTokenCounter, loadTokenCounter } from '../src/import/tokens.ts';
import { generateFlatAgentTrace } from './gen-flat-agent-otlp.ts';
import { generateOtlpFile } from './gen-otlp.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The bench files, generated once into the temporary directory. */
async function pathOf(name: string): Promise<string> {
  if (name === 'flat') {
    const path = join(tmpdir(), 'map-profile-flat-agent.json');
    if (!existsSync(path)) writeFileSync(path, generateFlatAgentTrace(100_000));
    return path;
  }
  if (name === 'goal4') {
    const path = join(tmpdir(), 'map-profile-goal4-otlp.json');
    if (!existsSync(path)) await generateOtlpFile(path, 100_000);
    return path;
  }
  return name;
}

/** The name the file is imported under: the bench's own for the bench files (detection may read it). */
function nameOf(name: string, path: string): string {
  if (name === 'flat') return 'flat-agent.json';
  if (name === 'goal4') return 'otlp-100k.json';
  return basename(path);
}

/**
 * CPU time the main thread has run, in ms (Linux: utime + stime of /proc/self/task/<pid>/stat, in 10 ms ticks; NaN
 * elsewhere): less swayed by a busy machine than the wall clock, and without the GC's helper threads.
 */
function mainThreadMs(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are the stat file's fields 14 and 15 (here 12 and 13: the pid and the name are cut off).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** The mapping phases timed, as [start, end] in microseconds of the monotonic clock V8's profiler stamps samples with. */
const windows: Array<[number, number]> = [];
const hrtimeOrigin = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
const hrtimeMicros = (ms: number) => hrtimeOrigin + ms * 1000;

async function importOnce(name: string, path: string): Promise<{ phases: Map<ImportPhase, number>; result: Awaited<ReturnType<typeof importFiles>>; mappingCpuMs: number; threadMs: number }> {
  let text: string | undefined = readFileSync(path, 'utf8');
  if (process.env.BENCH_NO_COUNTER) forgetTokenCounter();
  gc();
  const starts = new Map<ImportPhase, number>();
  let mappingCpu: NodeJS.CpuUsage | undefined;
  let mappingThreadMs = NaN;
  const input = { name: nameOf(name, path), text };
  text = undefined;
  const t0 = performance.now();
  const result = await importFiles([input], (p) => {
    if (!starts.has(p.phase)) {
      starts.set(p.phase, performance.now());
      if (p.phase === 'mapping') {
        mappingCpu = process.cpuUsage();
        mappingThreadMs = mainThreadMs();
      }
    }
  }, () => loadTokenCounter());
  const t1 = performance.now();
  const cpu = mappingCpu && process.cpuUsage(mappingCpu);
  const threadMs = mainThreadMs() - mappingThreadMs;
  const mappingAt = starts.get('mapping');
  if (mappingAt !== undefined) windows.push([hrtimeMicros(mappingAt), hrtimeMicros(t1)]);
  const phases = new Map<ImportPhase, number>();
  const order = [...starts.entries()].sort((a, b) => a[1] - b[1]);
  for (let i = 0; i < order.length; i++) phases.set(order[i][0], (i + 1 < order.length ? order[i + 1][1] : t1) - order[i][1]);
  phases.set('reading', order.length ? order[0][1] - t0 : t1 - t0);
  return { phases, result, mappingCpuMs: cpu ? (cpu.user + cpu.system) / 1000 : NaN, threadMs };
}

/** JSON text of a value with undefined-valued properties and Maps and Sets kept (they are part of what crosses to the page). */
function fullJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === undefined) return '\u0000undefined';
    if (v instanceof Map) return { '\u0000map': [...v.entries()] };
    if (v instanceof Set) return { '\u0000set': [...v.values()] };
    if (typeof v === 'number' && !Number.isFinite(v)) return `\u0000${v}`;
    return v;
  });
}

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === 'time') {
    const [name, runsArg] = args;
    const path = await pathOf(name);
    const runs = Number(runsArg ?? 3);
    await importOnce(name, path); // warm-up
    for (let r = 0; r < runs; r++) {
      const { phases, result, mappingCpuMs, threadMs } = await importOnce(name, path);
      const steps = result.loaded.reduce((n, f) => n + f.runs.reduce((m, run) => m + run.steps.length, 0), 0);
      const parts = [...phases].map(([phase, ms]) => `${phase} ${ms.toFixed(0)}`).join(', ');
      console.log(`${name} run ${r + 1}: ${parts} ms (mapping CPU: main thread ${threadMs.toFixed(0)}, all threads ${mappingCpuMs.toFixed(0)} ms); ${steps} steps; ${result.failures.length} failures; load ${loadavg()[0].toFixed(2)}`);
    }
    // The timed runs' mapping phases, for `top` (the warm-up's left out).
    if (process.env.BENCH_WINDOWS) writeFileSync(process.env.BENCH_WINDOWS, JSON.stringify(windows.slice(1)));
  } else if (mode === 'repeat') {
    // A single OTLP document (the flat file): parsed once, then mapped again and again as the worker maps it after
    // the parse (importDetected, its depth check included: the parsed value is marked unchecked before each run).
    const [name, runsArg] = args;
    const path = await pathOf(name);
    const detected = detectText(nameOf(name, path), readFileSync(path, 'utf8'), { dropText: true });
    if (detected.doc.kind !== 'json') throw new Error('repeat: a single JSON document only');
    const doc = detected.doc;
    const runs = Number(runsArg ?? 10);
    const wall: number[] = [];
    const thread: number[] = [];
    let reported = 0;
    stepTicks.onTick = () => {
      const now = Date.now();
      if (now - reported >= 100) reported = now;
    };
    mapTicks.onTick = () => {
      const now = Date.now();
      if (now - reported >= 100) reported = now;
    };
    for (let r = 0; r <= runs; r++) {
      doc.depthUnchecked = true;
      gc();
      const c0 = mainThreadMs();
      const t0 = performance.now();
      importDetected(detected);
      const t1 = performance.now();
      const c1 = mainThreadMs();
      // The first run warms up.
      if (r > 0) {
        windows.push([hrtimeMicros(t0), hrtimeMicros(t1)]);
        wall.push(t1 - t0);
        thread.push(c1 - c0);
      }
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const w = sorted(wall);
    const c = sorted(thread);
    if (process.env.BENCH_WINDOWS) writeFileSync(process.env.BENCH_WINDOWS, JSON.stringify(windows));
    console.log(`${name} mapping ×${runs}: wall min ${w[0].toFixed(0)} median ${w[w.length >> 1].toFixed(0)} ms; main thread CPU min ${c[0].toFixed(0)} median ${c[c.length >> 1].toFixed(0)} ms; load ${loadavg()[0].toFixed(2)}`);
  } else if (mode === 'hash') {
    for (const name of args) {
      const path = await pathOf(name);
      const { result } = await importOnce(name, path);
      const hash = createHash('sha256').update(fullJson(result)).digest('hex');
      console.log(`${hash}  ${name}`);
    }
  } else if (mode === 'top') {
    const [file, n, windowsFile] = args;
    const profile = JSON.parse(readFileSync(file, 'utf8')) as {
      nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
      samples: number[];
      timeDeltas: number[];
      startTime: number;
    };
    const within = windowsFile ? (JSON.parse(readFileSync(windowsFile, 'utf8')) as Array<[number, number]>) : undefined;
    let at = profile.startTime;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const self = new Map<string, number>();
    let total = 0;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i];
      if (within && !within.some(([a, b]) => at >= a && at <= b)) continue;
      const node = byId.get(profile.samples[i])!;
      const { functionName, url, lineNumber } = node.callFrame;
      const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
      const dt = profile.timeDeltas[i] / 1000;
      self.set(key, (self.get(key) ?? 0) + dt);
      total += dt;
    }
    const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n ?? 30));
    console.log(`total ${total.toFixed(0)} ms`);
    for (const [key, ms] of top) console.log(`${ms.toFixed(0).padStart(7)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${key}`);
  } else {
    throw new Error('usage: map-profile.ts time|hash|top …');
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
