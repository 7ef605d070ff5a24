// The page's side of the clarifier worker: one worker, started on first use; a stop asks it to abort (the pass then
// returns its partial result); a worker that dies rejects the call instead of hanging.
import * as Comlink from 'comlink';
import type { ClarifyResult } from '../engine/clarifier/index.ts';
import type { Intervention } from '../model/types.ts';
import type { ClarifierJob, ClarifierJobEvents, ClarifierWorkerApi } from './clarifier.worker.ts';

export type { ClarifierJob, ClarifierJobEvents } from './clarifier.worker.ts';

let worker: Worker | undefined;
let remote: Comlink.Remote<ClarifierWorkerApi> | undefined;
let nextJobId = 1;

function connect(): { worker: Worker; remote: Comlink.Remote<ClarifierWorkerApi> } {
  if (!worker || !remote) {
    worker = new Worker(new URL('./clarifier.worker.ts', import.meta.url), { type: 'module', name: 'clarifier' });
    remote = Comlink.wrap<ClarifierWorkerApi>(worker);
  }
  return { worker, remote };
}

function disconnect(): void {
  worker?.terminate();
  worker = undefined;
  remote = undefined;
}

export function runClarifierInWorker(job: ClarifierJob, events: ClarifierJobEvents, signal: AbortSignal): Promise<ClarifyResult> {
  const { worker: w, remote: api } = connect();
  const jobId = nextJobId++;
  return new Promise<ClarifyResult>((resolve, reject) => {
    const onAbort = () => void api.stop(jobId);
    const onError = (e: ErrorEvent) => {
      disconnect();
      reject(new Error(e.message || 'the clarifier worker stopped unexpectedly'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    w.addEventListener('error', onError, { once: true });
    api
      .start(jobId, job, Comlink.proxy(events))
      .then(resolve, reject)
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
        w.removeEventListener('error', onError);
      });
    if (signal.aborted) onAbort();
  });
}

export function clarifyEdgeInWorker(job: ClarifierJob, handoffId: string, events: Pick<ClarifierJobEvents, 'onCall'>, signal: AbortSignal): Promise<Intervention> {
  const { worker: w, remote: api } = connect();
  const jobId = nextJobId++;
  return new Promise<Intervention>((resolve, reject) => {
    const onAbort = () => void api.stop(jobId);
    const onError = (e: ErrorEvent) => {
      disconnect();
      reject(new Error(e.message || 'the clarifier worker stopped unexpectedly'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    w.addEventListener('error', onError, { once: true });
    api
      .startOne(jobId, job, handoffId, Comlink.proxy(events))
      .then(resolve, reject)
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
        w.removeEventListener('error', onError);
      });
    if (signal.aborted) onAbort();
  });
}
