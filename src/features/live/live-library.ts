// Live runs enter the library like opened files (so they persist, show in every view and can be exported): a fork
// as its own entry, a batch as one entry that grows as its tasks finish.
import type { LlmCallRecord, Run } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { usePersistence } from '../../store/library-db.ts';

/**
 * Resolves once the library has committed a write made after this call (or cannot save at all, or after a timeout),
 * so a batch item counts as done only when its run would survive a reload.
 */
export function waitForLibrarySave(timeoutMs = 10_000): Promise<void> {
  const from = usePersistence.getState().writes;
  return new Promise((resolve) => {
    let unsubscribe = () => {};
    const finish = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    };
    const check = (s: ReturnType<typeof usePersistence.getState>) => {
      if (s.status === 'unavailable' || s.status === 'failed' || (s.writes > from && s.status === 'saved')) finish();
    };
    const timer = setTimeout(finish, timeoutMs);
    unsubscribe = usePersistence.subscribe(check);
  });
}

export function addLiveRunToLibrary(run: Run, calls: LlmCallRecord[]): Promise<void> {
  const saved = waitForLibrarySave();
  useLibrary.getState().addLoaded({ file: `live: ${run.title}`, format: 'runner', formatLabel: 'Live run', runs: [run], warnings: [], llmCalls: calls });
  return saved;
}

/** Re-adding the batch's runs replaces its earlier library entry (same run ids), so there is one entry per batch. */
export function addBatchRunToLibrary(batchName: string, batchId: string, run: Run, calls: LlmCallRecord[]): Promise<void> {
  const saved = waitForLibrarySave();
  const state = useLibrary.getState();
  const earlier = state.files.find((f) => f.runIds.some((id) => id.startsWith(`${batchId}:`)));
  const runs = (earlier?.runIds ?? []).filter((id) => id !== run.id).flatMap((id) => (state.runs[id] ? [state.runs[id]] : []));
  const keptCalls = (earlier?.llmCallIds ?? []).flatMap((id) => (state.llmCalls[id] ? [state.llmCalls[id]] : []));
  state.addLoaded({ file: `batch: ${batchName}`, format: 'runner', formatLabel: 'Live batch', runs: [...runs, run], warnings: [], llmCalls: [...keptCalls, ...calls] });
  return saved;
}
