// An engine's results, kept as they arrive: each intervention (or stage) goes into its run in the library and each
// recorded endpoint call into the library's calls, and IndexedDB is written at once instead of after the usual
// debounce. Before a result is shown it is guarded in the results journal (synchronous storage, ADR 0055) until that
// write has committed, so a reload or a crash during an engine run loses at most the call in flight (SPEC §9). Every
// engine job (supervisor, rectifier, clarifier, stages) keeps its results through here.
import { recordOf } from '../model/record.ts';
import { withIntervention, withStage } from '../model/run-results.ts';
import type { Intervention, LlmCallRecord, Run, Stage } from '../model/types.ts';
import { useLibrary } from './library.ts';
import { flushLibrary, journalResult } from './library-db.ts';

export { withIntervention, withStage };

/** Change a library run and write it; nothing happens when the run has been removed meanwhile. */
function keepRunChange(runId: string, change: (run: Run) => Run, guard: () => void): void {
  const current = useLibrary.getState().runs[runId];
  if (!current) return;
  guard();
  useLibrary.getState().updateRun(change(current));
  void flushLibrary();
}

export function keepIntervention(runId: string, iv: Intervention): void {
  keepRunChange(runId, (run) => withIntervention(run, iv), () => journalResult({ kind: 'intervention', runId, item: iv }));
}

export function keepStage(runId: string, stage: Stage): void {
  keepRunChange(runId, (run) => withStage(run, stage), () => journalResult({ kind: 'stage', runId, item: stage }));
}

export function keepLlmCall(record: LlmCallRecord): void {
  journalResult({ kind: 'call', item: record });
  useLibrary.setState((s) => {
    const llmCalls = recordOf(s.llmCalls);
    llmCalls[record.id] = record;
    return { llmCalls };
  });
  void flushLibrary();
}
