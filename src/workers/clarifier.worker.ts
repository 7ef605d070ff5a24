// The edge clarifier's pass over a run off the main thread (SPEC §5.3). Each intervention and each recorded endpoint
// call is reported as soon as it exists, so the page persists it before the next edge: a cancel, a failure or a closed
// tab loses nothing already decided.
import * as Comlink from 'comlink';
import type { Intervention, Run } from '../model/types.ts';
import {
  ClarificationFailed,
  clarifyEdge,
  clarifyRunSteps,
  edgeStateList,
  estimateClarifierCost,
  toIntervention,
  type ClarifyProgress,
  type ClarifyResult,
  type EdgeGate,
} from '../engine/clarifier/index.ts';
import type { CostEstimate } from '../llm/cost.ts';
import { jobResult, passClient, pumpPass, type JobResult, type PassEvents, type PassJob } from './pump.ts';
import { ferryHostApi, runOf } from './run-ferry-host.ts';
import type { FerriedJob, FerriedRun } from './run-ferry.ts';
import { RunningJobs } from './running-jobs.ts';

export interface ClarifierJob extends PassJob<Intervention> {
  run: Run;
  window: number;
  /** Which edges go to the model (default all). */
  gate?: EdgeGate;
}

export type ClarifierJobEvents = PassEvents<ClarifyProgress, Intervention>;

const jobs = new RunningJobs();

const api = {
  ...ferryHostApi,

  /** The pass's result without its interventions: the page has each from `onItem` (JobResult). */
  async start(jobId: number, ferried: FerriedJob<ClarifierJob>, events: ClarifierJobEvents): Promise<JobResult<ClarifyResult>> {
    const job = { ...ferried, run: runOf(ferried.run) };
    return jobResult(await pumpPass(jobs, jobId, job, events, (client, signal) => clarifyRunSteps(job.run, { client, signal, previous: job.previous, window: job.window, gate: job.gate })));
  },

  /** Clarify one edge of the run (the same engine call a live runner makes per handoff). */
  async startOne(jobId: number, ferried: FerriedJob<ClarifierJob>, handoffId: string, events: Pick<ClarifierJobEvents, 'onCall'>): Promise<Intervention> {
    const job = { ...ferried, run: runOf(ferried.run) };
    return jobs.run(jobId, async (signal) => {
      const states = edgeStateList(job.run, job.window);
      const at = states.indexOf(handoffId);
      const state = at === -1 ? undefined : states.at(at);
      if (!state) throw new Error(`handoff ${handoffId} is not in run ${job.run.id}`);
      const client = passClient(job, events.onCall);
      try {
        return toIntervention(await clarifyEdge(state, { client, signal }), state.stepId);
      } catch (e) {
        throw new Error(e instanceof ClarificationFailed ? e.message : e instanceof Error ? e.message : String(e));
      }
    });
  },

  /** What a pass over these runs would cost with this window and gate, before any request (issue 21). */
  async estimate(runs: FerriedRun[], window: number, gate: EdgeGate | undefined, maxTokens?: number): Promise<CostEstimate> {
    return estimateClarifierCost(runs.map(runOf), { window, gate, maxTokens });
  },

  stop(jobId: number): void {
    jobs.stop(jobId);
  },
};

export type ClarifierWorkerApi = typeof api;

Comlink.expose(api);
