// The page's side of the rectifier worker (see ./job-worker.ts): a stop aborts the job in the worker, and a replay
// then returns its partial result.
import * as Comlink from 'comlink';
import type { CostEstimate } from '../llm/cost.ts';
import type { LlmSettings } from '../llm/settings.ts';
import type { Run } from '../model/types.ts';
import type { Domain, IndicatorPool, RectifyParams, MessageSummary, MiningProgress, MiningResult, RectifierStatistics, RectifyRunResult } from '../engine/rectifier/index.ts';
import { JobWorker } from './job-worker.ts';
import type { JobResult } from './pump.ts';
import type { PoolEmbeddingStatus, RectifierWorkerApi, RectifyJob, RectifyJobEvents } from './rectifier.worker.ts';

export type { PoolEmbeddingStatus, RectifyJob, RectifyJobEvents } from './rectifier.worker.ts';

const rectifier = new JobWorker<RectifierWorkerApi>(() => new Worker(new URL('./rectifier.worker.ts', import.meta.url), { type: 'module', name: 'rectifier' }), 'rectifier');
const withJob = rectifier.job.bind(rectifier);

export function rectifyInWorker(job: RectifyJob, events: RectifyJobEvents, signal: AbortSignal): Promise<JobResult<RectifyRunResult>> {
  return withJob(signal, (_, id) => rectifier.withRuns([job.run], (api, [run]) => api.start(id, { ...job, run }, Comlink.proxy(events))));
}

export function embedPoolInWorker(pool: IndicatorPool, llm: LlmSettings, onProgress: (done: number, total: number) => void, signal?: AbortSignal): Promise<PoolEmbeddingStatus> {
  return withJob(signal, (api, id) => api.embedPool(id, pool, llm, Comlink.proxy(onProgress)));
}

export function statisticsInWorker(messages: MessageSummary[]): Promise<RectifierStatistics> {
  return rectifier.remote().statistics(messages);
}

export function mineInWorker(runs: Run[], pool: IndicatorPool, llm: LlmSettings, domain: Domain, kDedup: number, onProgress: (p: MiningProgress) => void, signal?: AbortSignal): Promise<MiningResult> {
  return withJob(signal, (_, id) => rectifier.withRuns(runs, (api, ferried) => api.mine(id, ferried, pool, llm, domain, kDedup, Comlink.proxy(onProgress))));
}

/** The cost of a replay before it runs (pool embedding included, `cached` when IndexedDB holds it), counted in the worker. */
export function estimateRectifyInWorker(runs: Run[], pool: IndicatorPool, params: RectifyParams, llm: LlmSettings | undefined): Promise<CostEstimate> {
  return rectifier.withRuns(runs, (api, ferried) => api.estimate(ferried, pool, params, llm));
}
