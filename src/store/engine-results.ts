// An engine's results, kept as they arrive: each intervention (or stage) goes into its run in the library and each
// recorded endpoint call into the library's calls, and IndexedDB is written at once instead of after the usual
// debounce, so a reload or a crash during an engine run loses at most the call in flight (SPEC §9). Every engine job
// (supervisor, rectifier, clarifier, stages) keeps its results through here.
import { recordOf } from '../model/record.ts';
import type { Intervention, LlmCallRecord, Run } from '../model/types.ts';
import { useLibrary } from './library.ts';
import { flushLibrary } from './library-db.ts';

/** The run with `iv` added, or replacing the intervention with the same id. */
export function withIntervention(run: Run, iv: Intervention): Run {
  const at = run.interventions.findIndex((i) => i.id === iv.id);
  const interventions = at === -1 ? [...run.interventions, iv] : run.interventions.map((i, k) => (k === at ? iv : i));
  return { ...run, interventions };
}

/** Change a library run and write it; nothing happens when the run has been removed meanwhile. */
export function keepRunChange(runId: string, change: (run: Run) => Run): void {
  const current = useLibrary.getState().runs[runId];
  if (!current) return;
  useLibrary.getState().updateRun(change(current));
  void flushLibrary();
}

export function keepIntervention(runId: string, iv: Intervention): void {
  keepRunChange(runId, (run) => withIntervention(run, iv));
}

export function keepLlmCall(record: LlmCallRecord): void {
  useLibrary.setState((s) => {
    const llmCalls = recordOf(s.llmCalls);
    llmCalls[record.id] = record;
    return { llmCalls };
  });
  void flushLibrary();
}
