// SPEC §8: importing a synthetic OTLP/JSON file of 100k spans (~100 MB) must take at most 1.5× a bare JSON.parse of
// the same text, with peak memory at most 3× the file size.
//
// Time: both on the same text in this process, warm-up first, then RUNS alternating pairs with a full GC before each
// timed call; the ratio is median(import) ÷ median(JSON.parse). The median of the per-pair ratios is printed too: on
// a shared machine it is the steadier of the two.
// Memory: each in a fresh child process (one call, nothing else): the text is read, a full GC runs, the kernel's
// resident high-water mark is reset (Linux /proc/self/clear_refs), the call runs, and the high-water mark is read.
// "Peak" = that high-water mark less the process's resident size before the file was read, so it counts the text
// itself and everything the import builds or leaves for the GC, not Node's own ~45 MB. Measured for JSON.parse
// alone as well, for comparison.
// Figures go to stdout and to bench/results/import.json (gitignored) for `npm run bench` to collect.
//
// Run: npm run bench:import   (BENCH_SPANS=… to change the size, BENCH_RUNS=… the timed pairs; default 5)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { importText } from '../src/import/index.ts';
import { generateOtlpFile } from './gen-otlp.ts';

const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 5));
const TIME_TARGET = 1.5;
const MEMORY_TARGET = 3;
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
      memLine('memory, import', memory.import),
      memLine('memory, JSON.parse alone', memory.parse),
      `written: ${RESULTS}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--memory') measureMemory(process.argv[4], process.argv[3] as 'import' | 'parse');
else await main();
