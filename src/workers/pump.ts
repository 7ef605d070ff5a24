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
  /**
   * Results of an offline pass, posted together (ITEMS_PER_POST at most, none waiting over ITEMS_WAIT_MS). The page's
   * side adds it (passEventsProxy, job-worker.ts: through Comlink a missing method would be a failed call); an object
   * called in this thread (tests) without it gets each result through onItem.
   */
  onItems?(items: Item[], resumed: boolean[]): void;
  onCall(record: LlmCallRecord): void;
}

/**
 * An offline pass's results go to the page in posts of at most this many, none waiting longer than ITEMS_WAIT_MS.
 * One post per result cost the page and the worker a message each: the offline clarifier over 20,000 handoffs spent
 * ~0.14 ms per handoff so, ten times its own work (ADR 0110). A pass with an endpoint posts each result at once: it
 * comes after a call, and the page keeps it before the next (SPEC §9); offline, a result lost to a closed tab costs
 * nothing to make again.
 */
export const ITEMS_PER_POST = 64;
export const ITEMS_WAIT_MS = 16;

/** Results gathered for one post: flushed when full, when the oldest has waited ITEMS_WAIT_MS, or at the pass's end. */
function itemPoster<Item>(post: (items: Item[], resumed: boolean[]) => void) {
  let items: Item[] = [];
  let resumed: boolean[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (items.length === 0) return;
    const batch = items;
    const flags = resumed;
    items = [];
    resumed = [];
    post(batch, flags);
  };
  return {
    add(item: Item, wasResumed: boolean) {
      items.push(item);
      resumed.push(wasResumed);
      if (items.length >= ITEMS_PER_POST) flush();
      else timer ??= setTimeout(flush, ITEMS_WAIT_MS);
    },
    flush,
  };
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
 * At most one progress report is posted to the page in this time (ms); the latest waits for it, and the last one is
 * posted before the pass's result. An offline rectify pass reports after each message: over 20,000 chat messages
 * that was 17,500 reports, each a message the page took and a render of the view's controls, and the page had tasks
 * of 70–134 ms made of them. A progress bar moved 20 times a second looks the same.
 */
export const PROGRESS_EVERY_MS = 50;

/** The latest progress, posted at most once per `everyMs` (a timer posts one that waits, even while the pass waits). */
function progressPoster<Progress>(post: (progress: Progress) => void, everyMs: number) {
  let waiting: { progress: Progress } | undefined;
  let postedAt = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!waiting) return;
    const { progress } = waiting;
    waiting = undefined;
    postedAt = performance.now();
    post(progress);
  };
  return {
    report(progress: Progress) {
      waiting = { progress };
      const wait = postedAt + everyMs - performance.now();
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait);
    },
    flush,
  };
}

/**
 * Runs the pass that `start` makes (given the job's client and stop signal) as job `jobId`, posting its events;
 * resolves with the pass's result, partial when stopped. Each result is posted as it comes; progress at most once per
 * `progressEveryMs` (PROGRESS_EVERY_MS), its last report before the result.
 */
export function pumpPass<Progress, Item, Event extends PassEvent<Progress, Item> | { type: string }, Result>(
  jobs: RunningJobs,
  jobId: number,
  job: PassJob<{ tokens?: { total: number } }>,
  events: PassEvents<Progress, Item>,
  start: (client: LlmClient | undefined, signal: AbortSignal) => EnginePass<Event, Result> | Promise<EnginePass<Event, Result>>,
  { progressEveryMs = PROGRESS_EVERY_MS }: { progressEveryMs?: number } = {},
): Promise<Result> {
  return jobs.run(jobId, async (signal) => {
    const answered = pendingAnswers();
    const pass = await start(passClient(job, (record) => answered.track(events.onCall(record))), signal);
    // Offline, results go together; each before the progress that counts it, and all before the pass's result.
    const batched = !job.llm && typeof events.onItems === 'function' ? itemPoster<Item>((items, resumed) => answered.track(events.onItems!(items, resumed))) : undefined;
    const progress = progressPoster<Progress>((p) => {
      batched?.flush();
      answered.track(events.onProgress(p));
    }, progressEveryMs);
    try {
      return await drivePass(pass as EnginePass<PassEvent<Progress, Item>, Result>, {
        onProgress: progress.report,
        onItem: batched ? batched.add : (item, resumed) => answered.track(events.onItem(item, resumed)),
      }, breathe);
    } finally {
      batched?.flush();
      progress.flush();
      await answered.all();
    }
  });
}

/**
 * The page's answers to the callbacks still to come: the result is sent once it has answered every one. Each callback
 * of the page is a port of its own (Comlink.proxy), while the result comes back on the worker's port: without this
 * wait, the last results of a pass often reached the page after its result, so a caller could not take the result as
 * the end of them (ADR 0087). A callback called in this thread (tests) answers nothing to wait for.
 */
function pendingAnswers() {
  const pending = new Set<Promise<void>>();
  return {
    track(answer: unknown): void {
      if (!(answer instanceof Promise)) return;
      const settled: Promise<void> = answer.then(
        () => void pending.delete(settled),
        () => void pending.delete(settled),
      );
      pending.add(settled);
    },
    async all(): Promise<void> {
      await Promise.all(pending);
    },
  };
}

/**
 * A pass's result as the page receives it: without the interventions, which reached it one by one through `onItem`
 * (the page keeps them in the run as they come). After an offline rectify pass over 20,000 chat messages, the result
 * with its 17,500 interventions took a task of ~55 ms on the page only to be received; at a million steps, seconds.
 */
export type JobResult<Result extends { interventions: unknown }> = Omit<Result, 'interventions'>;

export function jobResult<Result extends { interventions: unknown }>(result: Result): JobResult<Result> {
  const { interventions: _, ...rest } = result;
  return rest;
}
