// SPEC §8: violins for 10k runs in < 200 ms off the main thread. Measures (1) the computation itself and (2) the
// whole round trip through a worker thread, structured cloning of 10k per-run records both ways included.
// Run: npm run bench:corpus   (BENCH_RUNS=… to change the corpus size)
import { writeResults } from './results.ts';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { corpusStatistics, type RunMetrics } from '../src/model/statistics.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 10_000);
const REPEATS = 9;
const TARGET_MS = 200;

/** A generated corpus: 3 levels × 2 arms, log-normal token counts, the supervised arm cheaper and tighter. */
function generateCorpus(count: number): RunMetrics[] {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const runs: RunMetrics[] = [];
  for (let i = 0; i < count; i++) {
    const level = 1 + (i % 3);
    const supervised = i % 2 === 1;
    const tokens = Math.round(Math.exp(11.5 + 0.3 * level + (supervised ? -0.3 : 0) + gauss() * (supervised ? 0.35 : 0.6)));
    runs.push({
      id: `run-${i}`,
      title: `generated run ${i}`,
      task: `task ${Math.floor(i / 6)}`,
      tags: { dataset: 'gaia', level: String(level), arm: supervised ? 'supervised' : 'baseline' },
      format: 'native',
      arm: supervised ? 'supervised' : 'baseline',
      outcome: rnd() < 0.5 ? 'success' : 'failure',
      steps: 5 + Math.floor(rnd() * 40),
      agents: 2,
      tokens,
      tokensEstimated: false,
      overhead: supervised ? Math.round(tokens * 0.04) : 0,
      interventions: supervised ? Math.floor(rnd() * 6) : 0,
      durationMs: Math.round(tokens / 20),
      simulated: true,
    });
  }
  return runs;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (!isMainThread) {
  parentPort!.on('message', (runs: RunMetrics[]) => parentPort!.postMessage(corpusStatistics(runs, 'level')));
} else {
  const runs = generateCorpus(RUNS);
  const compute: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    corpusStatistics(runs, 'level');
    compute.push(performance.now() - t0);
  }
  // tsx's loader is not inherited by worker threads on Node 20: register it inside the worker, then load this file.
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true });
  const roundTrip = (): Promise<number> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      worker.once('message', () => resolve(performance.now() - t0));
      worker.postMessage(runs);
    });
  await roundTrip(); // warm-up: module load and JIT in the worker
  const trips: number[] = [];
  for (let i = 0; i < REPEATS; i++) trips.push(await roundTrip());
  await worker.terminate();
  const trip = median(trips);
  console.log(`corpus statistics for ${RUNS.toLocaleString('en')} runs (3 groups × 2 arms, median of ${REPEATS}):`);
  console.log(`  compute only:            ${median(compute).toFixed(1)} ms (first ${compute[0].toFixed(1)} ms)`);
  console.log(`  worker round trip:       ${trip.toFixed(1)} ms`);
  console.log(`  target < ${TARGET_MS} ms: ${trip < TARGET_MS ? 'met' : 'NOT met'}`);
  writeResults('corpus', [
    { name: `violin statistics for ${RUNS.toLocaleString('en')} runs off the main thread (worker round trip)`, value: trip, unit: 'ms', target: `< ${TARGET_MS} ms`, pass: trip < TARGET_MS, note: `compute alone ${median(compute).toFixed(1)} ms; median of ${REPEATS}` },
  ]);
  process.exitCode = trip < TARGET_MS ? 0 : 1;
}
