// Corpus statistics off the main thread (SPEC §8: violins for 10k runs in < 200 ms without blocking the page), and
// shadow replays of the supervisor over many recorded runs for the corpus' supervised-estimate arm.
// The page sends small per-run records for statistics; whole runs only for shadow replays.
import * as Comlink from 'comlink';
import { corpusStatistics, type CorpusStatistics, type RunMetrics, type ShadowEstimate, type ViolinOptions } from '../model/statistics.ts';
import type { Run } from '../model/types.ts';
import { filterParams, PRESETS, shadowReplay, type PresetName } from '../engine/supervisor/index.ts';

const api = {
  corpusStatistics(runs: RunMetrics[], groupBy: string, options?: ViolinOptions): CorpusStatistics {
    return corpusStatistics(runs, groupBy, options);
  },

  /** LLM-free shadow replay of each run in turn (no endpoint: the heuristics decide, and say so). */
  async shadowSupervise(runs: Run[], preset: PresetName, onProgress?: (done: number, total: number) => void): Promise<ShadowEstimate[]> {
    const params = filterParams(PRESETS[preset]);
    const out: ShadowEstimate[] = [];
    for (const run of runs) {
      const result = await shadowReplay(run, { params });
      out.push({
        runId: run.id,
        status: result.status,
        baseline: result.tokens.baseline,
        supervisedEstimate: result.tokens.supervisedEstimate,
        supervisorOverhead: result.tokens.supervisorOverhead,
        interventions: result.interventions.length,
        triggers: result.triggers.length,
        heuristic: result.interventions.every((i) => i.heuristic),
      });
      onProgress?.(out.length, runs.length);
    }
    return out;
  },
};

export type StatisticsWorkerApi = typeof api;

Comlink.expose(api);
