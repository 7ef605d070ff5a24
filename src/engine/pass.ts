// The shape every engine pass over a run shares (supervisor replay §5.1, rectify-or-reject §5.2, clarifier §5.3, stage
// derivation §5.4): an async generator that reports its progress and each result as it is decided, and returns the
// pass's result. Resume input is `previous`: results an earlier, interrupted pass made, reported again as `resumed`
// and not asked for again. A new engine writes its pass in this shape; the worker pump, the job store and the control
// bar take it from there.

/** What a pass reports while it works: its progress, and each result (an intervention, a stage) as it exists. */
export type PassEvent<Progress, Item> = { type: 'progress'; progress: Progress } | { type: 'item'; item: Item; resumed: boolean };

/** An engine pass: events while it works, then its result (it returns early, with status `cancelled`, on abort). */
export type EnginePass<Event, Result> = AsyncGenerator<Event, Result, void>;

/** The input every pass takes besides its own: a stop, and what an earlier pass over the run already decided. */
export interface PassInput<Item> {
  signal?: AbortSignal;
  previous?: readonly Item[];
}

export interface PassCallbacks<Progress, Item> {
  onProgress?: (progress: Progress) => void;
  /** Called as each result is decided (or carried over: `resumed`), so the caller can persist it before the next. */
  onItem?: (item: Item, resumed: boolean) => void;
}

type ProgressOf<E> = E extends { type: 'progress'; progress: infer P } ? P : never;
type ItemOf<E> = E extends { type: 'item'; item: infer I } ? I : never;

/**
 * Runs a pass to its end, handing progress and results to the callbacks (other event kinds are passed over).
 * `afterProgress` runs after each progress event (a worker lets queued messages, such as a stop, in).
 */
export async function drivePass<Event extends { type: string }, Result>(
  pass: EnginePass<Event, Result>,
  callbacks: PassCallbacks<ProgressOf<Event>, ItemOf<Event>>,
  afterProgress?: () => Promise<void>,
): Promise<Result> {
  for (;;) {
    const next = await pass.next();
    if (next.done) return next.value;
    const ev = next.value as { type: string; progress?: unknown; item?: unknown; resumed?: boolean };
    if (ev.type === 'progress') {
      callbacks.onProgress?.(ev.progress as ProgressOf<Event>);
      if (afterProgress) await afterProgress();
    } else if (ev.type === 'item') callbacks.onItem?.(ev.item as ItemOf<Event>, ev.resumed === true);
  }
}
