// The page's side of the rectifier worker (see ./job-worker.ts): a stop aborts the job in the worker, and a replay
// then returns its partial result.
import * as Comlink from 'comlink';
import type { CostEstimate } from '../llm/cost.ts';
import type { LlmSettings } from '../llm/settings.ts';
import type { Run } from '../model/types.ts';
import type { Domain, IndicatorPool, RectifyParams, MessageSummary, MiningProgress, MiningResult, RectifierStatistics, RectifyRunResult } from '../engine/rectifier/index.ts';
import { JobWorker, passEventsProxy } from './job-worker.ts';
import type { FerryShape } from './run-ferry.ts';
import type { JobResult } from './pump.ts';
import type { PoolEmbeddingStatus, RectifierWorkerApi, RectifyJob, RectifyJobEvents } from './rectifier.worker.ts';

export type { PoolEmbeddingStatus, RectifyJob, RectifyJobEvents } from './rectifier.worker.ts';

const rectifier = new JobWorker<RectifierWorkerApi>(() => new Worker(new URL('./rectifier.worker.ts', import.meta.url), { type: 'module', name: 'rectifier' }), 'rectifier');
const withJob = rectifier.job.bind(rectifier);

/**
 * An indicator pool crosses through the ferry (ADR 0108): the published math pool is 2,000 indicators, 3 MB, and its
 * copy inside one postMessage held the page 40–75 ms at each call (a pass's start, and an estimate at each change of
 * its status). In parts of ~200 indicators (partSize: ~300 KB, a few ms each), once while the worker holds it.
 */
export const POOL_SHAPE: FerryShape = { keys: ['indicators'], inlineMax: 100 };

export function rectifyInWorker(job: RectifyJob, events: RectifyJobEvents, signal: AbortSignal): Promise<JobResult<RectifyRunResult>> {
  return withJob(signal, (_, id) => rectifier.withRunsAnd([job.run], job.pool, POOL_SHAPE, (api, [run], pool) => api.start(id, { ...job, run, pool }, passEventsProxy(events))));
}

export function embedPoolInWorker(pool: IndicatorPool, llm: LlmSettings, onProgress: (done: number, total: number) => void, signal?: AbortSignal): Promise<PoolEmbeddingStatus> {
  return withJob(signal, (_, id) => rectifier.withRunsAnd([], pool, POOL_SHAPE, (api, _runs, ferried) => api.embedPool(id, ferried, llm, Comlink.proxy(onProgress))));
}

export function statisticsInWorker(messages: MessageSummary[]): Promise<RectifierStatistics> {
  return rectifier.remote().statistics(messages);
}

export function mineInWorker(runs: Run[], pool: IndicatorPool, llm: LlmSettings, domain: Domain, kDedup: number, onProgress: (p: MiningProgress) => void, signal?: AbortSignal): Promise<MiningResult> {
  return withJob(signal, (_, id) => rectifier.withRunsAnd(runs, pool, POOL_SHAPE, (api, ferried, ferriedPool) => api.mine(id, ferried, ferriedPool, llm, domain, kDedup, Comlink.proxy(onProgress))));
}

/** The cost of a replay before it runs (pool embedding included, `cached` when IndexedDB holds it), counted in the worker. */
export function estimateRectifyInWorker(runs: Run[], pool: IndicatorPool, params: RectifyParams, llm: LlmSettings | undefined): Promise<CostEstimate> {
  return rectifier.withRunsAnd(runs, pool, POOL_SHAPE, (api, ferried, ferriedPool) => api.estimate(ferried, ferriedPool, params, llm));
}
