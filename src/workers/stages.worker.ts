// Stage derivation off the main thread (SPEC §5.4): the offline segmentation, or the Planner → Evaluator → Updater pass
// against the endpoint. Each derived stage and each recorded endpoint call is reported as soon as it exists, so the
// page can persist it: a cancel, a failure or a closed tab loses nothing already derived.
import * as Comlink from 'comlink';
import type { Run, Stage } from '../model/types.ts';
import type { CostEstimate } from '../llm/cost.ts';
import { deriveOfflineStages, estimateStagesCost, stagePassSteps, type StagePassProgress, type StagePassResult } from '../engine/stages/index.ts';
import { pumpPass, type PassEvents, type PassJob } from './pump.ts';
import { ferryHostApi, runOf } from './run-ferry-host.ts';
import type { FerriedJob, FerriedRun } from './run-ferry.ts';
import { RunningJobs } from './running-jobs.ts';

export interface StagesJob extends PassJob<Stage> {
  run: Run;
}

export type StagesJobEvents = PassEvents<StagePassProgress, Stage>;

const jobs = new RunningJobs();

const api = {
  ...ferryHostApi,

  async derive(jobId: number, ferried: FerriedJob<StagesJob>, events: StagesJobEvents): Promise<StagePassResult> {
    const job = { ...ferried, run: runOf(ferried.run) };
    if (!job.llm) {
      const { stages } = deriveOfflineStages(job.run);
      void events.onProgress({ done: stages.length, total: stages.length, calls: 0, tokens: 0 });
      return { runId: job.run.id, status: 'complete', stages, tokens: { input: 0, output: 0, total: 0 }, calls: 0, total: stages.length };
    }
    return pumpPass(jobs, jobId, job, events, (client, signal) => stagePassSteps(job.run, { client: client!, signal, previous: job.previous }));
  },

  /** What an endpoint pass over these runs would cost, before any request (issue 21). */
  async estimate(runs: FerriedRun[], maxTokens?: number): Promise<CostEstimate> {
    return estimateStagesCost(runs.map(runOf), { maxTokens });
  },

  /** Stop a pass after the call in flight (which is aborted); its result comes back from `derive` as cancelled. */
  stop(jobId: number): void {
    jobs.stop(jobId);
  },
};

export type StagesWorkerApi = typeof api;

Comlink.expose(api);
