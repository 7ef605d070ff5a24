// Shadow-supervised estimates for the corpus: the supervisor replayed offline (LLM-free heuristics) on recorded
// baseline runs, in the statistics worker. Kept for the session of the page, keyed by run id; the library's runs are
// not changed. Every figure derived from them is a counterfactual estimate and is labelled so.
import * as Comlink from 'comlink';
import { create } from 'zustand';
import type { ShadowEstimate } from '../../model/statistics.ts';
import type { Run } from '../../model/types.ts';
import { statisticsWorker } from './statistics-client.ts';

export const SHADOW_PRESET = 'gaia' as const;

interface ShadowStore {
  estimates: Record<string, ShadowEstimate>;
  running: boolean;
  done: number;
  total: number;
  error: string | null;
  run(runs: Run[]): Promise<void>;
  clear(): void;
}

export const useShadowEstimates = create<ShadowStore>((set, get) => ({
  estimates: {},
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
      let results: ShadowEstimate[];
      if (worker) results = await worker.shadowSupervise(runs, SHADOW_PRESET, Comlink.proxy(progress));
      else {
        // No Worker (jsdom): the same engine inline.
        const { filterParams, PRESETS, shadowReplay } = await import('../../engine/supervisor/index.ts');
        results = [];
        for (const run of runs) {
          const r = await shadowReplay(run, { params: filterParams(PRESETS[SHADOW_PRESET]) });
          results.push({ runId: run.id, status: r.status, baseline: r.tokens.baseline, supervisedEstimate: r.tokens.supervisedEstimate, supervisorOverhead: r.tokens.supervisorOverhead, interventions: r.interventions.length, triggers: r.triggers.length, heuristic: r.interventions.every((i) => i.heuristic) });
          progress(results.length, runs.length);
        }
      }
      const estimates = { ...get().estimates };
      for (const e of results) estimates[e.runId] = e;
      set({ estimates, running: false });
    } catch (e) {
      set({ running: false, error: e instanceof Error ? e.message : String(e) });
    }
  },
  clear() {
    set({ estimates: {}, done: 0, total: 0, error: null });
  },
}));
