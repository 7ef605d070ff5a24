// The runtime supervisor's shadow replay off the main thread (SPEC §5.1, §4 Engines panel). Each intervention and
// each recorded endpoint call is reported as soon as it exists, so the page can persist it before the next one: a
// cancel, a failure or a closed tab loses nothing already decided.
import * as Comlink from 'comlink';
import type { Intervention, LlmCallRecord, Run } from '../model/types.ts';
import { CallRecorder, Cassette, LlmClient, type LlmSettings } from '../llm/index.ts';
import { loadTokenCounter } from '../llm/usage.ts';
import {
  accountTokens,
  filterParams,
  shadowReplaySteps,
  type FilterThresholds,
  type ShadowProgress,
  type ShadowResult,
  type TokenSummary,
} from '../engine/supervisor/index.ts';
import { RunningJobs, runBudget } from './running-jobs.ts';

export interface SupervisorJob {
  run: Run;
  thresholds: FilterThresholds;
  nonCriticalErrors: string[];
  /** Absent: the LLM-free heuristics decide. Carries the API key, which LlmClient sends only to its base URL. */
  llm?: LlmSettings;
  /** Supervisor interventions already made on this run: their steps are not asked again. */
  previous: Intervention[];
  /** Answer every call from these recorded calls (a replay): nothing is sent anywhere. */
  cassette?: LlmCallRecord[];
}

export interface SupervisorJobEvents {
  onProgress(progress: ShadowProgress): void;
  onIntervention(intervention: Intervention, resumed: boolean): void;
  onCall(record: LlmCallRecord): void;
}

const jobs = new RunningJobs();

/** Lets queued messages (a stop) in between steps of a replay that never waits on the network. */
const breathe = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const api = {
  async start(jobId: number, job: SupervisorJob, events: SupervisorJobEvents): Promise<ShadowResult> {
    return jobs.run(jobId, async (signal) => {
      const recorder = new CallRecorder((record) => void events.onCall(record));
      const budget = runBudget(job.llm, job.previous);
      const cassette = job.cassette ? new Cassette(job.cassette) : undefined;
      const client = job.llm ? new LlmClient(job.llm, { recorder, budget, cassette }) : undefined;
      const params = filterParams(job.thresholds, { nonCriticalErrors: job.nonCriticalErrors });
      const progressEvery = Math.max(1, Math.floor(job.run.steps.length / 200));
      const it = shadowReplaySteps(job.run, { params, client, signal, previous: job.previous, progressEvery });
      for (;;) {
        const next = await it.next();
        if (next.done) return next.value;
        const ev = next.value;
        if (ev.type === 'progress') {
          void events.onProgress(ev.progress);
          await breathe();
        } else if (ev.type === 'intervention') void events.onIntervention(ev.intervention, ev.resumed);
      }
    });
  },

  /** Stop a replay after the call in flight (which is aborted); its result comes back from `start` as cancelled. */
  stop(jobId: number): void {
    jobs.stop(jobId);
  },

  /** The token summary of interventions already on a run (after a reload, when the replay's result is gone). */
  async account(run: Run, interventions: Intervention[]): Promise<TokenSummary> {
    return accountTokens(run, interventions, await loadTokenCounter());
  },
};

export type SupervisorWorkerApi = typeof api;

Comlink.expose(api);
