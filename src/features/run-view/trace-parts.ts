// The trace part of a run view computed by the import worker (src/workers/trace-parts.ts) while the page takes the
// run's steps: the loop analysis, the graph and the per-position columns, as plain data and typed arrays that cross
// without a pass over the steps on the page. The page keeps them here, by the run's steps array, until the run is
// opened; the run view then builds only what names its own step objects (index, positions, handoffs by step) and
// takes the rest (run-view-model.ts). Kept apart and small: the page's import client loads it at first paint.
import type { InteractionGraph } from '../../model/graph.ts';
import type { Loop, LoopVerdict } from '../../model/loops.ts';
import type { Step, StepKind } from '../../model/types.ts';

export interface Lane {
  agentId: string;
  name: string;
  /** Depth in the manager hierarchy: managed agents' lanes nest under their manager's. */
  depth: number;
}

/** The replay positions an agent run covers, drawn as a band inside its agent's lane. */
export interface AgentRunBand {
  lane: number;
  first: number;
  last: number;
  task?: string;
}

/** RunView['tokens'] (run-view-model.ts): the token chart's columns. */
export interface TokenColumns {
  /** Per position, the step's own usage plus its nested steps'. */
  input: Float64Array;
  output: Float64Array;
  /** Running total (input + output) up to and including the position. */
  cumulative: Float64Array;
  /** 1 where any counted usage was estimated by a tokenizer. */
  estimated: Uint8Array;
  /** Whether any position's usage was estimated (the token chart says so in its header). */
  anyEstimated: boolean;
  /**
   * input and output summed over blocks of TOKEN_BLOCK positions, and 1 where a block has an estimated usage: the
   * token chart adds whole blocks into its bars instead of every step (at 1M steps its first render was a task of
   * 30–90 ms). `exact` when every usage is an integer, whose sums below 2^53 are the same in any order: else the
   * chart adds every step, as the blocks' sums could round differently.
   */
  blocks: { input: Float64Array; output: Float64Array; estimated: Uint8Array; exact: boolean };
  perAgent: { agentId: string; name: string; input: number; output: number }[];
  max: number;
}

/** RunView['time'] (run-view-model.ts): recorded timing per position (ms); NaN where unknown. `hasTime` when every step could be placed. */
export interface TimeColumns {
  start: Float64Array;
  end: Float64Array;
  hasTime: boolean;
  min: number;
  max: number;
}

/** A Loop as it crosses: its positions (and routing lines) in Int32Arrays, made number[] again on the page. */
export type PartLoop = Omit<Loop, 'positions' | 'routing'> & { positions: Int32Array; routing: Int32Array };

/**
 * What the worker sends for one run: the run view's fields that name no step object. The graph's per-position edge
 * lists cross as one flat list (`edgeList`, position p's edges at edgeStart[p]..edgeStart[p + 1]), not 100k arrays.
 */
export interface TracePart {
  /** Replay steps of the run as the worker saw it: the part is dropped when the page's differs. */
  positions: number;
  byKind: Map<StepKind, number>;
  /** The loops with their positions in typed arrays (transferred: a loop of a 1M-message chat log has 1M positions). */
  loops: PartLoop[];
  ledgerVerdicts: LoopVerdict[];
  /** Absent for a run whose graph the page derives itself (graphInPart). */
  graph?: Omit<InteractionGraph, 'edgesAt'> & { edgeStart: Int32Array; edgeList: Int32Array };
  loopAt: Int32Array;
  errorAt: Uint8Array;
  errorPositions: Int32Array;
  loopPositions: Int32Array;
  tokens: TokenColumns;
  time: TimeColumns;
  lanes: Lane[];
  laneAt: Int32Array;
  bands: AgentRunBand[];
}

/**
 * Runs of up to this many steps get their trace part from the worker (computed once the page has taken the run's
 * steps, its columns transferred, not copied). Up to 300,000 before: a million-step run was built on the page, at 1M
 * that was 6.7–8 s of the page's own work in ~400 slices after the click, against 1.4 s from the part (chat log,
 * load 5–7; the worker's part takes a few seconds of the worker's time, while the page indexes its steps). Larger runs
 * are built on the page: a bound on what the worker holds at once besides the run it is about to write.
 */
export const TRACE_PART_MAX_STEPS = 2_000_000;

/**
 * Runs of at least this many steps get a part without the graph: the page derives the graph itself, in slices, while
 * the worker computes the rest (the page would otherwise wait idle for the part). At 1M steps (chat log) the part
 * was the path from the listing to the painted view (the part reached the page ~2 s after the listing, the page's
 * own index was done in ~0.5 s), and the graph with what only it needs (the handoffs by step) was ~⅓ of the
 * worker's work. Smaller runs' parts come before a person (or the bench) opens the run: the graph stays there.
 */
export const PAGE_GRAPH_MIN_STEPS = 300_000;

/** Whether the worker's part of a run of `steps` steps carries the graph (both sides ask this). */
export function graphInPart(steps: number): boolean {
  return steps < PAGE_GRAPH_MIN_STEPS;
}

/**
 * How long an opened run waits for its part before building its view itself (a worker that went away never sends
 * it), plus TRACE_PART_WAIT_MS_PER_STEP a step (tracePartWaitMs). The worker sends a part or says it has none for
 * every run it was expected of; it computes a 100k-step run's part in about a second of its own time, several on a
 * loaded 2-core machine, and a 1M-step run's in 3–5 s.
 */
export const TRACE_PART_WAIT_MS = 10_000;
export const TRACE_PART_WAIT_MS_PER_STEP = 0.02;

/** How long the opening of a run of `steps` steps waits for its part: 12 s at 100k steps, 30 s at 1M. */
export function tracePartWaitMs(steps: number): number {
  return TRACE_PART_WAIT_MS + TRACE_PART_WAIT_MS_PER_STEP * steps;
}

/** Which run a part is for, as the worker names it: its step count and its first and last step ids. */
export interface TracePartRun {
  steps: number;
  first?: string;
  last?: string;
}

export function tracePartRun(steps: readonly Step[]): TracePartRun {
  return { steps: steps.length, first: steps[0]?.id, last: steps[steps.length - 1]?.id };
}

/** Whether `steps` are those of the run the worker named. */
export function isTracePartRun(steps: readonly Step[], named: TracePartRun): boolean {
  return steps.length === named.steps && steps[0]?.id === named.first && steps[steps.length - 1]?.id === named.last;
}

interface Expected {
  promise: Promise<TracePart | undefined>;
  settle(part: TracePart | undefined): void;
}

const expected = new WeakMap<readonly Step[], Expected>();

/**
 * Runs of fewer steps are built on the page: a few slices of its time (~45 ms at 5,000 steps), which waiting for the
 * worker would not shorten, and a file of many small runs would have the one opened wait for the parts of the runs
 * the worker computes before it.
 */
export const TRACE_PART_MIN_STEPS = 5000;

/** Whether the worker computes the trace part of a run of `steps` steps (both sides ask this). */
export function hasWorkerTracePart(steps: number): boolean {
  return steps >= TRACE_PART_MIN_STEPS && steps <= TRACE_PART_MAX_STEPS;
}

/** The page has taken `steps` from the import worker, which will send their trace part (or say it has none). */
export function expectTracePart(steps: readonly Step[]): void {
  if (!hasWorkerTracePart(steps.length) || expected.has(steps)) return;
  let settle!: (part: TracePart | undefined) => void;
  const promise = new Promise<TracePart | undefined>((resolve) => (settle = resolve));
  expected.set(steps, { promise, settle });
}

/** The worker's part for `steps` (undefined: it could not make one); a part nobody expects is dropped. */
export function deliverTracePart(steps: readonly Step[], part: TracePart | undefined): void {
  const wanted = expected.get(steps);
  if (!wanted) return;
  try {
    performance.mark(TRACE_PART_MARK, { detail: { steps: steps.length, part: part !== undefined } });
  } catch {
    // User Timing level 3 missing: the mark is for the bench only.
  }
  wanted.settle(part);
}

/** The User Timing mark of a trace part received (read by bench/open-run.bench.ts). */
export const TRACE_PART_MARK = 'mas-replay:trace-part';

/**
 * The part the worker sent or will send for `steps`, at most tracePartWaitMs from now; undefined when none is
 * expected. Kept until the view built from it is cached (forgetTracePart): an opening cancelled meanwhile (the page
 * left, React's double effects in development) leaves it to the next.
 */
export function takeTracePart(steps: readonly Step[]): Promise<TracePart | undefined> | undefined {
  const wanted = expected.get(steps);
  if (!wanted) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), tracePartWaitMs(steps.length))));
  return Promise.race([wanted.promise, late]).finally(() => clearTimeout(timer));
}

/** The view of `steps` is built (it holds the part's arrays): the part is not needed again. */
export function forgetTracePart(steps: readonly Step[]): void {
  expected.delete(steps);
}
