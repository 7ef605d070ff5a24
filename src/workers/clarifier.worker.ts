// The edge clarifier's pass over a run off the main thread (SPEC §5.3). Each intervention and each recorded endpoint
// call is reported as soon as it exists, so the page persists it before the next edge: a cancel, a failure or a closed
// tab loses nothing already decided.
import * as Comlink from 'comlink';
import type { Intervention, LlmCallRecord, Run } from '../model/types.ts';
import { CallRecorder, LlmClient, type LlmSettings } from '../llm/index.ts';
import { ClarificationFailed, clarifyEdge, clarifyRunSteps, edgeStates, toIntervention, type ClarifyProgress, type ClarifyResult } from '../engine/clarifier/index.ts';
import { RunningJobs, runBudget } from './running-jobs.ts';

export interface ClarifierJob {
  run: Run;
  window: number;
  /** Absent: the heuristic flagger decides. Carries the API key, which LlmClient sends only to its base URL. */
  llm?: LlmSettings;
  /** Clarifier interventions already on the run: their edges are not asked again. */
  previous: Intervention[];
}

export interface ClarifierJobEvents {
  onProgress(progress: ClarifyProgress): void;
  onIntervention(intervention: Intervention, resumed: boolean): void;
  onCall(record: LlmCallRecord): void;
}

const jobs = new RunningJobs();
const breathe = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const api = {
  async start(jobId: number, job: ClarifierJob, events: ClarifierJobEvents): Promise<ClarifyResult> {
    return jobs.run(jobId, async (signal) => {
      const recorder = new CallRecorder((record) => void events.onCall(record));
      const budget = runBudget(job.llm, job.previous);
      const client = job.llm ? new LlmClient(job.llm, { recorder, budget }) : undefined;
      const it = clarifyRunSteps(job.run, { client, signal, previous: job.previous, window: job.window });
      for (;;) {
        const next = await it.next();
        if (next.done) return next.value;
        const ev = next.value;
        if (ev.type === 'progress') {
          void events.onProgress(ev.progress);
          await breathe();
        } else void events.onIntervention(ev.intervention, ev.resumed);
      }
    });
  },

  /** Clarify one edge of the run (the same engine call a live runner makes per handoff). */
  async startOne(jobId: number, job: ClarifierJob, handoffId: string, events: Pick<ClarifierJobEvents, 'onCall'>): Promise<Intervention> {
    return jobs.run(jobId, async (signal) => {
      const state = edgeStates(job.run, job.window).find((s) => s.id === handoffId);
      if (!state) throw new Error(`handoff ${handoffId} is not in run ${job.run.id}`);
      const recorder = new CallRecorder((record) => void events.onCall(record));
      const budget = runBudget(job.llm, job.previous);
      const client = job.llm ? new LlmClient(job.llm, { recorder, budget }) : undefined;
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
