// `npm run bench`: every SPEC §8 benchmark in one run on this machine, one after the other (never in parallel: they
// time things), then every figure with its target and whether it was met, on stdout and in bench/results.json
// (gitignored). The app is built once, with a manifest, into a private directory for the browser benchmarks.
//
//   import   (Node)      bench/import.bench.ts          ratio to JSON.parse, peak memory / file size
//   import   (Chromium)  bench/browser-import.bench.ts  ratio to JSON.parse in the same page (through the Library)
//   open                 bench/open-run.bench.ts        100k-span flat trace: drop → run view painted, long tasks, heap
//   million              bench/million.bench.ts         1M-step chat log and OTLP: drop → run view, blocks, progress, memory, cancel
//   views                bench/views.bench.ts           every view loaded afresh on a 1M-message chat log: its longest task
//   engine flood         bench/engine-flood.bench.ts    offline rectify and clarifier over 20,000 chat messages: time a result, longest task
//   view                 bench/view.bench.ts            key → painted p50/p95 per playhead move at 1k, 100k and 1M steps
//   filter               bench/filter.bench.ts          ratio to a bare loop over 1M steps
//   corpus               bench/corpus.bench.ts          violins for 10k runs off the main thread
//   first load           bench/bundle.bench.ts          gzip KB of JS before first paint; lazy tokenizer and views
//   cli                  bench/cli.bench.ts             whole-process inspect vs node JSON.parse; small-file start
//   tokens               bench/tokens.bench.ts          token estimates: a 400,000-character piece, mixed text (ratios)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildApp } from './browser-import.bench.ts';
import { machine, RESULTS_DIR, type Figure } from './results.ts';

const ROOT = resolve(import.meta.dirname, '..');
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const OUT = join(import.meta.dirname, 'results.json');

interface Step {
  bench: string;
  script: string;
  args?: string[];
}

const STEPS: Step[] = [
  { bench: 'import', script: 'import.bench.ts' },
  { bench: 'browser-import', script: 'browser-import.bench.ts' },
  { bench: 'open-run', script: 'open-run.bench.ts' },
  { bench: 'million', script: 'million.bench.ts' },
  { bench: 'views', script: 'views.bench.ts' },
  { bench: 'engine-flood', script: 'engine-flood.bench.ts' },
  { bench: 'view', script: 'view.bench.ts' },
  { bench: 'filter', script: 'filter.bench.ts' },
  { bench: 'corpus', script: 'corpus.bench.ts' },
  { bench: 'bundle', script: 'bundle.bench.ts' },
  { bench: 'cli', script: 'cli.bench.ts' },
  { bench: 'tokens', script: 'tokens.bench.ts' },
];

interface ImportResults {
  file: { bytes: number; spans: number };
  time: { ratio: number; target: number; pass: boolean; parseMedianMs: number; importMedianMs: number; runs: number };
  memory: { import: { peakOverFile?: number; error?: string }; target: number; pass: boolean };
}

/** import.bench.ts writes its own richer shape: its two SPEC figures. */
function importFigures(r: ImportResults): Figure[] {
  const mb = (r.file.bytes / 1048576).toFixed(0);
  return [
    {
      name: `import of a ${mb} MB OTLP file (${r.file.spans.toLocaleString('en')} spans) in Node vs JSON.parse`,
      value: r.time.ratio,
      unit: '×',
      target: `≤ ${r.time.target} × JSON.parse`,
      pass: r.time.pass,
      note: `medians of ${r.time.runs}: ${r.time.importMedianMs.toFixed(0)} ms vs ${r.time.parseMedianMs.toFixed(0)} ms`,
    },
    {
      name: 'import peak memory in Node / file size',
      value: r.memory.import.peakOverFile ?? Number.NaN,
      unit: '×',
      target: `≤ ${r.memory.target} × file size`,
      pass: r.memory.pass,
      note: r.memory.import.error,
    },
  ];
}

function readFigures(bench: string): Figure[] {
  const path = join(RESULTS_DIR, `${bench}.json`);
  if (!existsSync(path)) return [];
  const data = JSON.parse(readFileSync(path, 'utf8')) as { figures?: Figure[] } & ImportResults;
  return bench === 'import' ? importFigures(data) : (data.figures ?? []);
}

function main(): void {
  const started = Date.now();
  const tmp = mkdtempSync(join(tmpdir(), 'mas-bench-all-'));
  const dist = join(tmp, 'dist');
  const rows: { bench: string; figures: Figure[]; ok: boolean; seconds: number }[] = [];
  try {
    console.log(`building the app into ${dist} …`);
    buildApp(dist);
    for (const step of STEPS) {
      rmSync(join(RESULTS_DIR, `${step.bench}.json`), { force: true });
      console.log(`\n=== ${step.bench} (bench/${step.script}) ===`);
      const t0 = Date.now();
      const run = spawnSync(process.execPath, [TSX, join(import.meta.dirname, step.script), ...(step.args ?? [])], {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, BENCH_DIST: dist },
      });
      const figures = readFigures(step.bench);
      rows.push({ bench: step.bench, figures, ok: run.status === 0 || figures.length > 0, seconds: (Date.now() - t0) / 1000 });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const all = rows.flatMap((r) => r.figures.map((f) => ({ bench: r.bench, ...f })));
  const missing = rows.filter((r) => r.figures.length === 0).map((r) => r.bench);
  const result = {
    date: new Date().toISOString(),
    machine: { ...machine(), loadAverageAtEnd: Number(loadavg()[0].toFixed(2)) },
    seconds: Math.round((Date.now() - started) / 1000),
    pass: missing.length === 0 && all.every((f) => f.pass),
    figures: all,
    missing,
  };
  writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);

  const m = result.machine;
  console.log(`\nSPEC §8 figures — ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}, ${m.platform}; load average ${m.loadAverageAtEnd}; ${result.seconds} s`);
  const fmt = (f: Figure) =>
    typeof f.value !== 'number' || Number.isNaN(f.value) ? 'n/a' : f.unit === '×' ? `${f.value.toFixed(2)} ×` : f.unit === 'ms' || f.unit === 'KB' || f.unit === 'MB' ? `${f.value.toFixed(1)} ${f.unit}` : `${f.value} ${f.unit}`;
  for (const f of all) console.log(`  ${f.pass ? 'PASS' : 'FAIL'}  ${f.bench.padEnd(14)} ${fmt(f).padStart(12)}  target ${f.target.padEnd(22)} ${f.name}`);
  for (const b of missing) console.log(`  FAIL  ${b.padEnd(14)} no figures: the benchmark did not finish (see its output above)`);
  console.log(`\nwritten to ${OUT}`);
  process.exitCode = result.pass ? 0 : 1;
}

main();
