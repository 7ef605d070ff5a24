// The runtime supervisor's shadow replay off the main thread (SPEC §5.1, §4 Engines panel). Each intervention and
// each recorded endpoint call is reported as soon as it exists, so the page can persist it before the next one: a
// cancel, a failure or a closed tab loses nothing already decided.
import type { Intervention, Run } from '../model/types.ts';
import { loadTokenCounter } from '../llm/usage.ts';
import type { CostEstimate } from '../llm/cost.ts';
import {
  accountTokens,
  estimateSupervisorCost,
  filterParams,
  shadowReplaySteps,
  shadowSupervisedRun,
  type FilterThresholds,
  type ShadowProgress,
  type ShadowResult,
  type TokenSummary,
} from '../engine/supervisor/index.ts';
import { jobResult, pumpPass, type JobResult, type PassEvents, type PassJob } from './pump.ts';
import { ferryHostApi, runOf } from './run-ferry-host.ts';
import { storeRuns, type RunStorage } from './import-storage.ts';
import { runPatch, type RunPatch } from '../model/run-patch.ts';
import type { FerriedJob, FerriedRun } from './run-ferry.ts';
import { RunningJobs } from './running-jobs.ts';

export interface SupervisorJob extends PassJob<Intervention> {
  run: Run;
  thresholds: FilterThresholds;
  nonCriticalErrors: string[];
}

export type SupervisorJobEvents = PassEvents<ShadowProgress, Intervention>;

/**
 * The replay's result as the page receives it: without the interventions, which reached it one by one (JobResult),
 * nor the filter's triggers, which the page does not read (their count is in the progress). Over 20,000 action steps
 * with 10,000 failed ones, the two lists made the page take ~80 ms only to receive the result (ADR 0087).
 */
export type SupervisorJobResult = Omit<JobResult<ShadowResult>, 'triggers'>;

/** The supervisor worker's API (exposed by supervisor.worker.ts; called directly by tests). */
export function supervisorApi() {
  const jobs = new RunningJobs();
  /**
   * Shadow-supervised runs derived with `keep`, by run id, until the page has each written (storeDerived) or lets it go
   * (dropDerived). By id, not one slot: two derivations in flight at once (the Corpus deriving its runs while Compare
   * derives another) each find their own run when the page asks for it.
   */
  const derived = new Map<string, Run>();

  return {
    ...ferryHostApi,

    async start(jobId: number, ferried: FerriedJob<SupervisorJob>, events: SupervisorJobEvents): Promise<SupervisorJobResult> {
      const job = { ...ferried, run: runOf(ferried.run) };
      const params = filterParams(job.thresholds, { nonCriticalErrors: job.nonCriticalErrors });
      const progressEvery = Math.max(1, Math.floor(job.run.steps.length / 200));
      const { triggers: _, ...result } = jobResult(await pumpPass(jobs, jobId, job, events, (client, signal) => shadowReplaySteps(job.run, { params, client, signal, previous: job.previous, progressEvery })));
      return result;
    },

    /** Stop a replay after the call in flight (which is aborted); its result comes back from `start` as cancelled. */
    stop(jobId: number): void {
      jobs.stop(jobId);
    },

    /** What a replay of these runs would cost with these thresholds, before any request (issue 21). */
    async estimate(runs: FerriedRun[], thresholds: FilterThresholds, nonCriticalErrors: string[], maxTokens?: number): Promise<CostEstimate> {
      return estimateSupervisorCost(runs.map(runOf), { params: filterParams(thresholds, { nonCriticalErrors }), maxTokens });
    },

    /**
     * The shadow-supervised run of a recorded run (issue 15): the supervisor's verdicts applied to a copy, tokens
     * re-estimated. Offline: the LLM-free heuristics decide, except on steps where the run already carries supervisor
     * interventions (an endpoint's verdicts, recorded), which are reused. Throws when the replay does not complete.
     * Returns what differs from the run sent (ADR 0060); with `keep`, holds the derived run for `storeDerived`.
     */
    async deriveShadow(ferried: FerriedRun, thresholds: FilterThresholds, nonCriticalErrors: string[], keep = false): Promise<RunPatch> {
      const source = runOf(ferried);
      const params = filterParams(thresholds, { nonCriticalErrors });
      const made = await shadowSupervisedRun(source, { params });
      if (made.result.status !== 'complete') throw new Error(made.result.failure?.message ?? `the shadow replay ended ${made.result.status}`);
      if (keep) derived.set(made.run.id, made.run);
      return runPatch(source, made.run);
    },

    /**
     * Write the run `deriveShadow` kept into the library's database (as the import worker writes runs: its serialising
     * costs the page nothing). Resolves once committed, to the ids of runs whose spans went apart.
     */
    async storeDerived(runId: string, target: RunStorage): Promise<string[]> {
      const run = derived.get(runId);
      if (run === undefined) throw new Error(`the derived run ${runId} is no longer held by the supervisor worker`);
      derived.delete(runId);
      return storeRuns(target, [run]);
    },

    /** Let go of a run `deriveShadow` kept that the page will not have written (it could not put the run together). */
    dropDerived(runId: string): void {
      derived.delete(runId);
    },

    /** The ids of the derived runs held (for tests). */
    heldDerived(): string[] {
      return [...derived.keys()];
    },

    /** The token summary of interventions already on a run (after a reload, when the replay's result is gone). */
    async account(run: FerriedRun, interventions: Intervention[]): Promise<TokenSummary> {
      return accountTokens(runOf(run), interventions, await loadTokenCounter());
    },
  };
}

export type SupervisorWorkerApi = ReturnType<typeof supervisorApi>;
