// A derivation over every step of a run, written once and run two ways (ADR 0024): to the end in one call (the CLI,
// the engines, the tests, a small run on the page), or slice by slice on the page, which gives the browser back its
// thread between slices so that opening a run of 100k or 1M steps never blocks the page. A sliced derivation is a
// generator that yields, every SLICE steps or so, the fraction of its work done (0..1) and returns its result.

export type Sliced<T> = Generator<number, T, void>;

/**
 * The next task of this thread: a message to ourselves, which a page runs after rendering and input as due, and a
 * worker after the messages already queued (no 4 ms clamp, as setTimeout has when nested). Slice loops await it.
 *
 * One channel serves every call (ADR 0105): each call posts one message on it and is resolved by the task that message
 * makes, in the order called. A channel made per call cost ~60 µs a yield in Chromium against ~22 µs (2,000 yields on
 * the 2-core machine: 110–197 ms against 42–59 ms), and a page opening a 1M-step run yields thousands of times. Under
 * Node the port holds the process open only while a call waits on it.
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const port = taskPort();
    waiting.push(resolve);
    // Node: the receiving port keeps the process alive while a call waits (a browser has no ref, and needs none).
    if (waiting.length - nextWaiting === 1) (receiver as { ref?: () => void } | undefined)?.ref?.();
    port.postMessage(null);
  });
}

/** The calls of nextTask not yet resolved, from `nextWaiting` on (a head index: no shift over a long queue). */
let waiting: (() => void)[] = [];
let nextWaiting = 0;
let sender: MessagePort | undefined;
let receiver: MessagePort | undefined;

/** The port nextTask posts on; its other end resolves the oldest waiting call at each message. */
function taskPort(): MessagePort {
  if (sender) return sender;
  const channel = new MessageChannel();
  const port = channel.port1;
  receiver = port;
  port.onmessage = () => {
    const resolve = waiting[nextWaiting++];
    if (nextWaiting === waiting.length) {
      waiting = [];
      nextWaiting = 0;
      // Node: an idle port does not keep the process alive.
      (port as { unref?: () => void }).unref?.();
    }
    resolve?.();
  };
  sender = channel.port2;
  return sender;
}

/** Steps read between two yields: a few milliseconds of work for the passes over a run. */
export const SLICE = 2048;

/** Runs `work` to the end in one call. */
export function finish<T>(work: Sliced<T>): T {
  let r = work.next();
  while (!r.done) r = work.next();
  return r.value;
}

/**
 * `work` as a phase of a larger derivation: its fractions mapped onto [from, to]. With `spent`, the time of its own
 * steps (not the pauses between slices) is added to `spent.ms`.
 */
export function* phase<T>(work: Sliced<T>, from: number, to: number, spent?: { ms: number }): Sliced<T> {
  for (;;) {
    const t0 = spent ? performance.now() : 0;
    const r = work.next();
    if (spent) spent.ms += performance.now() - t0;
    if (r.done) return r.value;
    yield from + (to - from) * r.value;
  }
}

/**
 * How long a task of a sliced derivation on the page (a run view, a comparison) keeps the page's thread: a long task is 50 ms, and on a loaded machine a slice's
 * wall time can be several times its work.
 */
export const SLICE_BUDGET_MS = 12;

/** How often a progress bar is updated while a sliced derivation runs on the page. */
export const PROGRESS_MS = 100;

/**
 * Runs `work` to the end in tasks of about `budgetMs`, reporting its progress (0..1) after each task; resolves to its
 * result, or to undefined once `cancelled()` says so (checked between tasks).
 */
export async function runInSlices<T>(
  work: Sliced<T>,
  onProgress: (done: number) => void,
  cancelled: () => boolean,
  budgetMs = SLICE_BUDGET_MS,
  stats?: SliceStats,
): Promise<T | undefined> {
  for (;;) {
    const start = performance.now();
    let r = work.next();
    while (!r.done && performance.now() - start < budgetMs) r = work.next();
    if (stats) {
      stats.tasks++;
      stats.workMs += performance.now() - start;
    }
    if (r.done) return r.value;
    onProgress(r.value);
    await nextTask();
    if (cancelled()) {
      work.return(undefined as never);
      return undefined;
    }
  }
}

/** What a build in slices cost: its tasks and the time spent in them (the rest of its wall time was the browser's). */
export interface SliceStats {
  tasks: number;
  workMs: number;
}
