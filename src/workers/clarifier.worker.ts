// The edge clarifier's pass over a run off the main thread (SPEC §5.3). Each intervention and each recorded endpoint
// call is reported as soon as it exists, so the page persists it before the next edge: a cancel, a failure or a closed
// tab loses nothing already decided.
import * as Comlink from 'comlink';
import type { Intervention, Run } from '../model/types.ts';
import { ClarificationFailed, clarifyEdge, clarifyRunSteps, edgeStates, toIntervention, type ClarifyProgress, type ClarifyResult } from '../engine/clarifier/index.ts';
import { passClient, pumpPass, type PassEvents, type PassJob } from './pump.ts';
import { RunningJobs } from './running-jobs.ts';

export interface ClarifierJob extends PassJob<Intervention> {
  run: Run;
  window: number;
}

export type ClarifierJobEvents = PassEvents<ClarifyProgress, Intervention>;

const jobs = new RunningJobs();

const api = {
  async start(jobId: number, job: ClarifierJob, events: ClarifierJobEvents): Promise<ClarifyResult> {
    return pumpPass(jobs, jobId, job, events, (client, signal) => clarifyRunSteps(job.run, { client, signal, previous: job.previous, window: job.window }));
  },

  /** Clarify one edge of the run (the same engine call a live runner makes per handoff). */
  async startOne(jobId: number, job: ClarifierJob, handoffId: string, events: Pick<ClarifierJobEvents, 'onCall'>): Promise<Intervention> {
    return jobs.run(jobId, async (signal) => {
      const state = edgeStates(job.run, job.window).find((s) => s.id === handoffId);
      if (!state) throw new Error(`handoff ${handoffId} is not in run ${job.run.id}`);
      const client = passClient(job, events.onCall);
      try {
        return toIntervention(await clarifyEdge(state, { client, signal }), state.stepId);
      } catch (e) {
        throw new Error(e instanceof ClarificationFailed ? e.message : e instanceof Error ? e.message : String(e));
      }
    });
  },

  stop(jobId: number): void {
    jobs.stop(jobId);
  },
};

export type ClarifierWorkerApi = typeof api;

Comlink.expose(api);
