// The page's side of the stages worker: one worker, started on first use. A stop asks the worker to abort (the pass
// then returns its partial result); a worker that dies or fails to load rejects the call instead of hanging.
import * as Comlink from 'comlink';
import type { StagePassResult } from '../engine/stages/index.ts';
import type { StagesJob, StagesJobEvents, StagesWorkerApi } from './stages.worker.ts';

export type { StagesJob, StagesJobEvents } from './stages.worker.ts';

let worker: Worker | undefined;
let remote: Comlink.Remote<StagesWorkerApi> | undefined;
let nextJobId = 1;

function connect(): { worker: Worker; remote: Comlink.Remote<StagesWorkerApi> } {
  if (!worker || !remote) {
    worker = new Worker(new URL('./stages.worker.ts', import.meta.url), { type: 'module', name: 'stages' });
    remote = Comlink.wrap<StagesWorkerApi>(worker);
  }
  return { worker, remote };
}

function disconnect(): void {
  worker?.terminate();
  worker = undefined;
  remote = undefined;
}

export function deriveStagesInWorker(job: StagesJob, events: StagesJobEvents, signal: AbortSignal): Promise<StagePassResult> {
  const { worker: w, remote: api } = connect();
  const jobId = nextJobId++;
  return new Promise<StagePassResult>((resolve, reject) => {
    const onAbort = () => void api.stop(jobId);
    const onError = (e: ErrorEvent) => {
      disconnect();
      reject(new Error(e.message || 'the stages worker stopped unexpectedly'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    w.addEventListener('error', onError, { once: true });
    api
      .derive(jobId, job, Comlink.proxy(events))
      .then(resolve, reject)
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
        w.removeEventListener('error', onError);
      });
    if (signal.aborted) onAbort();
  });
}
