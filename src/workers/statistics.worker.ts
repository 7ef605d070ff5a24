// Corpus statistics off the main thread (SPEC §8: violins for 10k runs in < 200 ms without blocking the page), and
// shadow replays of the supervisor over many recorded runs for the corpus' supervised-estimate arm.
// The page sends small per-run records for statistics; whole runs only for shadow replays.
import * as Comlink from 'comlink';
import { corpusStatistics, type CorpusStatistics, type RunMetrics, type ShadowEstimate, type ViolinOptions } from '../model/statistics.ts';
import type { Run } from '../model/types.ts';
import { accountTokens, filterParams, PRESETS, shadowReplay, type PresetName } from '../engine/supervisor/index.ts';
import { loadTokenCounter } from '../llm/usage.ts';

const api = {
  corpusStatistics(runs: RunMetrics[], groupBy: string, options?: ViolinOptions): CorpusStatistics {
    return corpusStatistics(runs, groupBy, options);
  },

  /**
   * Supervised estimates for recorded runs. A run that already carries supervisor interventions (the engines panel
   * writes them in) is accounted with exactly those; any other run is replayed offline, LLM-free (the heuristics
   * decide, and say so).
   */
  async shadowSupervise(runs: Run[], preset: PresetName, onProgress?: (done: number, total: number) => void): Promise<ShadowEstimate[]> {
    const params = filterParams(PRESETS[preset]);
    const out: ShadowEstimate[] = [];
    for (const run of runs) {
      const recorded = run.interventions.filter((i) => i.engine === 'supervisor');
      if (recorded.length > 0) {
        const tokens = accountTokens(run, recorded, await loadTokenCounter());
        out.push({
          runId: run.id,
          status: 'complete',
          baseline: tokens.baseline,
          supervisedEstimate: tokens.supervisedEstimate,
          supervisorOverhead: tokens.supervisorOverhead,
          interventions: recorded.length,
          triggers: recorded.length,
          heuristic: recorded.every((i) => i.heuristic),
          source: 'interventions',
        });
      } else {
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
          source: 'replay',
        });
      }
      onProgress?.(out.length, runs.length);
    }
    return out;
  },
};

export type StatisticsWorkerApi = typeof api;

Comlink.expose(api);
