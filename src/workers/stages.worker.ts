// Stage derivation off the main thread (SPEC §5.4): the offline segmentation, or the Planner → Evaluator → Updater pass
// against the endpoint. Each derived stage and each recorded endpoint call is reported as soon as it exists, so the
// page can persist it: a cancel, a failure or a closed tab loses nothing already derived.
import * as Comlink from 'comlink';
import type { LlmCallRecord, Run, Stage } from '../model/types.ts';
import { CallRecorder, LlmClient, type LlmSettings } from '../llm/index.ts';
import { deriveOfflineStages, stagePassSteps, type StagePassProgress, type StagePassResult } from '../engine/stages/index.ts';
import { RunningJobs, runBudget } from './running-jobs.ts';

export interface StagesJob {
  run: Run;
  /** Absent: the offline segmentation heuristic. Carries the API key, which LlmClient sends only to its base URL. */
  llm?: LlmSettings;
  /** Stages of an earlier, interrupted pass over this run (derivedBy 'llm'): kept, not asked again. */
  previous: Stage[];
}

export interface StagesJobEvents {
  onProgress(progress: StagePassProgress): void;
  onStage(stage: Stage, resumed: boolean): void;
  onCall(record: LlmCallRecord): void;
}

const jobs = new RunningJobs();

const api = {
  async derive(jobId: number, job: StagesJob, events: StagesJobEvents): Promise<StagePassResult> {
    if (!job.llm) {
      const { stages } = deriveOfflineStages(job.run);
      void events.onProgress({ done: stages.length, total: stages.length, calls: 0, tokens: 0 });
      return { runId: job.run.id, status: 'complete', stages, tokens: { input: 0, output: 0, total: 0 }, calls: 0, total: stages.length };
    }
    const llm = job.llm;
    return jobs.run(jobId, async (signal) => {
      const recorder = new CallRecorder((record) => void events.onCall(record));
      const client = new LlmClient(llm, { recorder, budget: runBudget(llm, job.previous) });
      const it = stagePassSteps(job.run, { client, signal, previous: job.previous });
      for (;;) {
        const next = await it.next();
        if (next.done) return next.value;
        const ev = next.value;
        if (ev.type === 'progress') void events.onProgress(ev.progress);
        else void events.onStage(ev.stage, ev.resumed);
      }
    });
  },

  /** Stop a pass after the call in flight (which is aborted); its result comes back from `derive` as cancelled. */
  stop(jobId: number): void {
    jobs.stop(jobId);
  },
};

export type StagesWorkerApi = typeof api;

Comlink.expose(api);
