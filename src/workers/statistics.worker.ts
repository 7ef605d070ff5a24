// Corpus statistics off the main thread (SPEC §8: violins for 10k runs in < 200 ms without blocking the page). The
// page sends small per-run records. (Shadow-supervised runs are derived by the supervisor worker.)
import * as Comlink from 'comlink';
import { corpusStatistics, type CorpusStatistics, type RunMetrics, type ViolinOptions } from '../model/statistics.ts';

const api = {
  corpusStatistics(runs: RunMetrics[], groupBy: string, options?: ViolinOptions): CorpusStatistics {
    return corpusStatistics(runs, groupBy, options);
  },
};

export type StatisticsWorkerApi = typeof api;

Comlink.expose(api);
