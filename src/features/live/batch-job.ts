// Batches on the page: read back from IndexedDB, started in the live worker, every state stored before the batch
// goes on, finished runs added to the library as they come. A batch found "running" after a reload was interrupted:
// resuming it runs what was left (finished tasks are never repeated).
import { create } from 'zustand';
import { isBatchState, newBatch, type BatchSpec, type BatchState } from '../../engine/runner/batch.ts';
import { emptyRecord, ownValue, recordFromEntries, recordOf } from '../../model/record.ts';
import type { LlmCallRecord } from '../../model/types.ts';
import { deleteBatch, loadBatches, saveBatch } from '../../store/batch-db.ts';
import type { LlmSettings } from '../../store/endpoint.ts';
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
  batches: emptyRecord(),
  running: [],
  errors: emptyRecord(),
  problems: [],
  async load() {
    if (get().loaded) return;
    try {
      const { batches, problems } = await loadBatches(isBatchState);
      set({ loaded: true, batches: recordOf(recordFromEntries(batches.map((b) => [b.spec.id, b] as const)), get().batches), problems });
    } catch (e) {
      set({ loaded: true, problems: [`stored batches could not be read: ${e instanceof Error ? e.message : String(e)}`] });
    }
  },
  async create(spec) {
    const state = newBatch(spec);
    await saveBatch(state);
    set({ batches: recordOf(get().batches, { [spec.id]: state }) });
  },
  async start(id, llm) {
    const state = ownValue(get().batches, id);
    if (!state || controllers.has(id)) return;
    const controller = new AbortController();
    controllers.set(id, controller);
    const errors = recordOf(get().errors);
    delete errors[id];
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
            set({ batches: recordOf(get().batches, { [id]: s }) });
          },
          onRun: async (run) => {
            await addBatchRunToLibrary(state.spec.name, id, run, takeCallsOf(run, calls));
          },
        },
        controller.signal,
      );
    } catch (e) {
      set({ errors: recordOf(get().errors, { [id]: e instanceof Error ? e.message : String(e) }) });
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
    const batches = recordOf(get().batches);
    delete batches[id];
    set({ batches });
  },
}));
