// The page's side of the supervisor worker: one worker, started on first use. A stop asks the worker to abort (the
// replay then returns its partial result); a worker that dies or fails to load rejects the call instead of hanging.
import * as Comlink from 'comlink';
import type { Intervention, Run } from '../model/types.ts';
import type { ShadowResult, TokenSummary } from '../engine/supervisor/index.ts';
import type { SupervisorJob, SupervisorJobEvents, SupervisorWorkerApi } from './supervisor.worker.ts';

export type { SupervisorJob, SupervisorJobEvents } from './supervisor.worker.ts';

let worker: Worker | undefined;
let remote: Comlink.Remote<SupervisorWorkerApi> | undefined;
let nextJobId = 1;

function connect(): { worker: Worker; remote: Comlink.Remote<SupervisorWorkerApi> } {
  if (!worker || !remote) {
    worker = new Worker(new URL('./supervisor.worker.ts', import.meta.url), { type: 'module', name: 'supervisor' });
    remote = Comlink.wrap<SupervisorWorkerApi>(worker);
  }
  return { worker, remote };
}

function disconnect(): void {
  worker?.terminate();
  worker = undefined;
  remote = undefined;
}

export function runSupervisorInWorker(job: SupervisorJob, events: SupervisorJobEvents, signal: AbortSignal): Promise<ShadowResult> {
  const { worker: w, remote: api } = connect();
  const jobId = nextJobId++;
  return new Promise<ShadowResult>((resolve, reject) => {
    const onAbort = () => void api.stop(jobId);
    const onError = (e: ErrorEvent) => {
      disconnect();
      reject(new Error(e.message || 'the supervisor worker stopped unexpectedly'));
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

export function accountInWorker(run: Run, interventions: Intervention[]): Promise<TokenSummary> {
  return connect().remote.account(run, interventions);
}
