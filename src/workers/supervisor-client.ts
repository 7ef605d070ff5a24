// The page's side of the supervisor worker: one worker, started on first use. A stop asks the worker to abort (the
// replay then returns its partial result); a worker that dies or fails to load rejects the call instead of hanging.
import type { Intervention, Run } from '../model/types.ts';
import { shadowRunId, type FilterThresholds, type TokenSummary } from '../engine/supervisor/index.ts';
import type { CostEstimate } from '../llm/cost.ts';
import { JobWorker, passEventsProxy } from './job-worker.ts';
import type { RunStorage } from './import-storage.ts';
import { applyRunPatch } from '../model/run-patch.ts';
import type { SupervisorJob, SupervisorJobEvents, SupervisorJobResult, SupervisorWorkerApi } from './supervisor.worker.ts';

export type { SupervisorJob, SupervisorJobEvents, SupervisorJobResult } from './supervisor.worker.ts';
export type { CostEstimate, EngineCost } from '../llm/cost.ts';

const supervisor = new JobWorker<SupervisorWorkerApi>(() => new Worker(new URL('./supervisor.worker.ts', import.meta.url), { type: 'module', name: 'supervisor' }), 'supervisor');

/** The replay's result without its interventions (each came through `events.onItem` before it) nor its triggers. */
export function runSupervisorInWorker(job: SupervisorJob, events: SupervisorJobEvents, signal: AbortSignal): Promise<SupervisorJobResult> {
  return supervisor.job(signal, (_, id) => supervisor.withRuns([job.run], (api, [run]) => api.start(id, { ...job, run }, passEventsProxy(events))));
}

export function accountInWorker(run: Run, interventions: Intervention[]): Promise<TokenSummary> {
  return supervisor.withRuns([run], (api, [ferried]) => api.account(ferried, interventions));
}

/** The cost of a replay before it runs, counted in the worker (the tokenizer over a long run must not block the page). */
export function estimateSupervisorInWorker(runs: Run[], thresholds: FilterThresholds, nonCriticalErrors: string[], maxTokens?: number): Promise<CostEstimate> {
  return supervisor.withRuns(runs, (api, ferried) => api.estimate(ferried, thresholds, nonCriticalErrors, maxTokens));
}

/**
 * The shadow-supervised run of `run`, derived offline in the worker (recorded endpoint verdicts reused). It comes back
 * as what differs from `run` and is put together here (ADR 0060). With `storage`, the worker writes it into the
 * library: `durable` settles once that has committed (to the runs whose spans went apart).
 */
export async function deriveShadowInWorker(
  run: Run,
  thresholds: FilterThresholds,
  nonCriticalErrors: string[],
  storage?: RunStorage,
): Promise<{ run: Run; durable?: Promise<string[]> }> {
  const patch = await supervisor.withRuns([run], (api, [ferried]) => api.deriveShadow(ferried, thresholds, nonCriticalErrors, storage !== undefined));
  let derived: Run;
  try {
    derived = applyRunPatch(run, patch);
  } catch (e) {
    // The worker kept the run for a write that will not come: it lets go of it.
    if (storage) await supervisor.remote().dropDerived(shadowRunId(run.id)).catch(() => {});
    throw e;
  }
  return { run: derived, durable: storage && supervisor.remote().storeDerived(derived.id, storage) };
}
