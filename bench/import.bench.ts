// SPEC §8: importing a synthetic OTLP/JSON file of 100k spans (~100 MB) must take at most 1.5× a bare JSON.parse of
// the same text, with peak memory at most 3× the file size. Both are measured in this process on the same text,
// warm-up first, median of several runs. Peak memory is measured in a fresh child process (one import, nothing else).
// Run: npm run bench:import   (BENCH_SPANS=… to change the size)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importText } from '../src/import/index.ts';
import { generateOtlpFile } from './gen-otlp.ts';

const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const RUNS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** Child mode: read the file, note the resident size, import once, report the peak (bytes). */
function measureMemory(path: string): void {
  const text = readFileSync(path, 'utf8');
  const before = process.memoryUsage().rss;
  const result = importText('bench.json', text);
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ before, peak, runs: result.runs.length }));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mas-bench-'));
  try {
    const path = join(dir, 'otlp-100k.json');
    await generateOtlpFile(path, SPANS);
    const size = statSync(path).size;
    const text = readFileSync(path, 'utf8');

    // Warm-up: both paths once, so neither pays for compilation in the measured runs.
    JSON.parse(text);
    const imported = importText('bench.json', text);
    const steps = imported.runs.reduce((n, r) => n + r.steps.length, 0);

    const parse: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      parse.push(time(() => JSON.parse(text)));
      full.push(time(() => importText('bench.json', text)));
    }
    const parseMs = median(parse);
    const importMs = median(full);

    const child = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--memory', path], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const memory = child.status === 0 ? (JSON.parse(child.stdout) as { before: number; peak: number }) : undefined;

    const lines = [
      `file: ${SPANS} spans, ${(size / 1048576).toFixed(1)} MB, ${imported.runs.length} runs, ${steps} steps`,
      `JSON.parse: median ${parseMs.toFixed(0)} ms (${parse.map((v) => v.toFixed(0)).join(', ')})`,
      `importText: median ${importMs.toFixed(0)} ms (${full.map((v) => v.toFixed(0)).join(', ')})`,
      `ratio import ÷ JSON.parse: ${(importMs / parseMs).toFixed(2)} (target ≤ 1.5)`,
      memory
        ? `peak memory ÷ file size: ${(memory.peak / size).toFixed(2)} (whole process incl. the text; target ≤ 3); import alone adds ${((memory.peak - memory.before) / size).toFixed(2)}× the file size`
        : `peak memory: child failed: ${child.stderr.slice(0, 300)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--memory') measureMemory(process.argv[3]);
else await main();
