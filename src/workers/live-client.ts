// The page's side of the live-run worker: one worker, started on first use. A stop asks the worker to abort (the job
// then returns its partial result); a worker that dies rejects the call instead of hanging.
import * as Comlink from 'comlink';
import type { BatchState, ForkResult, TeamRunResult } from '../engine/runner/index.ts';
import type { LlmSettings } from '../llm/settings.ts';
import type { BatchEvents, ForkJob, LiveEvents, LiveWorkerApi, TeamJob } from './live.worker.ts';

export type { BatchEvents, EngineSwitches, ForkJob, LiveEvents, TeamJob } from './live.worker.ts';

let worker: Worker | undefined;
let remote: Comlink.Remote<LiveWorkerApi> | undefined;
let nextJobId = 1;

function connect(): { worker: Worker; remote: Comlink.Remote<LiveWorkerApi> } {
  if (!worker || !remote) {
    worker = new Worker(new URL('./live.worker.ts', import.meta.url), { type: 'module', name: 'live' });
    remote = Comlink.wrap<LiveWorkerApi>(worker);
  }
  return { worker, remote };
}

function disconnect(): void {
  worker?.terminate();
  worker = undefined;
  remote = undefined;
}

function job<T>(signal: AbortSignal, start: (api: Comlink.Remote<LiveWorkerApi>, jobId: number) => Promise<T>): Promise<T> {
  const { worker: w, remote: api } = connect();
  const jobId = nextJobId++;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => void api.stop(jobId);
    const onError = (e: ErrorEvent) => {
      disconnect();
      reject(new Error(e.message || 'the live-run worker stopped unexpectedly'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    w.addEventListener('error', onError, { once: true });
    start(api, jobId)
      .then(resolve, reject)
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
        w.removeEventListener('error', onError);
      });
    if (signal.aborted) onAbort();
  });
}

export function runTeamInWorker(team: TeamJob, events: LiveEvents, signal: AbortSignal): Promise<TeamRunResult> {
  return job(signal, (api, id) => api.runTeam(id, team, Comlink.proxy(events)) as Promise<TeamRunResult>);
}

export function forkInWorker(fork: ForkJob, events: LiveEvents, signal: AbortSignal): Promise<ForkResult> {
  return job(signal, (api, id) => api.fork(id, fork, Comlink.proxy(events)) as Promise<ForkResult>);
}

export function runBatchInWorker(state: BatchState, llm: LlmSettings, events: BatchEvents, signal: AbortSignal): Promise<BatchState> {
  return job(signal, (api, id) => api.runBatch(id, state, llm, Comlink.proxy(events)) as Promise<BatchState>);
}
