// Where the page's time goes after a large run arrives, measured in Node (no browser): the two 1M-step files of
// bench/million.bench.ts imported here, then each pass the page runs on the run — the library's summary, the step
// count of the "preparing" screen, fork-here's checks — timed whole, and the run view's sliced build (ADR 0024) run
// slice by slice as the page runs it (tasks of SLICE_BUDGET_MS), printing every task longer than 50 ms with the
// phase it was in, and every step of the build (yield to yield) over 20 ms. Cheaper than the browser bench to find a
// long task, but indicative only: Node's heap holds the parsed file too, and its full collections land in one step or
// another. The browser's figures (bench/million.bench.ts, BENCH_PROFILE=tasks) are the ones that count.
//
//   npx tsx bench/page-passes.ts              both files, 1M steps each
//   BENCH_STEPS=… BENCH_ONLY=chat|otlp
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { importParsed, importText } from '../src/import/index.ts';
import { readJsonLines } from '../src/import/jsonl-stream.ts';
import type { Run } from '../src/model/types.ts';
import { countStepFacts } from '../src/model/step-facts.ts';
import { summarizeRun } from '../src/model/summary.ts';
import { replayStepCount } from '../src/model/steps.ts';
import { forkProblem } from '../src/engine/runner/forkable.ts';
import { runViewOpeningSlices } from '../src/features/run-view/run-view-loader.ts';
import { SLICE_BUDGET_MS } from '../src/model/slices.ts';
import { writeChatLog, writeFlatOtlpLines } from './million.bench.ts';

const STEPS = Number(process.env.BENCH_STEPS ?? 1_000_000);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'chat,otlp').split(','));

function timed<T>(label: string, f: () => T): T {
  const t0 = performance.now();
  const r = f();
  console.log(`  ${(performance.now() - t0).toFixed(0).padStart(5)} ms  ${label}`);
  return r;
}

function measure(run: Run): void {
  // The step facts (src/model/step-facts.ts): counted by the import worker for a run it hands over; timed here as the
  // page would count them for a run from elsewhere. Then what reads them.
  timed('countStepFacts (in the import worker)', () => countStepFacts(run.steps));
  timed('summarizeRun (library row)', () => summarizeRun(run));
  timed('replayStepCount, counted anew', () => replayStepCount(run));
  timed('forkProblem (fork here)', () => forkProblem(run));
  const work = runViewOpeningSlices(run);
  let tasks = 0;
  let longest = 0;
  let total = 0;
  const long: string[] = [];
  // One step of the generator (from one yield to the next) longer than 20 ms, with the fractions around it.
  const steps: string[] = [];
  let last = 0;
  const next = () => {
    const t0 = performance.now();
    const r = work.next();
    const ms = performance.now() - t0;
    if (ms > 20) steps.push(`${ms.toFixed(0)} ms ${last.toFixed(3)} → ${r.done ? 'done' : r.value.toFixed(3)}`);
    if (!r.done) last = r.value;
    return r;
  };
  for (;;) {
    const start = performance.now();
    let at = -1;
    let r = next();
    while (!r.done && performance.now() - start < SLICE_BUDGET_MS) {
      at = r.value;
      r = next();
    }
    const ms = performance.now() - start;
    tasks++;
    total += ms;
    if (ms > longest) longest = ms;
    if (ms > 50) long.push(`${ms.toFixed(0)} ms after ${at.toFixed(3)} → ${r.done ? 'done' : r.value.toFixed(3)}`);
    if (r.done) break;
  }
  console.log(`  run view build: ${total.toFixed(0)} ms in ${tasks} tasks, longest ${longest.toFixed(0)} ms; over 50 ms: ${long.join('; ') || 'none'}`);
  console.log(`  steps of the build over 20 ms: ${steps.join('; ') || 'none'}`);
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'mas-page-passes-'));
  try {
    if (ONLY.has('chat')) {
      const file = join(tmp, 'chat.json');
      await writeChatLog(file, STEPS);
      const run = importText('chat.json', readFileSync(file, 'utf8')).runs[0];
      console.log(`chat log, ${run.steps.length.toLocaleString('en')} steps`);
      measure(run);
    }
    if (ONLY.has('otlp')) {
      const file = join(tmp, 'otlp.jsonl');
      await writeFlatOtlpLines(file, STEPS);
      const parsed = await readJsonLines('otlp.jsonl', Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>);
      rmSync(file);
      const run = importParsed('otlp.jsonl', parsed).runs[0];
      console.log(`OTLP JSON Lines, ${run.steps.length.toLocaleString('en')} steps`);
      measure(run);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
