// Live runs enter the library like opened files (so they persist, show in every view and can be exported): a fork
// as its own entry, a batch as one entry that grows as its tasks finish.
import type { LlmCallRecord, Run } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';

export function addForkToLibrary(run: Run, calls: LlmCallRecord[]): void {
  useLibrary.getState().addLoaded({ file: `live: ${run.title}`, format: 'runner', formatLabel: 'Live run', runs: [run], warnings: [], llmCalls: calls });
}

/** Re-adding the batch's runs replaces its earlier library entry (same run ids), so there is one entry per batch. */
export function addBatchRunToLibrary(batchName: string, batchId: string, run: Run, calls: LlmCallRecord[]): void {
  const state = useLibrary.getState();
  const earlier = state.files.find((f) => f.runIds.some((id) => id.startsWith(`${batchId}:`)));
  const runs = (earlier?.runIds ?? []).filter((id) => id !== run.id).flatMap((id) => (state.runs[id] ? [state.runs[id]] : []));
  const keptCalls = (earlier?.llmCallIds ?? []).flatMap((id) => (state.llmCalls[id] ? [state.llmCalls[id]] : []));
  state.addLoaded({ file: `batch: ${batchName}`, format: 'runner', formatLabel: 'Live batch', runs: [...runs, run], warnings: [], llmCalls: [...keptCalls, ...calls] });
}
