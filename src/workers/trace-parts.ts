// The import worker's side of the run view's trace part (src/features/run-view/trace-parts.ts): computed for each run
// of a file once the page has taken the file's parts (import.worker.ts), in turns of a few milliseconds so that the
// worker keeps answering. Computed while the page still takes them instead, both threads competed for the 2 cores:
// at 100k steps the listing came later (ADR 0043); at 1M (chat log, tried 2026-11-28) the view painted no sooner
// (16.9 / 16.9 s vs 17.0 / 17.1 s), with longer page tasks and 20–100 MB more at the peak.
import type { Run } from '../model/types.ts';
import { nextTask, type Sliced } from '../model/slices.ts';
import { tracePartSlices, transferablesOfPart } from '../features/run-view/run-view-model.ts';
import { hasWorkerTracePart, type TracePart } from '../features/run-view/trace-parts.ts';

/** How long a turn of the computation keeps the worker before it takes its messages. */
const TURN_MS = 15;

async function inTurns<T>(work: Sliced<T>): Promise<T> {
  for (;;) {
    const start = performance.now();
    let r = work.next();
    while (!r.done && performance.now() - start < TURN_MS) r = work.next();
    if (r.done) return r.value;
    await nextTask();
  }
}

/**
 * Computes the trace part of each run that has one (hasWorkerTracePart) and gives it to `send` with its buffers to
 * transfer; a run whose part could not be made is sent `undefined` (the page then builds its view itself).
 */
export async function sendTraceParts(runs: readonly Run[], send: (run: number, part: TracePart | undefined, transfer: ArrayBuffer[]) => Promise<void>): Promise<void> {
  for (const [i, run] of runs.entries()) {
    if (!hasWorkerTracePart(run.steps.length)) continue;
    let part: TracePart | undefined;
    try {
      part = await inTurns(tracePartSlices(run));
    } catch {
      part = undefined;
    }
    // Not awaited: the next run's part is computed while the page takes this one.
    try {
      send(i, part, part ? transferablesOfPart(part) : []).catch(() => {});
    } catch {
      // not sent: the page waits TRACE_PART_WAIT_MS, then builds the view itself
    }
  }
}
