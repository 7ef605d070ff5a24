// The page's side of the clarifier worker (see ./job-worker.ts): a stop asks it to abort, and the pass then returns
// its partial result.
import * as Comlink from 'comlink';
import type { ClarifyResult, EdgeGate } from '../engine/clarifier/index.ts';
import type { CostEstimate } from '../llm/cost.ts';
import type { Intervention, Run } from '../model/types.ts';
import { JobWorker, passEventsProxy } from './job-worker.ts';
import type { JobResult } from './pump.ts';
import type { ClarifierJob, ClarifierJobEvents, ClarifierWorkerApi } from './clarifier.worker.ts';

export type { ClarifierJob, ClarifierJobEvents } from './clarifier.worker.ts';
export type { CostEstimate, EngineCost } from '../llm/cost.ts';

const clarifier = new JobWorker<ClarifierWorkerApi>(() => new Worker(new URL('./clarifier.worker.ts', import.meta.url), { type: 'module', name: 'clarifier' }), 'clarifier');

export function runClarifierInWorker(job: ClarifierJob, events: ClarifierJobEvents, signal: AbortSignal): Promise<JobResult<ClarifyResult>> {
  return clarifier.job(signal, (_, id) => clarifier.withRuns([job.run], (api, [run]) => api.start(id, { ...job, run }, passEventsProxy(events))));
}

export function clarifyEdgeInWorker(job: ClarifierJob, handoffId: string, events: Pick<ClarifierJobEvents, 'onCall'>, signal: AbortSignal): Promise<Intervention> {
  return clarifier.job(signal, (_, id) => clarifier.withRuns([job.run], (api, [run]) => api.startOne(id, { ...job, run }, handoffId, Comlink.proxy(events))));
}

/** The cost of a pass before it runs, counted in the worker. */
export function estimateClarifierInWorker(runs: Run[], window: number, gate: EdgeGate | undefined, maxTokens?: number): Promise<CostEstimate> {
  return clarifier.withRuns(runs, (api, ferried) => api.estimate(ferried, window, gate, maxTokens));
}
