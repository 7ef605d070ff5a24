// The page's side of the live-run worker (see ./job-worker.ts): a stop asks the worker to abort, and the job then
// returns its partial result.
import * as Comlink from 'comlink';
import type { BatchState, ForkResult, TeamRunResult } from '../engine/runner/index.ts';
import type { LlmSettings } from '../llm/settings.ts';
import type { CostEstimate } from '../llm/cost.ts';
import type { BatchSpec } from '../engine/runner/batch.ts';
import { JobWorker } from './job-worker.ts';
import type { BatchEvents, ForkJob, LiveEvents, LiveWorkerApi, TeamJob } from './live.worker.ts';

export type { BatchEvents, EngineSwitches, ForkJob, LiveEvents, TeamJob } from './live.worker.ts';

const live = new JobWorker<LiveWorkerApi>(() => new Worker(new URL('./live.worker.ts', import.meta.url), { type: 'module', name: 'live' }), 'live-run');
const job = live.job.bind(live);

export function runTeamInWorker(team: TeamJob, events: LiveEvents, signal: AbortSignal): Promise<TeamRunResult> {
  return job(signal, (api, id) => api.runTeam(id, team, Comlink.proxy(events)) as Promise<TeamRunResult>);
}

export function forkInWorker(fork: ForkJob, events: LiveEvents, signal: AbortSignal): Promise<ForkResult> {
  return job(signal, (_, id) => live.withRuns([fork.parent], (api, [parent]) => api.fork(id, { ...fork, parent }, Comlink.proxy(events)) as Promise<ForkResult>));
}

export function runBatchInWorker(state: BatchState, llm: LlmSettings, events: BatchEvents, signal: AbortSignal): Promise<BatchState> {
  return job(signal, (api, id) => api.runBatch(id, state, llm, Comlink.proxy(events)) as Promise<BatchState>);
}

/** A batch's cost per arm before it runs, counted in the live worker. */
/** `embedModel`: the endpoint's embeddings model, when there is an endpoint (then a rectifier pool is embedded once). */
export function estimateBatchInWorker(spec: Pick<BatchSpec, 'tasks' | 'arms' | 'team' | 'engines' | 'supervisor'>, maxTokens?: number, embedModel?: string): Promise<CostEstimate> {
  return live.remote().estimateBatch({ tasks: spec.tasks, arms: spec.arms, team: spec.team, engines: spec.engines, supervisor: spec.supervisor }, maxTokens, embedModel);
}
