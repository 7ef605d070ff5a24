// Batches on the page: read back from IndexedDB, started in the live worker, every state stored before the batch
// goes on, finished runs added to the library as they come. A batch found "running" after a reload was interrupted:
// resuming it runs what was left (finished tasks are never repeated).
import { create } from 'zustand';
import { newBatch, type BatchSpec, type BatchState } from '../../engine/runner/batch.ts';
import type { LlmSettings } from '../../llm/settings.ts';
import type { LlmCallRecord } from '../../model/types.ts';
import { deleteBatch, loadBatches, saveBatch } from '../../store/batch-db.ts';
import { runBatchInWorker } from '../../workers/live-client.ts';
import { addBatchRunToLibrary } from './live-library.ts';
import { takeCallsOf } from './run-calls.ts';

interface BatchJobs {
  loaded: boolean;
  batches: Record<string, BatchState>;
  running: string[];
  errors: Record<string, string>;
  problems: string[];
  load(): Promise<void>;
  create(spec: BatchSpec): Promise<void>;
  start(id: string, llm: LlmSettings): Promise<void>;
  pause(id: string): void;
  remove(id: string): Promise<void>;
}

const controllers = new Map<string, AbortController>();

export const useBatchJobs = create<BatchJobs>((set, get) => ({
  loaded: false,
  batches: {},
  running: [],
  errors: {},
  problems: [],
  async load() {
    if (get().loaded) return;
    try {
      const { batches, problems } = await loadBatches();
      set({ loaded: true, batches: { ...Object.fromEntries(batches.map((b) => [b.spec.id, b])), ...get().batches }, problems });
    } catch (e) {
      set({ loaded: true, problems: [`stored batches could not be read: ${e instanceof Error ? e.message : String(e)}`] });
    }
  },
  async create(spec) {
    const state = newBatch(spec);
    await saveBatch(state);
    set({ batches: { ...get().batches, [spec.id]: state } });
  },
  async start(id, llm) {
    const state = get().batches[id];
    if (!state || controllers.has(id)) return;
    const controller = new AbortController();
    controllers.set(id, controller);
    const { [id]: _dropped, ...errors } = get().errors;
    void _dropped;
    set({ running: [...get().running, id], errors });
    const calls = new Map<string, LlmCallRecord>();
    try {
      await runBatchInWorker(
        state,
        llm,
        {
          onCall: (r) => void calls.set(r.id, r),
          onState: async (s) => {
            await saveBatch(s);
            set({ batches: { ...get().batches, [id]: s } });
          },
          onRun: async (run) => {
            await addBatchRunToLibrary(state.spec.name, id, run, takeCallsOf(run, calls));
          },
        },
        controller.signal,
      );
    } catch (e) {
      set({ errors: { ...get().errors, [id]: e instanceof Error ? e.message : String(e) } });
    } finally {
      controllers.delete(id);
      set({ running: get().running.filter((r) => r !== id) });
    }
  },
  pause(id) {
    controllers.get(id)?.abort();
  },
  async remove(id) {
    controllers.get(id)?.abort();
    await deleteBatch(id);
    const { [id]: _gone, ...batches } = get().batches;
    void _gone;
    set({ batches });
  },
}));
