// SPEC §8 "open" and "import in Chromium", through the studio's real UI in headless Chromium (issue 14, goals 1, 4
// and 6). A generated flat agent trace (100k spans, every span a step: ~96k rows, bench/gen-flat-agent-otlp.ts) is
// given to the Library's file input, as a drop would; the bench waits for its row, opens it and waits for the run
// view's step rows to be painted. In the same page and the same run it times a bare JSON.parse of the same file's text.
// Printed, each with its target:
//   - import (file chosen → the run in the library, hand-off to the page included) / JSON.parse      ≤ 2 ×
//   - file drop → run view painted                                                                   ≤ 1.4 s
//   - the longest main-thread task from the drop to the painted run view (PerformanceObserver)        ≤ 100 ms
//   - the page's JS heap after a full GC, run view open / file size                                  ≤ 1.5 ×
//   - file drop → the library says the run is saved in IndexedDB                                     (reported)
//
//   npx vite build --outDir <dir> && BENCH_DIST=<dir> npx tsx bench/open-run.bench.ts
//   BENCH_SPANS=…                          spans in the file (default 100k)
//   BENCH_PROFILE=tasks                    what ran in each long task from the drop to the painted run view (see
//                                          bench/browser-import.bench.ts; readable names with `vite build --minify false`)
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { appDist, measureThroughLibrary } from './browser-import.bench.ts';
import { generateFlatAgentTrace } from './gen-flat-agent-otlp.ts';
import { writeResults, type Figure } from './results.ts';

const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const RATIO_TARGET = 2;
const OPEN_TARGET_MS = 1400;
export const LONG_TASK_TARGET_MS = 100;
const HEAP_TARGET = 1.5;

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'mas-bench-open-'));
  try {
    const dist = appDist(tmp);
    const file = join(tmp, 'flat-agent.json');
    writeFileSync(file, generateFlatAgentTrace(SPANS));
    const size = statSync(file).size;
    const m = await measureThroughLibrary(resolve(dist), file);
    const load = loadavg()[0];
    const ratio = m.importMs / m.parseMs;
    const heapRatio = m.heapBytes / size;
    const mb = (size / 1048576).toFixed(0);
    const figures: Figure[] = [
      { name: `import of a ${mb} MB flat OTLP file through the Library (file → run listed) vs JSON.parse in the page`, value: ratio, unit: '×', target: `≤ ${RATIO_TARGET} × JSON.parse`, pass: ratio <= RATIO_TARGET, note: `${m.importMs.toFixed(0)} ms vs ${m.parseMs.toFixed(0)} ms` },
      { name: `file drop → run view painted (${m.rows.toLocaleString('en')} rows)`, value: m.openMs, unit: 'ms', target: `≤ ${OPEN_TARGET_MS} ms`, pass: m.openMs <= OPEN_TARGET_MS, note: `click → rows ${m.clickToRowsMs.toFixed(0)} ms` },
      { name: 'longest main-thread task, drop → run view painted', value: m.longestTaskMs, unit: 'ms', target: `≤ ${LONG_TASK_TARGET_MS} ms`, pass: m.longestTaskMs <= LONG_TASK_TARGET_MS, note: `${m.longTasks.length} long tasks: ${m.longTasks.map((d) => d.toFixed(0)).join(', ')}` },
      { name: 'page heap after GC, run view open / file size', value: heapRatio, unit: '×', target: `≤ ${HEAP_TARGET} × file`, pass: heapRatio <= HEAP_TARGET, note: `${(m.heapBytes / 1048576).toFixed(0)} MB for a ${mb} MB file; ${(m.heapWithSpansBytes / 1048576).toFixed(0)} MB once the span tree is opened` },
      { name: 'file drop → library saved in IndexedDB', value: m.savedMs, unit: 'ms', target: 'reported', pass: true },
      { name: `opening the span tree (${SPANS.toLocaleString('en')} spans): longest main-thread task`, value: m.spanTreeTaskMs, unit: 'ms', target: `≤ ${LONG_TASK_TARGET_MS} ms`, pass: m.spanTreeTaskMs <= LONG_TASK_TARGET_MS, note: Number.isNaN(m.spanTreeMs) ? 'the span tree was not folded' : `click → rows ${m.spanTreeMs.toFixed(0)} ms` },
      { name: 'longest main-thread task after the run view is painted, until saved (the IndexedDB write)', value: m.longestWhileSavingMs, unit: 'ms', target: `≤ ${LONG_TASK_TARGET_MS} ms`, pass: m.longestWhileSavingMs <= LONG_TASK_TARGET_MS },
    ];
    if (m.viewBuild) console.log(`  run view built in slices: from ${m.viewBuild.startAt.toFixed(0)} ms after the click, ${m.viewBuild.wallMs.toFixed(0)} ms wall, ${m.viewBuild.workMs.toFixed(0)} ms of work in ${m.viewBuild.tasks} tasks`);
    console.log(`open a ${mb} MB flat OTLP file (${SPANS.toLocaleString('en')} spans) in headless Chromium; ${cpus().length} cores, load average ${load.toFixed(2)}`);
    for (const f of figures) console.log(`  ${f.pass ? 'PASS' : 'FAIL'}  ${f.unit === 'ms' ? `${f.value.toFixed(0)} ms` : `${f.value.toFixed(2)} ×`}  target ${f.target}  ${f.name}${f.note ? ` (${f.note})` : ''}`);
    writeResults('open-run', figures, { spans: SPANS, bytes: size, loadAverage: load, ...m });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
