// The page's side of the stages worker (see ./job-worker.ts): a stop asks it to abort, and the pass then returns its
// partial result.
import type { StagePassResult } from '../engine/stages/index.ts';
import type { CostEstimate } from '../llm/cost.ts';
import type { Run } from '../model/types.ts';
import { JobWorker, passEventsProxy } from './job-worker.ts';
import type { StagesJob, StagesJobEvents, StagesWorkerApi } from './stages.worker.ts';

export type { StagesJob, StagesJobEvents } from './stages.worker.ts';
export type { CostEstimate, EngineCost } from '../llm/cost.ts';

const stages = new JobWorker<StagesWorkerApi>(() => new Worker(new URL('./stages.worker.ts', import.meta.url), { type: 'module', name: 'stages' }), 'stages');

export function deriveStagesInWorker(job: StagesJob, events: StagesJobEvents, signal: AbortSignal): Promise<StagePassResult> {
  return stages.job(signal, (_, id) => stages.withRuns([job.run], (api, [run]) => api.derive(id, { ...job, run }, passEventsProxy(events))));
}

/** The cost of an endpoint pass before it runs, counted in the worker. */
export function estimateStagesInWorker(runs: Run[], maxTokens?: number): Promise<CostEstimate> {
  return stages.withRuns(runs, (api, ferried) => api.estimate(ferried, maxTokens));
}
