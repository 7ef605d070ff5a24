// Everything the run view derives from a run, computed once and shared by every panel, so a playhead move is a lookup
// by position and never a scan over the steps. The trace's own data (index, loops, graph, tokens, lanes) is keyed on the
// steps array: an engine result makes a new Run with new interventions but the same steps, agents and handoffs, so it
// recomputes only the annotation and intervention positions, and the graph (whose object keys the layout) is kept.
import { deriveGraphSlices, markLoopsSlices, type InteractionGraph } from '../../model/graph.ts';
import { loopAnalysisSlices, markVerdicts, type Loop, type LoopAnalysis, type LoopVerdict } from '../../model/loops.ts';
import { indexRunSlices, type RunIndex } from '../../model/run-index.ts';
import { finish, phase, SLICE, type Sliced } from '../../model/slices.ts';
import type { StepCounts } from '../../model/steps.ts';
import type { Annotation, Handoff, Intervention, Run, Step, StepKind } from '../../model/types.ts';
import { appendAll } from '../../model/large-arrays.ts';
import { handoffsByStepSlices, stepPositionsSlices, type HandoffsByStep, type StepPositions } from '../../model/step-positions.ts';
import { forgetTracePart, graphInPart, type AgentRunBand, type Lane, type PartLoop, type TimeColumns, type TokenColumns, type TracePart } from './trace-parts.ts';

export type { AgentRunBand, Lane } from './trace-parts.ts';

export interface RunView {
  run: Run;
  /** Shared by every run object with the same steps: its `run` may be an older object, so read the run from `run`. */
  index: RunIndex;
  /** The steps the playhead moves over (replay steps), in order. */
  steps: readonly Step[];
  /** countStepKinds(steps), counted in the same pass as the other columns. */
  stepKinds: StepCounts;
  /**
   * Replay position of any step id; nested steps map to the position of the step that holds them. A hash table over
   * the positions, not a Map entry per step (src/model/step-positions.ts).
   */
  positionOf: ReadonlyMap<string, number>;
  /** The handoffs each step sends, by the step id they name (the inspector lists them; built in slices with the rest). */
  handoffsByStep: ReadonlyMap<string, readonly Handoff[]>;
  graph: InteractionGraph;
  loops: readonly Loop[];
  /**
   * Framework verdicts about loops (Magentic-One ledger is_in_loop, TRAIL Resource Abuse, the supervisor's
   * inefficient rule), by position: evidence shown beside the loops, never used to find them.
   */
  loopVerdicts: readonly LoopVerdict[];
  /** The ledger's verdicts alone: they come from the trace, the others from its annotations and interventions. */
  ledgerVerdicts: readonly LoopVerdict[];
  /** Index into `loops` per position, -1 when the step is not a repeated call. */
  loopAt: Int32Array;
  /** 1 where the step or one of its nested steps has an error. */
  errorAt: Uint8Array;
  /** Sorted positions to jump between. */
  errorPositions: Int32Array;
  annotationPositions: Int32Array;
  loopPositions: Int32Array;
  interventionPositions: Int32Array;
  annotationsAt: ReadonlyMap<number, Annotation[]>;
  interventionsAt: ReadonlyMap<number, Intervention[]>;
  /** Annotations on the run as a whole (no step or handoff). */
  runAnnotations: Annotation[];
  tokens: TokenColumns;
  time: TimeColumns;
  lanes: Lane[];
  laneAt: Int32Array;
  bands: AgentRunBand[];
}

/** Positions per block of RunView.tokens.blocks. */
export const TOKEN_BLOCK = 64;

/** What the view derives from the trace alone: nothing here reads annotations or interventions. */
type TraceView = Omit<RunView, 'run' | 'annotationPositions' | 'interventionPositions' | 'annotationsAt' | 'interventionsAt' | 'runAnnotations' | 'loopVerdicts'>;

interface TraceEntry {
  agents: Run['agents'];
  agentRuns: Run['agentRuns'];
  handoffs: Run['handoffs'];
  trace: TraceView;
}

const traceCache = new WeakMap<readonly Step[], TraceEntry>();
const cache = new WeakMap<Run, RunView>();

function cachedTrace(run: Run): TraceView | undefined {
  const hit = traceCache.get(run.steps);
  return hit && hit.agents === run.agents && hit.agentRuns === run.agentRuns && hit.handoffs === run.handoffs ? hit.trace : undefined;
}

/** The run view's derived data for `run`, built on first use and kept for as long as the run object lives. */
export function runViewOf(run: Run): RunView {
  return cache.get(run) ?? finish(runViewSlices(run));
}

/** Whether the trace part of `run`'s view is built (by another run object with the same steps): its view is quick. */
export function hasTraceView(run: Run): boolean {
  return cachedTrace(run) !== undefined;
}

/** The run view of `run` when it has been built already (runViewOf or runViewSlices to the end). */
export function cachedRunView(run: Run): RunView | undefined {
  return cache.get(run);
}

/**
 * runViewOf in slices (src/model/slices.ts), for the page to build the view of a large run without blocking it
 * (run-view-loader.ts). Kept in the same caches as runViewOf.
 */
export function* runViewSlices(run: Run, given: { steps?: StepsIndex; part?: TracePart; graph?: InteractionGraph } = {}): Sliced<RunView> {
  const done = cache.get(run);
  if (done) return done;
  let trace = cachedTrace(run);
  if (!trace) {
    const { part } = given;
    const steps = given.steps ?? (yield* phase(stepsIndexSlices(run), 0, part ? 0.7 : 0.15));
    // The graph the page derived while the worker computed a part without one (graphSlices): its loops are not
    // marked yet. Without a part, the view is built from it with the page's own loops.
    trace = (part && (yield* traceFromPartSlices(run, steps, part, given.graph))) || (yield* buildTraceViewSlices(run, steps, given.graph));
    traceCache.set(run.steps, { agents: run.agents, agentRuns: run.agentRuns, handoffs: run.handoffs, trace });
    if (part) forgetTracePart(run.steps);
  }
  const view = withMarks(run, trace);
  cache.set(run, view);
  return view;
}

/**
 * The positions in any loop, ascending: the positions loopAt marks (every loop's positions are marked). One pass over
 * the column, not a flattened list of every loop's positions put through a Set and sorted (~150 ms at 1M steps).
 */
function* positionsMarked(loopAt: Int32Array): Sliced<Int32Array> {
  let count = 0;
  for (let p = 0; p < loopAt.length; p++) {
    if (p % (8 * SLICE) === 8 * SLICE - 1) yield 0.98;
    if (loopAt[p] >= 0) count++;
  }
  const out = new Int32Array(count);
  for (let p = 0, k = 0; p < loopAt.length; p++) {
    if (p % (8 * SLICE) === 8 * SLICE - 1) yield 0.98;
    if (loopAt[p] >= 0) out[k++] = p;
  }
  return out;
}

function sortedPositions(set: Iterable<number>): Int32Array {
  return Int32Array.from(new Set(set)).sort();
}

export function buildRunView(run: Run): RunView {
  return withMarks(run, finish(buildTraceViewSlices(run, finish(stepsIndexSlices(run)))));
}

/** What the view indexes of the run's own step objects: built on the page in any case (the worker's part names none). */
export interface StepsIndex {
  index: RunIndex;
  positionOf: StepPositions;
  handoffsByStep: HandoffsByStep;
  /**
   * 1 at the replay positions whose step has nested steps (its id a key of index.childrenOf); undefined when no step
   * has any. The view's passes (loops, graph, columns) look a step's nested steps up only there: a lookup by id per step
   * and pass was ~45 ms a pass at 96k steps, a cache miss on each id.
   */
  nestedAt: Uint8Array | undefined;
}

/**
 * StepsIndex.nestedAt: from the ids of the steps that have nested steps (few in most runs), placed by the positions'
 * table; by a look at every replay step when two share an id (the table then knows only the last of them).
 */
function* nestedPositionsSlices(steps: readonly Step[], childrenOf: ReadonlyMap<string, readonly Step[]>, positionOf: StepPositions): Sliced<Uint8Array | undefined> {
  if (childrenOf.size === 0) return undefined;
  const nestedAt = new Uint8Array(steps.length);
  if (!positionOf.duplicates) {
    let k = 0;
    for (const parent of childrenOf.keys()) {
      if (++k % SLICE === 0) yield k / childrenOf.size;
      const p = positionOf.replay(parent);
      if (p !== undefined) nestedAt[p] = 1;
    }
    return nestedAt;
  }
  return yield* nestedByLookupSlices(steps, childrenOf, nestedAt);
}

/** StepsIndex.nestedAt by a look at every replay step (no positions' table at hand, or it knows only the last of an id). */
function* nestedByLookupSlices(steps: readonly Step[], childrenOf: ReadonlyMap<string, readonly Step[]>, into?: Uint8Array): Sliced<Uint8Array | undefined> {
  if (childrenOf.size === 0) return undefined;
  const nestedAt = into ?? new Uint8Array(steps.length);
  for (let p = 0; p < steps.length; p++) {
    if (p % SLICE === SLICE - 1) yield p / steps.length;
    if (childrenOf.has(steps[p].id)) nestedAt[p] = 1;
  }
  return nestedAt;
}

/** The step tree, the replay steps' positions by id and the handoffs by step (the first phases of the view). */
export function* stepsIndexSlices(run: Run): Sliced<StepsIndex> {
  const index = yield* phase(indexRunSlices(run), 0, 0.65);
  const steps = index.replaySteps;
  const positionOf = yield* phase(stepPositionsSlices(steps), 0.65, 0.85);
  // Nested steps get their replay step's position in the per-step pass of buildTraceViewSlices (or traceFromPartSlices).
  // A chat log has a handoff per message: a million of them indexed in one go was a task of 300–700 ms in the
  // inspector's first render; a Map of a million one-handoff lists, 400–500 ms here.
  const handoffsByStep = yield* phase(handoffsByStepSlices(run.handoffs, positionOf, steps.length), 0.85, 0.98);
  const nestedAt = yield* phase(nestedPositionsSlices(steps, index.childrenOf, positionOf), 0.98, 1);
  return { index, positionOf, handoffsByStep, nestedAt };
}

/**
 * What the view derives from the trace, in slices. Its phases, as parts of the whole (measured on the flat 96k-row
 * trace): the step tree, the loop analysis, the graph, then the per-position columns.
 */
function* buildTraceViewSlices(run: Run, steps: StepsIndex, graph?: InteractionGraph): Sliced<TraceView> {
  const analysis = yield* loopsSlices(run, steps);
  if (graph) yield* markLoopsSlices(graph, analysis.loops);
  else graph = yield* phase(graphSlices(run, steps, analysis.loops), 0.45, 0.8);
  return { ...(yield* traceColumnsSlices(run, steps, analysis)), positionOf: steps.positionOf, handoffsByStep: steps.handoffsByStep, graph };
}

/**
 * What the worker's part of a run without the graph needs of its steps (graphInPart): the step tree and the positions
 * with nested steps, not the positions by id nor the handoffs by step, which only the graph and the page read (at 1M
 * steps the positions' table alone was ~0.2–0.4 s of the worker's part).
 */
interface PartIndex {
  index: RunIndex;
  nestedAt: Uint8Array | undefined;
  /** The page's, to place nested steps by (absent in the worker's part without the graph: its positions do not cross). */
  positionOf?: StepPositions;
}

function* partIndexSlices(run: Run): Sliced<PartIndex> {
  const index = yield* phase(indexRunSlices(run), 0, 0.13);
  return { index, nestedAt: yield* phase(nestedByLookupSlices(index.replaySteps, index.childrenOf), 0.13, 0.15) };
}

/** The loops and the ledger's verdicts, read in the same passes over the steps. */
function* loopsSlices(run: Run, { index, nestedAt }: PartIndex): Sliced<LoopAnalysis> {
  // The loop analysis's time as the bench reads it: its own work, not the pauses between slices.
  const loopTime = { ms: 0 };
  const analysis = yield* phase(loopAnalysisSlices(index.replaySteps, index.childrenOf, {}, run.agents.flatMap((a) => [a.id, a.name]), nestedAt), 0.15, 0.45, loopTime);
  markDuration(LOOP_ANALYSIS_MEASURE, loopTime.ms);
  return analysis;
}

/**
 * The graph of the run view, its loops marked in it. Without loops: the graph the page derives while the import worker
 * computes the rest of a large run's view (graphInPart); its loops are marked when the worker's part brings them
 * (runViewSlices given both).
 */
export function graphSlices(run: Run, { index, positionOf, handoffsByStep, nestedAt }: StepsIndex, loops: readonly Loop[] = []): Sliced<InteractionGraph> {
  return deriveGraphSlices(run, index.replaySteps, index.childrenOf, loops, positionOf, handoffsByStep.positionOfHandoff, nestedAt);
}

/** What the view derives from the trace and its loops but the graph: the per-position columns. */
function* traceColumnsSlices(run: Run, { index, positionOf, nestedAt }: PartIndex, { loops, ledger }: LoopAnalysis): Sliced<Omit<TraceView, 'graph' | 'positionOf' | 'handoffsByStep'>> {
  const steps = index.replaySteps;
  const n = steps.length;
  const loopAt = new Int32Array(n).fill(-1);
  // A chat log's loops cover most of its million positions: marked a slice at a time.
  let marked = 0;
  for (let i = 0; i < loops.length; i++) {
    for (const p of loops[i].positions) {
      loopAt[p] = i;
      if (++marked % SLICE === 0) yield 0.8;
    }
  }

  const errorAt = new Uint8Array(n);
  const input = new Float64Array(n);
  const output = new Float64Array(n);
  const cumulative = new Float64Array(n);
  const estimated = new Uint8Array(n);
  const blocks = Math.ceil(n / TOKEN_BLOCK);
  const blockInput = new Float64Array(blocks);
  const blockOutput = new Float64Array(blocks);
  const blockEstimated = new Uint8Array(blocks);
  let anyEstimated = false;
  let integral = true;
  const start = new Float64Array(n).fill(NaN);
  const end = new Float64Array(n).fill(NaN);
  const perAgent = new Map<string, { agentId: string; name: string; input: number; output: number }>();
  for (const a of run.agents) perAgent.set(a.id, { agentId: a.id, name: a.name, input: 0, output: 0 });
  let running = 0;
  let max = 0;
  // Steps of one agent often come in runs: its totals are looked up again only when the agent changes.
  let agentId: string | undefined;
  let agent: { agentId: string; name: string; input: number; output: number } | undefined;
  const byKind = new Map<StepKind, number>();
  let kind: StepKind | undefined;
  let kindRun = 0;
  const errorPositions: number[] = [];
  // What the lanes and the agent-run bands need, read in this pass rather than in passes of their own over the steps
  // (each a pass over every step object: 11–61 ms at a million steps in the worker's profiles): each position's agent, as
  // an index into the agents in the order they first act, and each agent run's first and last position.
  const actingAgents: string[] = [];
  const actingIndex = new Map<string, number>();
  const agentAt = new Int32Array(n);
  let agentIndex = -1;
  const taskOf = run.agentRuns.length > 0 ? new Map(run.agentRuns.map((r) => [r.id, r.task])) : undefined;
  const bandOf = new Map<string, { agentId: string; first: number; last: number; task: string | undefined }>();
  let bandRun: string | undefined;
  let band: { agentId: string; first: number; last: number; task: string | undefined } | undefined;
  for (let p = 0; p < n; p++) {
    if (p % SLICE === SLICE - 1) yield 0.8 + (0.15 * p) / n;
    const step = steps[p];
    // Kinds come in runs of one kind: counted per run, a map write when the kind changes.
    if (step.kind !== kind) {
      if (kind !== undefined) byKind.set(kind, (byKind.get(kind) ?? 0) + kindRun);
      kind = step.kind;
      kindRun = 0;
      if (!byKind.has(kind)) byKind.set(kind, 0);
    }
    kindRun++;
    // Most steps hold no nested steps: read the step itself without building a list for it.
    const parts = nestedAt !== undefined && nestedAt[p] === 1 ? withDescendants(step, index.childrenOf) : undefined;
    // Nested steps (at any depth) map to the position of the replay step holding them.
    if (parts && positionOf) for (let k = 1; k < parts.length; k++) positionOf.add(parts[k].id, p);
    let lo = Infinity;
    let hi = -Infinity;
    for (let k = 0, count = parts ? parts.length : 1; k < count; k++) {
      const s = parts ? parts[k] : step;
      if (s.error) errorAt[p] = 1;
      if (s.usage) {
        input[p] += s.usage.input;
        output[p] += s.usage.output;
        if (s.usage.estimated) estimated[p] = 1;
      }
      if (s.startTime !== undefined) lo = Math.min(lo, s.startTime);
      if (s.endTime !== undefined) hi = Math.max(hi, s.endTime);
    }
    if (errorAt[p]) errorPositions.push(p);
    if (lo !== Infinity) start[p] = lo;
    if (hi !== -Infinity) end[p] = hi;
    running += input[p] + output[p];
    cumulative[p] = running;
    const block = (p / TOKEN_BLOCK) | 0;
    blockInput[block] += input[p];
    blockOutput[block] += output[p];
    if (estimated[p]) {
      blockEstimated[block] = 1;
      anyEstimated = true;
    }
    if (integral && !(Number.isInteger(input[p]) && Number.isInteger(output[p]))) integral = false;
    max = Math.max(max, input[p] + output[p]);
    if (agent === undefined || agentId !== step.agentId) {
      agentId = step.agentId;
      agent = perAgent.get(agentId);
      if (!agent) {
        agent = { agentId, name: agentId, input: 0, output: 0 };
        perAgent.set(agentId, agent);
      }
      const at = actingIndex.get(agentId);
      if (at === undefined) actingIndex.set(agentId, (agentIndex = actingAgents.push(agentId) - 1));
      else agentIndex = at;
    }
    agent.input += input[p];
    agent.output += output[p];
    agentAt[p] = agentIndex;
    if (taskOf !== undefined) {
      const runId = step.agentRunId;
      if (runId !== undefined) {
        if (runId !== bandRun) {
          bandRun = runId;
          band = bandOf.get(runId);
          if (!band) bandOf.set(runId, (band = { agentId: step.agentId, first: p, last: p, task: taskOf.get(runId) }));
        }
        band!.last = p;
      }
    }
  }
  if (kind !== undefined) byKind.set(kind, (byKind.get(kind) ?? 0) + kindRun);
  // Left unplaced by that walk only in odd traces (over 100k steps nested in one, repeated ids): climb to the replay step.
  if (positionOf && positionOf.size < run.steps.length) yield* placeNestedByClimbing(run.steps, positionOf, index, 0.95);
  yield 0.95;
  // The passes left, each over every position, a slice at a time (one pass was a task of 40–150 ms at 1M steps).
  const time = yield* placeInTime(start, end);
  const { lanes, laneOf } = buildLanes(run, actingAgents);
  const laneOfAgent = Int32Array.from(actingAgents, (id) => laneOf.get(id) ?? 0);
  const laneAt = agentAt;
  for (let p = 0; p < n; p++) {
    if (p % (8 * SLICE) === 8 * SLICE - 1) yield 0.97;
    laneAt[p] = laneOfAgent[agentAt[p]];
  }
  const bands: AgentRunBand[] = [];
  for (const b of bandOf.values()) bands.push({ lane: laneOf.get(b.agentId) ?? 0, first: b.first, last: b.last, task: b.task });
  const loopPositions = yield* positionsMarked(loopAt);
  yield 0.99;
  return {
    index,
    steps,
    stepKinds: { steps: n, byKind },
    loops,
    ledgerVerdicts: ledger,
    loopAt,
    errorAt,
    errorPositions: Int32Array.from(errorPositions),
    loopPositions,
    tokens: {
      input,
      output,
      cumulative,
      estimated,
      anyEstimated,
      blocks: { input: blockInput, output: blockOutput, estimated: blockEstimated, exact: integral },
      perAgent: [...perAgent.values()],
      max,
    },
    time,
    lanes,
    laneAt,
    bands,
  };
}

/**
 * The trace part of `run`'s view as the import worker sends it (src/workers/trace-parts.ts, trace-parts.ts): built as
 * on the page, then the fields that name no step object, the graph's edge lists flattened. Without the graph for a
 * run the page derives it for (graphInPart): the page does so while the worker computes the rest.
 */
export function* tracePartSlices(run: Run, withGraph = graphInPart(run.steps.length)): Sliced<TracePart> {
  if (!withGraph) {
    const steps = yield* partIndexSlices(run);
    return partOf(yield* traceColumnsSlices(run, steps, yield* loopsSlices(run, steps)));
  }
  const trace = yield* buildTraceViewSlices(run, yield* stepsIndexSlices(run));
  const { graph } = trace;
  const n = trace.steps.length;
  const edgeStart = new Int32Array(n + 1);
  let count = 0;
  for (let p = 0; p < n; p++) {
    if (p % (8 * SLICE) === 8 * SLICE - 1) yield 0.99;
    edgeStart[p] = count;
    count += graph.edgesAt[p]?.length ?? 0;
  }
  edgeStart[n] = count;
  const edgeList = new Int32Array(count);
  for (let p = 0, k = 0; p < n; p++) {
    if (p % (8 * SLICE) === 8 * SLICE - 1) yield 0.99;
    for (const e of graph.edgesAt[p] ?? NO_EDGES) edgeList[k++] = e;
  }
  return { ...partOf(trace), graph: { nodes: graph.nodes, edges: graph.edges, hierarchy: graph.hierarchy, nodeAt: graph.nodeAt, edgeStart, edgeList } };
}

/** A TracePart of the view's trace but its graph. */
function partOf(trace: Omit<TraceView, 'graph' | 'positionOf' | 'handoffsByStep'>): TracePart {
  return {
    positions: trace.steps.length,
    byKind: trace.stepKinds.byKind,
    loops: trace.loops.map((loop): PartLoop => ({ ...loop, positions: Int32Array.from(loop.positions), routing: Int32Array.from(loop.routing) })),
    ledgerVerdicts: trace.ledgerVerdicts as LoopVerdict[],
    loopAt: trace.loopAt,
    errorAt: trace.errorAt,
    errorPositions: trace.errorPositions,
    loopPositions: trace.loopPositions,
    tokens: trace.tokens,
    time: trace.time,
    lanes: trace.lanes,
    laneAt: trace.laneAt,
    bands: trace.bands,
  };
}

/** The typed arrays of a TracePart, to transfer (each has a buffer of its own). */
export function transferablesOfPart(part: TracePart): ArrayBuffer[] {
  const { tokens, time, graph } = part;
  const arrays = [
    part.loopAt, part.errorAt, part.errorPositions, part.loopPositions, part.laneAt,
    tokens.input, tokens.output, tokens.cumulative, tokens.estimated, tokens.blocks.input, tokens.blocks.output, tokens.blocks.estimated,
    time.start, time.end,
  ];
  if (graph) arrays.push(graph.nodeAt, graph.edgeStart, graph.edgeList);
  for (const loop of part.loops) arrays.push(loop.positions, loop.routing);
  const buffers = new Set<ArrayBuffer>();
  for (const a of arrays) if (a.buffer instanceof ArrayBuffer) buffers.add(a.buffer);
  return [...buffers];
}

const NO_EDGES: readonly number[] = Object.freeze([]);

/** A typed array's values as a plain array, in slices. */
function* numbersOf(values: Int32Array): Sliced<number[]> {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (i % (8 * SLICE) === 8 * SLICE - 1) yield 0.99;
    out.push(values[i]);
  }
  return out;
}

/**
 * The trace view of `run` from the worker's part: the page builds only what names its step objects (the step tree,
 * the positions by id, nested steps placed, the handoffs by step) and the graph's edge lists. Undefined when the part
 * is not this run's (its count of replay steps differs): the caller builds the view itself.
 */
function* traceFromPartSlices(run: Run, stepsIndex: StepsIndex, part: TracePart, pageGraph?: InteractionGraph): Sliced<TraceView | undefined> {
  const { index, positionOf, handoffsByStep, nestedAt } = stepsIndex;
  const steps = index.replaySteps;
  const n = steps.length;
  if (part.positions !== n || part.loopAt.length !== n || (part.graph && part.graph.edgeStart.length !== n + 1)) return undefined;
  // A part without the graph (graphInPart): the page's, derived while the worker computed the part (or now).
  const derived = part.graph ? undefined : (pageGraph ?? (yield* phase(graphSlices(run, stepsIndex), 0.7, 0.8)));
  // Nested steps (at any depth) map to the position of the replay step holding them, as in buildTraceViewSlices.
  if (nestedAt !== undefined) {
    for (let p = 0; p < n; p++) {
      if (p % SLICE === SLICE - 1) yield 0.7 + (0.1 * p) / n;
      if (nestedAt[p] !== 1) continue;
      const step = steps[p];
      const parts = withDescendants(step, index.childrenOf);
      for (let k = 1; k < parts.length; k++) positionOf.add(parts[k].id, p);
    }
  }
  if (positionOf.size < run.steps.length) yield* placeNestedByClimbing(run.steps, positionOf, index, 0.8);
  // The loops' positions as the page's loops have them (number[]), in slices: a loop of a 1M-message chat log has a
  // million, which a structured clone of the array took ~150 ms of one task to read.
  const loops: Loop[] = [];
  for (const loop of part.loops) loops.push({ ...loop, positions: yield* numbersOf(loop.positions), routing: yield* numbersOf(loop.routing) });
  let graph: InteractionGraph;
  if (derived) {
    yield* markLoopsSlices(derived, loops);
    graph = derived;
  } else graph = yield* graphOfPart(part.graph!, n);
  return {
    index,
    steps,
    stepKinds: { steps: n, byKind: part.byKind },
    positionOf,
    handoffsByStep,
    graph,
    loops,
    ledgerVerdicts: part.ledgerVerdicts,
    loopAt: part.loopAt,
    errorAt: part.errorAt,
    errorPositions: part.errorPositions,
    loopPositions: part.loopPositions,
    tokens: part.tokens,
    time: part.time,
    lanes: part.lanes,
    laneAt: part.laneAt,
    bands: part.bands,
  };
}

/** The graph as deriveGraphSlices makes it from the part's: one shared empty edge list, one shared list per single edge. */
function* graphOfPart({ edgeStart, edgeList, ...graph }: NonNullable<TracePart['graph']>, n: number): Sliced<InteractionGraph> {
  const edgesAt: (readonly number[])[] = new Array(n);
  const single: (readonly number[])[] = [];
  for (let p = 0; p < n; p++) {
    if (p % (4 * SLICE) === 4 * SLICE - 1) yield 0.8 + (0.19 * p) / n;
    const from = edgeStart[p];
    const to = edgeStart[p + 1];
    if (to === from) edgesAt[p] = NO_EDGES;
    else if (to === from + 1) edgesAt[p] = single[edgeList[from]] ??= Object.freeze([edgeList[from]]);
    else edgesAt[p] = Array.from(edgeList.subarray(from, to));
  }
  return { ...graph, edgesAt };
}

/** The performance entry (User Timing) of the last loop analysis, read by bench/view.bench.ts. */
export const LOOP_ANALYSIS_MEASURE = 'mas-replay:loop-analysis';

function markDuration(name: string, duration: number) {
  try {
    performance.clearMeasures(name);
    performance.measure(name, { start: performance.now() - duration, duration });
  } catch {
    // An environment without User Timing level 3: the figure is for the bench only.
  }
}

/** Where the run's annotations and interventions sit: the part an engine result changes. */
function withMarks(run: Run, trace: TraceView): RunView {
  const { positionOf } = trace;
  const annotationsAt = new Map<number, Annotation[]>();
  const runAnnotations: Annotation[] = [];
  const handoffStep = handoffStepsNamed(run);
  const positionOfTarget = (stepId?: string, handoffId?: string): number | undefined => {
    const id = stepId ?? (handoffId !== undefined ? handoffStep.get(handoffId) : undefined);
    return id === undefined ? undefined : positionOf.get(id);
  };
  for (const a of run.annotations) {
    const p = positionOfTarget(a.stepId, a.handoffId);
    if (p === undefined) runAnnotations.push(a);
    else pushAt(annotationsAt, p, a);
  }
  const interventionsAt = new Map<number, Intervention[]>();
  for (const iv of run.interventions) {
    const p = positionOfTarget(iv.stepId, iv.handoffId);
    if (p !== undefined) pushAt(interventionsAt, p, iv);
  }
  return {
    ...trace,
    run,
    annotationPositions: sortedPositions(annotationsAt.keys()),
    interventionPositions: sortedPositions(interventionsAt.keys()),
    annotationsAt,
    interventionsAt,
    runAnnotations,
    loopVerdicts: [...trace.ledgerVerdicts, ...markVerdicts(run.annotations, run.interventions, positionOfTarget)].sort((a, b) => a.position - b.position),
  };
}

/**
 * The step of each handoff an annotation or intervention names by handoff only. Only those: a chat log has a handoff
 * per message, and a Map of all of them (with its array of pairs) was a task of ~0.9 s at 1M steps on every open.
 */
function handoffStepsNamed(run: Run): Map<string, string | undefined> {
  const wanted = new Set<string>();
  for (const a of run.annotations) if (a.stepId === undefined && a.handoffId !== undefined) wanted.add(a.handoffId);
  for (const iv of run.interventions) if (iv.stepId === undefined && iv.handoffId !== undefined) wanted.add(iv.handoffId);
  const steps = new Map<string, string | undefined>();
  if (wanted.size === 0) return steps;
  for (const h of run.handoffs) if (wanted.has(h.id)) steps.set(h.id, h.stepId);
  return steps;
}

/** Nested steps not yet placed: climb to the replay step (nesting may be deeper than one level). */
/**
 * Steps left unplaced (odd traces) get the position of the replay step they climb to; yields `at` every SLICE steps:
 * it looks up every step's id, a million at 1M steps (~60 ms in Node), which one slice of the page must not do.
 */
function* placeNestedByClimbing(all: readonly Step[], positionOf: StepPositions, index: RunIndex, at: number): Sliced<void> {
  for (let i = 0; i < all.length; i++) {
    if (i % SLICE === SLICE - 1) yield at;
    const s = all[i];
    if (positionOf.has(s.id)) continue;
    const chain: string[] = [];
    let cur: Step | undefined = s;
    while (cur && !positionOf.has(cur.id) && cur.parentStepId !== undefined && chain.length < 64) {
      chain.push(cur.id);
      cur = index.stepById.get(cur.parentStepId);
    }
    const position = cur ? positionOf.get(cur.id) : undefined;
    if (position !== undefined) for (const id of chain) positionOf.add(id, position);
  }
}

/** The step and every step nested in it, at any depth. */
function withDescendants(step: Step, childrenOf: ReadonlyMap<string, Step[]>): Step[] {
  const children = childrenOf.get(step.id);
  if (!children) return [step];
  const out = [step];
  const stack = [...children];
  while (stack.length > 0) {
    const s = stack.pop()!;
    out.push(s);
    const nested = childrenOf.get(s.id);
    if (nested && out.length < 100_000) appendAll(stack, nested);
  }
  return out;
}

function pushAt<T>(map: Map<number, T[]>, key: number, value: T) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Fill in missing ends from the next start; time is usable only when every step has a start. */
function* placeInTime(start: Float64Array, end: Float64Array): Sliced<RunView['time']> {
  const n = start.length;
  let hasTime = n > 0;
  let min = Infinity;
  let max = -Infinity;
  for (let p = 0; p < n; p++) {
    if (p % (8 * SLICE) === 8 * SLICE - 1) yield 0.95;
    if (Number.isNaN(start[p])) {
      hasTime = false;
      break;
    }
  }
  if (hasTime) {
    for (let p = 0; p < n; p++) {
      if (p % SLICE === SLICE - 1) yield 0.96;
      if (Number.isNaN(end[p]) || end[p] < start[p]) end[p] = p + 1 < n ? Math.max(start[p], start[p + 1]) : start[p];
      min = Math.min(min, start[p]);
      max = Math.max(max, end[p]);
    }
    if (max <= min) hasTime = false;
  }
  return { start, end, hasTime, min: hasTime ? min : 0, max: hasTime ? max : n };
}

/** The timeline's lanes: `actingAgents`, the agents of the replay steps in the order they first act. */
function buildLanes(run: Run, actingAgents: readonly string[]): { lanes: Lane[]; laneOf: Map<string, number> } {
  const names = new Map(run.agents.map((a) => [a.id, a.name]));
  const acting = new Set(actingAgents);
  const known = new Set(run.agents.map((a) => a.id));
  const children = new Map<string | undefined, string[]>();
  for (const a of run.agents) {
    const parent = a.parentId !== undefined && known.has(a.parentId) && a.parentId !== a.id ? a.parentId : undefined;
    const list = children.get(parent);
    if (list) list.push(a.id);
    else children.set(parent, [a.id]);
  }
  const lanes: Lane[] = [];
  const laneOf = new Map<string, number>();
  /** The lane of each lane's manager in the tree as laid out (-1 for a top-level lane). */
  const managerLane: number[] = [];
  // Depth-first, managers before the agents they manage, with a stack of its own: hierarchies can be 200k deep.
  const visit = (rootId: string) => {
    const stack: { id: string; depth: number; manager: number }[] = [{ id: rootId, depth: 0, manager: -1 }];
    while (stack.length > 0) {
      const { id, depth, manager } = stack.pop()!;
      if (laneOf.has(id)) continue;
      const lane = lanes.length;
      laneOf.set(id, lane);
      lanes.push({ agentId: id, name: names.get(id) ?? id, depth });
      managerLane.push(manager);
      const managed = children.get(id) ?? [];
      for (let i = managed.length - 1; i >= 0; i--) stack.push({ id: managed[i], depth: depth + 1, manager: lane });
    }
  };
  for (const root of children.get(undefined) ?? []) visit(root);
  for (const a of run.agents) visit(a.id); // hierarchy cycles
  for (const id of acting) visit(id); // steps of agents the run does not list
  // Agents that never act get no lane unless they manage, directly or not, one that does: each acting lane marks its
  // managers up to one already marked, so every lane is marked once.
  const kept = new Uint8Array(lanes.length);
  lanes.forEach((l, i) => {
    if (!acting.has(l.agentId)) return;
    for (let at = i; at !== -1 && !kept[at]; at = managerLane[at]) kept[at] = 1;
  });
  const keep = lanes.filter((_, i) => kept[i]);
  const finalOf = new Map(keep.map((l, i) => [l.agentId, i]));
  return { lanes: keep, laneOf: finalOf };
}

