// The page's side of the rectifier worker: one worker, started on first use. A stop aborts the job in the worker (a
// replay then returns its partial result); a worker that dies rejects the call instead of hanging.
import * as Comlink from 'comlink';
import type { LlmSettings } from '../llm/settings.ts';
import type { Run } from '../model/types.ts';
import type { Domain, IndicatorPool, MessageSummary, MiningProgress, MiningResult, RectifierStatistics, RectifyRunResult } from '../engine/rectifier/index.ts';
import type { PoolEmbeddingStatus, RectifierWorkerApi, RectifyJob, RectifyJobEvents } from './rectifier.worker.ts';

export type { PoolEmbeddingStatus, RectifyJob, RectifyJobEvents } from './rectifier.worker.ts';

let worker: Worker | undefined;
let remote: Comlink.Remote<RectifierWorkerApi> | undefined;
let nextJobId = 1;

function connect() {
  if (!worker || !remote) {
    worker = new Worker(new URL('./rectifier.worker.ts', import.meta.url), { type: 'module', name: 'rectifier' });
    remote = Comlink.wrap<RectifierWorkerApi>(worker);
  }
  return { worker, remote };
}

function withJob<T>(signal: AbortSignal | undefined, call: (api: Comlink.Remote<RectifierWorkerApi>, jobId: number) => Promise<T>): Promise<T> {
  const { worker: w, remote: api } = connect();
  const jobId = nextJobId++;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => void api.stop(jobId);
    const onError = (e: ErrorEvent) => {
      worker?.terminate();
      worker = undefined;
      remote = undefined;
      reject(new Error(e.message || 'the rectifier worker stopped unexpectedly'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    w.addEventListener('error', onError, { once: true });
    call(api, jobId)
      .then(resolve, reject)
      .finally(() => {
        signal?.removeEventListener('abort', onAbort);
        w.removeEventListener('error', onError);
      });
    if (signal?.aborted) onAbort();
  });
}

export function rectifyInWorker(job: RectifyJob, events: RectifyJobEvents, signal: AbortSignal): Promise<RectifyRunResult> {
  return withJob(signal, (api, id) => api.start(id, job, Comlink.proxy(events)));
}

export function embedPoolInWorker(pool: IndicatorPool, llm: LlmSettings, onProgress: (done: number, total: number) => void, signal?: AbortSignal): Promise<PoolEmbeddingStatus> {
  return withJob(signal, (api, id) => api.embedPool(id, pool, llm, Comlink.proxy(onProgress)));
}

export function statisticsInWorker(messages: MessageSummary[]): Promise<RectifierStatistics> {
  return connect().remote.statistics(messages);
}

export function mineInWorker(runs: Run[], pool: IndicatorPool, llm: LlmSettings, domain: Domain, kDedup: number, onProgress: (p: MiningProgress) => void, signal?: AbortSignal): Promise<MiningResult> {
  return withJob(signal, (api, id) => api.mine(id, runs, pool, llm, domain, kDedup, Comlink.proxy(onProgress)));
}
