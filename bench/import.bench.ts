// SPEC §8: importing a synthetic OTLP/JSON file of 100k spans (~100 MB) must take at most 2× a bare JSON.parse of
// the same text (in Node as in Chromium), with peak memory at most 2.5× the file size. (Earlier SPEC text asked 1.5×
// and 3×; the bench follows SPEC as it stands.)
//
// Time: both on the same text in this process, warm-up first, then RUNS alternating pairs with a full GC before each
// timed call; the ratio is median(import) ÷ median(JSON.parse). The median of the per-pair ratios is printed too: on
// a shared machine it is the steadier of the two.
// Memory: each in a fresh child process (one call, nothing else): the text is read, a full GC runs, the kernel's
// resident high-water mark is reset (Linux /proc/self/clear_refs), the call runs, and the high-water mark is read.
// "Peak" = that high-water mark less the process's resident size before the file was read, so it counts the text
// itself and everything the import builds or leaves for the GC, not Node's own ~45 MB. Measured for JSON.parse
// alone as well, for comparison.
// Phases: where importText's time goes, in 3 more rounds (each after a full GC): `detectText` (JSON.parse, the
// nesting-depth check, the format sniffers), the depth check alone on a parsed value, and `importDetected` (the
// importer's mapping and the implausible-value check): the whole-text path. This file, a JSON array of OTLP documents,
// is read by importText one document at a time instead (`importOtlpArrayText`, timed as a phase of its own). Printed
// and written; no target.
// Figures go to stdout and to bench/results/import.json (gitignored) for `npm run bench` to collect.
//
// Run: npm run bench:import   (BENCH_SPANS=… to change the size, BENCH_RUNS=… the timed pairs; default 5)
// BENCH_PROFILE=1 also samples 3 importText calls with V8's CPU profiler and prints the heaviest functions by self
// time (garbage collection included); the profile goes to bench/results/import.cpuprofile (Chrome DevTools opens it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Session } from 'node:inspector';
import { detectText, importDetected, importText } from '../src/import/index.ts';
import { checkJsonDepth } from '../src/import/json-depth.ts';
import { importOtlpArrayText } from '../src/import/formats/otlp.ts';
import { generateOtlpFile } from './gen-otlp.ts';

const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 5));
const TIME_TARGET = 2;
const MEMORY_TARGET = 2.5;
const RESULTS = join(import.meta.dirname, 'results', 'import.json');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function time(fn: () => unknown): number {
  gc();
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

// --- memory (child mode) ----------------------------------------------------------------------------------------

function statusBytes(field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resets the resident high-water mark; false where the kernel does not offer it (then maxRSS is used). */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return statusBytes('VmHWM') !== undefined;
  } catch {
    return false;
  }
}

interface MemoryFigures {
  mode: 'import' | 'parse';
  /** Resident size before the file was read, after the import code was loaded. */
  baseline: number;
  /** Resident size with the text read, just before the call. */
  beforeCall: number;
  /** Resident high-water mark during the call. */
  peak: number;
  /** How `peak` was measured: reset high-water mark, or the process-lifetime maxRSS (reading the file included). */
  method: 'VmHWM after reset' | 'maxRSS';
}

function measureMemory(path: string, mode: 'import' | 'parse'): void {
  gc();
  const baseline = process.memoryUsage().rss;
  const text = readFileSync(path, 'utf8');
  gc();
  const reset = resetPeak();
  const beforeCall = process.memoryUsage().rss;
  const result: unknown = mode === 'import' ? importText('bench.json', text) : JSON.parse(text);
  const peak = (reset ? statusBytes('VmHWM') : undefined) ?? process.resourceUsage().maxRSS * 1024;
  const figures: MemoryFigures = { mode, baseline, beforeCall, peak, method: reset ? 'VmHWM after reset' : 'maxRSS' };
  // Kept alive until the figures are taken.
  if (result === undefined) process.exitCode = 1;
  process.stdout.write(JSON.stringify(figures));
}

function memoryChild(path: string, mode: 'import' | 'parse'): MemoryFigures | string {
  const child = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', import.meta.filename, '--memory', mode, path], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) return `child failed: ${child.stderr.slice(0, 300)}`;
  return JSON.parse(child.stdout) as MemoryFigures;
}

// --- phases and profile -----------------------------------------------------------------------------------------

interface Phases {
  /** detectText: JSON.parse, the depth check and the sniffers. */
  detectMs: number;
  /** The depth check alone, on a value just parsed. */
  depthMs: number;
  /** importDetected: the importer's mapping and the implausible-value check. */
  mapMs: number;
  /**
   * importOtlpArrayText alone (parse and mapping, a document at a time): the path importText takes for a JSON array of
   * OTLP documents (this file), where detectText and importDetected above are the whole-text path. NaN if it declined.
   */
  piecesMs: number;
}

function measurePhases(text: string, rounds: number): Phases {
  const detect: number[] = [];
  const depth: number[] = [];
  const map: number[] = [];
  for (let i = 0; i < rounds; i++) {
    gc();
    let t0 = performance.now();
    const detected = detectText('bench.json', text);
    detect.push(performance.now() - t0);
    t0 = performance.now();
    importDetected(detected);
    map.push(performance.now() - t0);
  }
  for (let i = 0; i < rounds; i++) {
    gc();
    const value: unknown = JSON.parse(text);
    const t0 = performance.now();
    checkJsonDepth('bench.json', value);
    depth.push(performance.now() - t0);
  }
  const pieces: number[] = [];
  for (let i = 0; i < rounds; i++) {
    gc();
    const t0 = performance.now();
    const read = importOtlpArrayText(text);
    pieces.push(read === undefined ? NaN : performance.now() - t0);
  }
  return { detectMs: median(detect), depthMs: median(depth), mapMs: median(map), piecesMs: median(pieces) };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Samples `calls` importText calls; returns the heaviest functions by self time, as printable lines. */
async function profileImport(text: string, calls: number, path: string): Promise<string[]> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r as T))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  for (let i = 0; i < calls; i++) importText('bench.json', text);
  const { profile } = await post<{ profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } }>('Profiler.stop');
  session.disconnect();
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i])!;
    const dt = profile.timeDeltas[i] ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    // tsx's transform keeps no line numbers worth printing (all 1); a built bundle's are.
    const line = lineNumber > 0 ? `:${lineNumber + 1}` : '';
    const key = url ? `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}${line}` : functionName;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 20);
  return [
    `profile of ${calls} importText calls (${(total / 1000 / calls).toFixed(0)} ms sampled per call), self time per call:`,
    ...top.map(([key, us]) => `  ${(us / 1000 / calls).toFixed(1).padStart(7)} ms  ${key}`),
    `profile written: ${path}`,
  ];
}

// --- main -------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mas-bench-'));
  try {
    const path = join(dir, 'otlp-100k.json');
    await generateOtlpFile(path, SPANS);
    const size = statSync(path).size;

    // Memory first, in fresh processes, while this one holds nothing large.
    const importMemory = memoryChild(path, 'import');
    const parseMemory = memoryChild(path, 'parse');

    const text = readFileSync(path, 'utf8');
    // Warm-up: both paths twice, so neither pays for compilation or first-time string internalisation in the runs.
    const { runs, steps } = (() => {
      const imported = importText('bench.json', text);
      return { runs: imported.runs.length, steps: imported.runs.reduce((n, r) => n + r.steps.length, 0) };
    })();
    for (let i = 0; i < 2; i++) {
      JSON.parse(text);
      importText('bench.json', text);
    }

    const parse: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      parse.push(time(() => JSON.parse(text)));
      full.push(time(() => importText('bench.json', text)));
    }
    const phases = measurePhases(text, 3);
    const profileLines = process.env.BENCH_PROFILE ? await profileImport(text, 3, join(import.meta.dirname, 'results', 'import.cpuprofile')) : [];
    const parseMs = median(parse);
    const importMs = median(full);
    const ratio = importMs / parseMs;
    const pairedRatio = median(full.map((v, i) => v / parse[i]));

    const memoryOf = (m: MemoryFigures | string) =>
      typeof m === 'string'
        ? { error: m }
        : { ...m, peakOverFile: (m.peak - m.baseline) / size, callAddsOverFile: (m.peak - m.beforeCall) / size };
    const memory = { import: memoryOf(importMemory), parse: memoryOf(parseMemory) };

    const results = {
      bench: 'import',
      date: new Date().toISOString(),
      node: process.version,
      file: { spans: SPANS, bytes: size, runs, steps },
      time: {
        runs: RUNS,
        parseMs: parse,
        importMs: full,
        parseMedianMs: parseMs,
        importMedianMs: importMs,
        ratio,
        pairedRatio,
        target: TIME_TARGET,
        pass: ratio <= TIME_TARGET,
        phases,
      },
      memory: {
        ...memory,
        target: MEMORY_TARGET,
        pass: 'peakOverFile' in memory.import ? memory.import.peakOverFile <= MEMORY_TARGET : false,
      },
    };
    mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);

    const memLine = (label: string, m: (typeof memory)['import']) =>
      'error' in m
        ? `${label}: ${m.error}`
        : `${label}: peak ${m.peakOverFile.toFixed(2)}× the file size (text included; adds ${m.callAddsOverFile.toFixed(2)}× to the text; ${m.method})`;
    const lines = [
      `file: ${SPANS} spans, ${(size / 1048576).toFixed(1)} MB, ${runs} runs, ${steps} steps`,
      `JSON.parse: median ${parseMs.toFixed(0)} ms (${parse.map((v) => v.toFixed(0)).join(', ')})`,
      `importText: median ${importMs.toFixed(0)} ms (${full.map((v) => v.toFixed(0)).join(', ')})`,
      `ratio import ÷ JSON.parse: ${ratio.toFixed(2)} (median of pairs ${pairedRatio.toFixed(2)}; target ≤ ${TIME_TARGET})`,
      `phases (medians of 3): detectText ${phases.detectMs.toFixed(0)} ms (JSON.parse, depth check ${phases.depthMs.toFixed(0)} ms, sniffers), importDetected ${phases.mapMs.toFixed(0)} ms (mapping, implausible values); importText reads this file in pieces instead (importOtlpArrayText): ${Number.isNaN(phases.piecesMs) ? 'declined' : `${phases.piecesMs.toFixed(0)} ms`}`,
      memLine('memory, import', memory.import),
      memLine('memory, JSON.parse alone', memory.parse),
      `written: ${RESULTS}`,
      ...profileLines,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--memory') measureMemory(process.argv[4], process.argv[3] as 'import' | 'parse');
else await main();
