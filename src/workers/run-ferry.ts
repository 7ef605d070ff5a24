// How a run reaches an engine worker without freezing the page (ADR 0057). A run passed to a worker as an argument is
// copied (structured clone) inside the one postMessage call, on the page's thread: 0.6 s for a 200k-message chat log,
// seconds at a million steps, each time an engine view asks its worker for an estimate. Here a run's large arrays
// (steps, handoffs, spans, …) cross in parts of PART items, a few parts per task of at most BUDGET_MS, and the worker
// keeps them (run-ferry-host.ts) under a token that names the array: a run replaced by another with the same steps
// array (a label, an intervention kept) is not sent again. The rest of the run crosses with the call, as before.
//
// Which arrays a worker holds is decided here, on the page: those of the calls in flight and of the last call, no more
// (a run of a million steps held by every engine worker the reader visited would cost hundreds of MB each).
//
// Other values with a large array cross the same way (ferryPlan with their FerryShape): the rectifier's indicator
// pool, 2,000 indicators and 3 MB, copied whole with each call took 40–75 ms of the page's thread, four times in one
// offline pass (ADR 0108).
import type { Remote } from 'comlink';
import { estimateBytes } from '../model/run-chunks.ts';
import { nextTask } from '../model/slices.ts';
import type { Run } from '../model/types.ts';

/**
 * The run's arrays that can be large, sent in parts (the other fields are small and cross with the call). An engine
 * pass keeps one intervention per audited message: after an offline rectify pass over 20,000 chat messages, the
 * estimate that follows it posted 17,500 interventions with its call, a task of ~100 ms on the page.
 */
export const FERRIED_ARRAYS = ['steps', 'handoffs', 'spans', 'annotations', 'interventions', 'agentRuns'] as const;
export type FerriedKey = (typeof FERRIED_ARRAYS)[number];

/** Up to this many items an array crosses with the call itself: a small run costs no more than before. */
export const INLINE_MAX = 1000;
/** Items per part: one part's copy takes a few milliseconds (1,000 chat messages ~3 ms on the 2-core machine). */
export const PART = 1000;
/** A task sends parts until it has spent this long, then gives the page its thread back. */
export const BUDGET_MS = 8;
/**
 * A part holds fewer items when its items are large: about this many bytes (estimateBytes, ~2× their JSON) at most.
 * 1,000 chat messages are ~620 KB so; 1,000 of a rectify pass's interventions were 2.4 MB, one copy of ~25 ms inside
 * one postMessage, past any budget (ADR 0108).
 */
export const PART_BYTES = 640_000;
/** Items looked at to size a part: spread over the array. */
const SIZE_SAMPLES = 16;

/** How many of `array`'s items go in one part: at most `most`, and about PART_BYTES by a sample of its items. */
export function partSize(array: readonly unknown[], most: number): number {
  const samples = Math.min(SIZE_SAMPLES, array.length);
  if (samples === 0) return most;
  let bytes = 0;
  for (let i = 0; i < samples; i++) bytes += estimateBytes(array[Math.floor((i * array.length) / samples)]);
  return Math.max(1, Math.min(most, Math.floor(PART_BYTES / (bytes / samples))));
}

/** A value as an engine worker receives it: its small fields, and its large arrays named by the token they were sent under. */
export interface Ferried<T> {
  head: T;
  arrays: { key: string; token: number; length: number }[];
}

/** A run as an engine worker receives it (its arrays are among FERRIED_ARRAYS). */
export type FerriedRun = Ferried<Run>;

/**
 * How a kind of value crosses: which of its fields are large arrays, and how many items go with the call itself. The
 * rest go in parts sized by their items' bytes (partSize).
 */
export interface FerryShape {
  keys: readonly string[];
  inlineMax: number;
}

/** Runs: their large arrays (FERRIED_ARRAYS). */
export const RUN_SHAPE: FerryShape = { keys: FERRIED_ARRAYS, inlineMax: INLINE_MAX };

/** The worker's side, as the page calls it (run-ferry-host.ts). */
export interface FerryHostApi {
  receiveRunPart(token: number, items: unknown[], length: number): void;
  dropRunArrays(tokens: number[]): void;
}

let lastToken = 0;
/**
 * The token of each array sent, by the array's identity and its length: runs are replaced, never edited in place, but
 * an array that grew all the same (a live run's, appended to) is sent again rather than read short.
 */
const tokens = new WeakMap<readonly unknown[], Map<number, number>>();

function tokenOf(array: readonly unknown[]): number {
  let byLength = tokens.get(array);
  if (!byLength) tokens.set(array, (byLength = new Map()));
  let token = byLength.get(array.length);
  if (token === undefined) byLength.set(array.length, (token = ++lastToken));
  return token;
}

/** What `use` sends of one value: the value as ferried, and the arrays to send by token. */
export interface FerryPlan<T> {
  ferried: Ferried<T>;
  send: Map<number, readonly unknown[]>;
}

/** `value` as a Ferried value of `shape` (no copy made): which of its arrays go in parts, and the rest. */
export function ferryPlan<T extends object>(value: T, shape: FerryShape): FerryPlan<T> {
  const head: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const arrays: Ferried<T>['arrays'] = [];
  const send = new Map<number, readonly unknown[]>();
  for (const key of shape.keys) {
    const array = (value as Record<string, unknown>)[key] as readonly unknown[] | undefined;
    if (!Array.isArray(array) || array.length <= shape.inlineMax) continue;
    const token = tokenOf(array);
    arrays.push({ key, token, length: array.length });
    send.set(token, array);
    head[key] = [];
  }
  return { ferried: { head: head as T, arrays }, send };
}

/** `run` as a FerriedRun (no copy made): which of its arrays go in parts, and the rest. */
export function ferried(run: Run): FerryPlan<Run> {
  return ferryPlan(run, RUN_SHAPE);
}

/**
 * One worker's ferry. `use` sends what the worker lacks of the runs, then makes the call with them as FerriedRuns; the
 * arrays stay held while any call that named them runs, and the last call's stay after it.
 */
export class RunFerry {
  /** Arrays the worker holds (all their parts sent), by token. */
  private readonly held = new Set<number>();
  /** Sends under way, so two calls with the same run send it once. */
  private readonly sending = new Map<number, Promise<void>>();
  /** Calls in flight that named each token. */
  private readonly inUse = new Map<number, number>();

  /** The release due once no call has used the worker for `idleMs`. */
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `idleMs`: the worker lets go of the runs it holds once no call has come for that long (a million-step chat log
   * is ~300 MB in each engine worker that had it); the next call sends them again.
   */
  constructor(
    private readonly remote: Remote<FerryHostApi>,
    private readonly idleMs?: number,
  ) {}

  use<T>(runs: readonly Run[], call: (runs: FerriedRun[]) => Promise<T>): Promise<T> {
    return this.usePlans(runs.map(ferried), call);
  }

  /**
   * `use` for any values planned by ferryPlan (a run's, an indicator pool's): what the worker lacks of them is sent,
   * then the call is made with them as Ferried values, in the order given.
   */
  async usePlans<T, V>(plans: readonly FerryPlan<V>[], call: (values: Ferried<V>[]) => Promise<T>): Promise<T> {
    clearTimeout(this.idleTimer);
    const named = new Set(plans.flatMap((p) => [...p.send.keys()]));
    for (const t of named) this.inUse.set(t, (this.inUse.get(t) ?? 0) + 1);
    try {
      await this.dropIdle(named);
      for (const plan of plans) for (const [token, array] of plan.send) await this.ensure(token, array);
      return await call(plans.map((p) => p.ferried));
    } finally {
      for (const t of named) {
        const n = (this.inUse.get(t) ?? 1) - 1;
        if (n > 0) this.inUse.set(t, n);
        else this.inUse.delete(t);
      }
      if (this.idleMs !== undefined && this.inUse.size === 0) {
        clearTimeout(this.idleTimer);
        this.idleTimer = setTimeout(() => void this.release().catch(() => {}), this.idleMs);
      }
    }
  }

  /** Drops every array the worker holds that no call in flight names (a worker whose runs are not asked for again). */
  release(): Promise<void> {
    return this.dropIdle(new Set());
  }

  /** What the worker holds now (for tests). */
  holding(): number[] {
    return [...this.held];
  }

  /** Drops the held arrays that no call in flight names and `keep` does not name. */
  private async dropIdle(keep: ReadonlySet<number>): Promise<void> {
    const idle = [...this.held].filter((t) => !keep.has(t) && !this.inUse.has(t));
    if (idle.length === 0) return;
    for (const t of idle) this.held.delete(t);
    await this.remote.dropRunArrays(idle);
  }

  private ensure(token: number, array: readonly unknown[]): Promise<void> {
    if (this.held.has(token)) return Promise.resolve();
    let sending = this.sending.get(token);
    if (!sending) {
      sending = this.send(token, array).finally(() => this.sending.delete(token));
      this.sending.set(token, sending);
    }
    return sending;
  }

  private async send(token: number, array: readonly unknown[]): Promise<void> {
    const parts: Promise<void>[] = [];
    const part = partSize(array, PART);
    let from = 0;
    try {
      while (from < array.length) {
        const start = performance.now();
        // Each call copies its part now, inside postMessage; the worker's acknowledgements are awaited at the end.
        do {
          parts.push(this.remote.receiveRunPart(token, array.slice(from, from + part), array.length));
          from += part;
        } while (from < array.length && performance.now() - start < BUDGET_MS);
        if (from < array.length) await nextTask();
      }
      await Promise.all(parts);
      this.held.add(token);
    } catch (e) {
      // Whatever part did arrive is useless alone.
      await Promise.allSettled(parts);
      await this.remote.dropRunArrays([token]).catch(() => {});
      throw e;
    }
  }
}

/** A job as it crosses to its worker: its run ferried. */
export type FerriedJob<J extends { run: Run }> = Omit<J, 'run'> & { run: FerriedRun };
