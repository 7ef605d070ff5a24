// The worker side of every engine pass (see ../engine/pass.ts): one loop that runs a pass as a stoppable job and posts
// each progress report, result and recorded endpoint call to the page as soon as it exists, so the page can persist
// it before the next one — a cancel, a failure or a closed tab loses nothing already decided.
import type { LlmCallRecord } from '../model/types.ts';
import { CallRecorder, Cassette, LlmClient, type LlmSettings } from '../llm/index.ts';
import { drivePass, type EnginePass, type PassEvent } from '../engine/pass.ts';
import { RunningJobs, runBudget } from './running-jobs.ts';
import { nextTask } from '../model/slices.ts';

/** What the page hears from a pass: the same three callbacks for every engine. */
export interface PassEvents<Progress, Item> {
  onProgress(progress: Progress): void;
  onItem(item: Item, resumed: boolean): void;
  onCall(record: LlmCallRecord): void;
}

/** What every engine job carries besides its own input. */
export interface PassJob<Previous extends { tokens?: { total: number } }> {
  /** Absent: the engine's LLM-free path. Carries the API key, which LlmClient sends only to its base URL. */
  llm?: LlmSettings;
  /** Results an earlier pass over the run made: kept, not asked again, and their tokens count against the budget. */
  previous: Previous[];
  /** Answer every call from these recorded calls (a replay): nothing is sent anywhere. */
  cassette?: LlmCallRecord[];
}

/** The job's endpoint client (none offline): every call is posted to the page, within the run's remaining budget. */
export function passClient(job: PassJob<{ tokens?: { total: number } }>, onCall: (record: LlmCallRecord) => void): LlmClient | undefined {
  if (!job.llm) return undefined;
  const recorder = new CallRecorder((record) => void onCall(record));
  const cassette = job.cassette ? new Cassette(job.cassette) : undefined;
  return new LlmClient(job.llm, { recorder, budget: runBudget(job.llm, job.previous), cassette });
}

/**
 * Lets queued messages (a stop) in between the steps of a pass that never waits on the network: the next task, not a
 * timer, which waits 4 ms once nested (an offline rectify pass over 2,000 chat messages spent 10 s waiting so).
 */
const breathe = nextTask;

/**
 * Runs the pass that `start` makes (given the job's client and stop signal) as job `jobId`, posting its events;
 * resolves with the pass's result, partial when stopped.
 */
export function pumpPass<Progress, Item, Event extends PassEvent<Progress, Item> | { type: string }, Result>(
  jobs: RunningJobs,
  jobId: number,
  job: PassJob<{ tokens?: { total: number } }>,
  events: PassEvents<Progress, Item>,
  start: (client: LlmClient | undefined, signal: AbortSignal) => EnginePass<Event, Result> | Promise<EnginePass<Event, Result>>,
): Promise<Result> {
  return jobs.run(jobId, async (signal) => {
    const pass = await start(passClient(job, (record) => void events.onCall(record)), signal);
    return drivePass(pass as EnginePass<PassEvent<Progress, Item>, Result>, {
      onProgress: (progress) => void events.onProgress(progress),
      onItem: (item, resumed) => void events.onItem(item, resumed),
    }, breathe);
  });
}
