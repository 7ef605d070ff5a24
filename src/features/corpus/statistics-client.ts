// The corpus page's side of the statistics worker. One worker for the page's lifetime; a newer request supersedes an
// older one (its answer is dropped). Where Worker does not exist (jsdom) the same pure code runs inline.
import * as Comlink from 'comlink';
import { useEffect, useState } from 'react';
import { corpusStatistics, type CorpusStatistics, type RunMetrics } from '../../model/statistics.ts';
import type { StatisticsWorkerApi } from '../../workers/statistics.worker.ts';

let remote: Comlink.Remote<StatisticsWorkerApi> | undefined;

/** The page's statistics worker, started on first use; undefined where Worker does not exist. */
export function statisticsWorker(): Comlink.Remote<StatisticsWorkerApi> | undefined {
  if (typeof Worker === 'undefined') return undefined;
  remote ??= Comlink.wrap<StatisticsWorkerApi>(
    new Worker(new URL('../../workers/statistics.worker.ts', import.meta.url), { type: 'module', name: 'statistics' }),
  );
  return remote;
}

export interface StatisticsState {
  stats: CorpusStatistics | null;
  computing: boolean;
  /** Time the last computation took, worker round trip included. */
  ms: number | null;
  error: string | null;
}

export function useCorpusStatistics(runs: RunMetrics[], groupBy: string, logScale: boolean): StatisticsState {
  const [state, setState] = useState<StatisticsState>({ stats: null, computing: true, ms: null, error: null });
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, computing: true }));
    const started = performance.now();
    const worker = statisticsWorker();
    const options = { logScale };
    const result = worker ? worker.corpusStatistics(runs, groupBy, options) : Promise.resolve(corpusStatistics(runs, groupBy, options));
    result.then(
      (stats) => current && setState({ stats, computing: false, ms: performance.now() - started, error: null }),
      (e: unknown) => current && setState({ stats: null, computing: false, ms: null, error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      current = false;
    };
  }, [runs, groupBy, logScale]);
  return state;
}
