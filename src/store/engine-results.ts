// An engine's results, kept as they arrive: each intervention (or stage) goes into its run in the library and each
// recorded endpoint call into the library's calls, and IndexedDB is written at once instead of after the usual
// debounce (in a flood of results, after a rest in proportion to the last write: writeResults, ADR 0085). Before a
// result is shown it is guarded in the results journal (synchronous storage, ADR 0055) until that write has committed,
// so a reload or a crash during an engine run loses at most the call in flight (SPEC §9). Every engine job
// (supervisor, rectifier, clarifier, stages) keeps its results through here.
import { recordOf } from '../model/record.ts';
import { withIntervention, withInterventions, withStage, withStages } from '../model/run-results.ts';
import type { Intervention, LlmCallRecord, Run, Stage } from '../model/types.ts';
import { useLibrary } from './library.ts';
import { flushLibrary, journalResult, journalResults } from './library-db.ts';

export { withIntervention, withStage };

/**
 * After a write of results, the next waits this many times as long as that write took (at most MAX_REST_MS): a write
 * clones the whole run on the page, so writing at every batch of a long offline pass kept the page busy writing ever
 * larger runs (5,000 chat messages: 7 s of the page's 15 s of work). The journal guards the results meanwhile.
 */
export const REST_AFTER_WRITE = 3;
export const MAX_REST_MS = 2000;

let resting = false;
let wanted = false;

/** Write the library now, or after the rest that follows the last write of results. */
function writeResults(): void {
  if (resting) {
    wanted = true;
    return;
  }
  resting = true;
  wanted = false;
  // In a task of its own: IndexedDB's put clones the run on the page's thread, and in the task that kept the results
  // (their journal, the run's change, its render) it added ~30 ms to theirs (ADR 0108). The journal guards them meanwhile.
  setTimeout(() => {
    const start = performance.now();
    void flushLibrary().finally(() => {
      setTimeout(
        () => {
          resting = false;
          if (wanted) writeResults();
        },
        Math.min(MAX_REST_MS, REST_AFTER_WRITE * (performance.now() - start)),
      );
    });
  }, 0);
}

/** Change a library run and write it; nothing happens when the run has been removed meanwhile. */
function keepRunChange(runId: string, change: (run: Run) => Run, guard: () => void): void {
  const current = useLibrary.getState().runs[runId];
  if (!current) return;
  guard();
  useLibrary.getState().updateRun(change(current));
  writeResults();
}

/** Results of one run that arrived together (src/store/job-store.ts): one change of the run, one write, one render. */
export function keepInterventions(runId: string, ivs: readonly Intervention[]): void {
  keepRunChange(runId, (run) => withInterventions(run, ivs), () => journalResults(ivs.map((item) => ({ kind: 'intervention', runId, item }))));
}

export function keepStages(runId: string, stages: readonly Stage[]): void {
  keepRunChange(runId, (run) => withStages(run, stages), () => journalResults(stages.map((item) => ({ kind: 'stage', runId, item }))));
}

export function keepIntervention(runId: string, iv: Intervention): void {
  keepInterventions(runId, [iv]);
}

export function keepStage(runId: string, stage: Stage): void {
  keepStages(runId, [stage]);
}

export function keepLlmCall(record: LlmCallRecord): void {
  journalResult({ kind: 'call', item: record });
  useLibrary.setState((s) => {
    const llmCalls = recordOf(s.llmCalls);
    llmCalls[record.id] = record;
    return { llmCalls };
  });
  writeResults();
}
