// Shadow-supervised estimates for the corpus: for recorded baseline runs, the supervisor replayed offline (LLM-free
// heuristics) in the statistics worker, or the interventions the engines panel already wrote into the run. Keyed by
// run id and kept in IndexedDB (../../store/shadow-db.ts) so a reload keeps them; the library's runs are not changed.
// Every figure derived from them is a counterfactual estimate and is labelled so.
import * as Comlink from 'comlink';
import { create } from 'zustand';
import { emptyRecord, recordOf } from '../../model/record.ts';
import type { ShadowEstimate } from '../../model/statistics.ts';
import type { Run } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { clearEstimates, loadEstimates, saveEstimates } from '../../store/shadow-db.ts';
import { statisticsWorker } from './statistics-client.ts';

export const SHADOW_PRESET = 'gaia' as const;

interface ShadowStore {
  estimates: Record<string, ShadowEstimate>;
  running: boolean;
  done: number;
  total: number;
  error: string | null;
  run(runs: Run[]): Promise<void>;
  /** Bring back the stored estimates that still fit the library's runs. */
  restore(runs: Record<string, Run>): Promise<void>;
  clear(): void;
}

export const useShadowEstimates = create<ShadowStore>((set, get) => ({
  estimates: emptyRecord(),
  running: false,
  done: 0,
  total: 0,
  error: null,
  async run(runs) {
    if (get().running || runs.length === 0) return;
    set({ running: true, done: 0, total: runs.length, error: null });
    try {
      const worker = statisticsWorker();
      const progress = (done: number, total: number) => set({ done, total });
      if (!worker) throw new Error('this browser cannot start workers, which the shadow replay runs in');
      const results = await worker.shadowSupervise(runs, SHADOW_PRESET, Comlink.proxy(progress));
      const estimates = recordOf(get().estimates);
      for (const e of results) estimates[e.runId] = e;
      set({ estimates, running: false });
      await saveEstimates(useLibrary.getState().runs, results, SHADOW_PRESET).catch((e: unknown) =>
        set({ error: `the estimates are shown but could not be saved for the next visit: ${e instanceof Error ? e.message : String(e)}` }),
      );
    } catch (e) {
      set({ running: false, error: e instanceof Error ? e.message : String(e) });
    }
  },
  async restore(runs) {
    const stored = await loadEstimates(runs, SHADOW_PRESET).catch(() => emptyRecord<ShadowEstimate>());
    if (Object.keys(stored).length > 0 && !get().running) set({ estimates: recordOf(stored, get().estimates) });
  },
  clear() {
    void clearEstimates();
    set({ estimates: emptyRecord(), done: 0, total: 0, error: null });
  },
}));
