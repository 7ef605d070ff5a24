// What the compare view shows of a run, and how two runs line up (SPEC §4 Compare). Pure; tested directly.
// The replay units are the steps `inspect` counts (smolagents action steps, chat turns, else model and tool calls).
// Tokens and interventions recorded on nested steps (a model call inside an action step) belong to the enclosing
// unit; usage outside any unit (a planning call between steps) goes to the next unit, so a run's curve ends at the
// same total the library shows.
import { isReplayStep } from '../../model/steps.ts';
import { finish, phase, SLICE, type Sliced } from '../../model/slices.ts';
import { StepPositions } from '../../model/step-positions.ts';
import { countStepFactsOfRuns, stepFacts } from '../../model/step-facts.ts';
import type { Intervention, Run, Step } from '../../model/types.ts';

/** One replay unit of a run as Compare shows it (a row of its aligned list, a side of the step diff). */
export interface CompareStep {
  /** 0-based position among the run's replay units. */
  position: number;
  step: Step;
  agentName: string;
  /** Short human label of the action. */
  action: string;
  tokens: number;
  cumulative: number;
  interventions: Intervention[];
  /** What the step said or saw: observation, else output/message text. */
  text: string;
}

/**
 * A run as Compare reads it, in columns: unit k is `units[k]`, with its tokens and running total at k. A unit's
 * CompareStep is made when a row shows it (compareStep). At a million steps an object and a signature string per
 * unit were ~170 MB per side, all alive at once, and the young-generation collections that copied them while the
 * pair was built were tasks of 150–245 ms on two cores.
 */
export interface CompareRun {
  run: Run;
  /** The replay units' steps, in order: the rows of the run view's step list. */
  units: readonly Step[];
  /** Tokens of each unit (its own, its nested steps', and usage recorded between units before it). */
  tokens: Float64Array;
  /** Tokens of units 0..k. */
  cumulative: Float64Array;
  /** The interventions on each unit that has any (most have none). */
  interventions: ReadonlyMap<number, Intervention[]>;
  /** Agent names by id. */
  agentNames: ReadonlyMap<string, string>;
  total: number;
  agents: number;
  overhead: number;
  /** Whether some of the run's tokens are tokenizer counts (the model's step facts: the Library's ≈ reads the same). */
  estimated: boolean;
}

/** Unit `k` of `c` as one object, for the rows on screen. */
export function compareStep(c: CompareRun, k: number): CompareStep {
  const step = c.units[k];
  return {
    position: k,
    step,
    agentName: c.agentNames.get(step.agentId) ?? step.agentId,
    action: actionLabel(step),
    tokens: c.tokens[k],
    cumulative: c.cumulative[k],
    interventions: c.interventions.get(k) ?? NO_INTERVENTIONS,
    text: step.observation ?? step.output ?? step.inputText ?? '',
  };
}

/** How many interventions unit `k` of `c` has. */
export function interventionCount(c: CompareRun, k: number): number {
  return c.interventions.get(k)?.length ?? 0;
}

const FIRST_CODE_BLOCK = /```(?:[a-zA-Z0-9_+-]*)\n?([\s\S]*?)```/;

/** SPEC §5.1's action signature: the ordered tool calls, else the first code block of the output, else its kind. */
export function actionSignature(step: Step): string {
  if (step.toolCalls && step.toolCalls.length > 0) return step.toolCalls.map((c) => `${c.name}(${c.arguments.trim()})`).join(' ; ');
  const output = step.output ?? '';
  const code = FIRST_CODE_BLOCK.exec(output)?.[1];
  if (code !== undefined) return `python_interpreter(${code.trim()})`;
  if (step.kind === 'action') return `python_interpreter(${output.trim()})`;
  return step.kind;
}

function actionLabel(step: Step): string {
  if (step.toolCalls && step.toolCalls.length > 0) return step.toolCalls.map((c) => c.name).join(', ');
  if (step.kind === 'message') return 'message';
  return step.name ?? step.kind;
}

/** A unit without interventions (most of them): one shared empty list, not a million. */
const NO_INTERVENTIONS: Intervention[] = Object.freeze([]) as unknown as Intervention[];

export function compareRun(run: Run): CompareRun {
  return finish(compareRunSlices(run));
}

/**
 * compareRun as a sliced derivation (model/slices.ts): the compare view builds a large run's a slice at a time, the
 * page's thread given back in between (two 200k-message runs were one task of 500 ms, seconds at a million).
 */
export function* compareRunSlices(run: Run): Sliced<CompareRun> {
  const agentNames = new Map(run.agents.map((a) => [a.id, a.name]));
  const steps = run.steps;
  // Two tables of positions by id and two more passes over the steps, and the interventions.
  const work = 4 * steps.length + run.interventions.length || 1;
  // Step ids are looked up in tables of positions (model/step-positions.ts), not Maps keyed by every id: at a million
  // steps a Map's growth copied it whole inside one slice (a task of 110–430 ms when the compare view opened).
  // The last step of an id wins, as it did in a Map filled in step order.
  const byId = yield* phase(new StepPositions(steps).build(), 0, steps.length / work);
  let done = steps.length;
  const units: Step[] = [];
  // The unit of each replay step, by its position in `steps` (-1 for a nested step).
  const unitAt = new Int32Array(steps.length).fill(-1);
  // One unit per row of the step list (model/steps.ts): the same steps, numbered the same, as the run view.
  for (let p = 0; p < steps.length; p++) {
    if (++done % SLICE === 0) yield done / work;
    const step = steps[p];
    if (!isReplayStep(step)) continue;
    unitAt[p] = units.length;
    units.push(step);
  }
  // A unit's index is its step's position among the replay steps (the last of an id, as before).
  const unitOf = yield* phase(new StepPositions(units).build(), (2 * steps.length) / work, (3 * steps.length) / work);
  done = 3 * steps.length;
  const stepOf = (id: string): Step | undefined => {
    const p = byId.replay(id);
    return p === undefined ? undefined : steps[p];
  };
  /** The unit a step belongs to: its own, an ancestor's, else the next unit in replay order (or the last one). */
  const resolve = (step: Step | undefined): number | undefined => {
    for (let s: Step | undefined = step, guard = 0; s && guard < 64; s = s.parentStepId ? stepOf(s.parentStepId) : undefined, guard++) {
      const u = unitOf.replay(s.id);
      if (u !== undefined) return u;
    }
    return undefined;
  };
  // A step's own unit: the last replay step of its id. Its own position's, when no two replay steps share an id (no
  // look-up for most steps: a chat log's million messages were two each, most of this pass's time).
  const ownUnit = (p: number): number | undefined => (!unitOf.duplicates && unitAt[p] >= 0 ? unitAt[p] : unitOf.replay(steps[p].id));
  const tokens = new Float64Array(units.length);
  let pending = 0;
  for (let p = 0; p < steps.length; p++) {
    if (++done % SLICE === 0) yield done / work;
    const step = steps[p];
    const own = ownUnit(p);
    if (own !== undefined) {
      tokens[own] += pending;
      pending = 0;
    }
    const total = step.usage?.total ?? 0;
    if (total === 0) continue;
    const u = own ?? resolve(step);
    if (u !== undefined) tokens[u] += total;
    else pending += total;
  }
  if (units.length > 0) tokens[units.length - 1] += pending;
  let overhead = 0;
  const interventions = new Map<number, Intervention[]>();
  for (const i of run.interventions) {
    if (++done % SLICE === 0) yield done / work;
    overhead += i.tokens?.total ?? 0;
    const u = i.stepId !== undefined ? resolve(stepOf(i.stepId)) : undefined;
    if (u === undefined) continue;
    const list = interventions.get(u);
    if (list) list.push(i);
    else interventions.set(u, [i]);
  }
  const cumulative = new Float64Array(units.length);
  let sum = 0;
  for (let k = 0; k < units.length; k++) {
    if (k % SLICE === SLICE - 1) yield 1;
    sum += tokens[k];
    cumulative[k] = sum;
  }
  // The step facts are counted already for a run imported or loaded (a pass here, in slices, for one made on the page).
  yield* phase(countStepFactsOfRuns([run]), 1, 1);
  return { run, units, tokens, cumulative, interventions, agentNames, total: sum, agents: run.agents.length, overhead, estimated: stepFacts(run).tokens.estimated };
}

// ---------------------------------------------------------------------------------------------------------------
// Alignment

export interface AlignedRow {
  a: number | null;
  b: number | null;
  /** Both sides present with the same signature. */
  matched: boolean;
}

/**
 * The rows of an alignment, in columns (an object per row was 58 MB for a million rows): row r shows unit `a[r]` of
 * A beside unit `b[r]` of B, -1 where that side has no step.
 */
export interface AlignedRows {
  length: number;
  a: Int32Array;
  b: Int32Array;
  /** 1 where both sides are present with the same signature. */
  matched: Uint8Array;
}

/** Row `r` as one object, or undefined past the end. */
export function rowAt(rows: AlignedRows, r: number): AlignedRow | undefined {
  if (r < 0 || r >= rows.length) return undefined;
  const a = rows.a[r];
  const b = rows.b[r];
  return { a: a < 0 ? null : a, b: b < 0 ? null : b, matched: rows.matched[r] === 1 };
}

/** Every row as an object (for tests and small pairs). */
export function rowList(rows: AlignedRows): AlignedRow[] {
  return Array.from({ length: rows.length }, (_, r) => rowAt(rows, r)!);
}

/** Rows appended one at a time into columns of a known largest size, trimmed to size at the end. */
class RowsBuilder {
  private readonly a: Int32Array;
  private readonly b: Int32Array;
  private readonly matched: Uint8Array;
  length = 0;

  constructor(capacity: number) {
    this.a = new Int32Array(capacity);
    this.b = new Int32Array(capacity);
    this.matched = new Uint8Array(capacity);
  }

  push(a: number, b: number, matched: boolean): void {
    const r = this.length++;
    this.a[r] = a;
    this.b[r] = b;
    this.matched[r] = matched ? 1 : 0;
  }

  rows(): AlignedRows {
    const n = this.length;
    const whole = n === this.a.length;
    return { length: n, a: whole ? this.a : this.a.slice(0, n), b: whole ? this.b : this.b.slice(0, n), matched: whole ? this.matched : this.matched.slice(0, n) };
  }
}

export type AlignMode = 'index' | 'lcs';

/** Signatures as small integers, equal where the signatures are (the LCS's inner loop compares numbers). */
function codesOf(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  const code = (s: string) => ids.get(s) ?? (ids.set(s, ids.size), ids.size - 1);
  return [Int32Array.from(a, code), Int32Array.from(b, code)];
}

/** Step i of A beside step i of B. */
export function alignByIndex(a: readonly string[], b: readonly string[]): AlignedRows {
  return finish(alignByIndexSlices(...codesOf(a, b)));
}

function* alignByIndexSlices(a: Int32Array, b: Int32Array): Sliced<AlignedRows> {
  const length = Math.max(a.length, b.length);
  const rows = new RowsBuilder(length);
  for (let i = 0; i < length; i++) {
    const inA = i < a.length;
    const inB = i < b.length;
    rows.push(inA ? i : -1, inB ? i : -1, inA && inB && a[i] === b[i]);
    if (i % SLICE === SLICE - 1) yield i / length;
  }
  return rows.rows();
}

/** Largest DP table (cells) the LCS fills; beyond it, after trimming the common ends, the caller is told. */
export const LCS_MAX_CELLS = 16_000_000;

/**
 * Longest common subsequence of the two signature lists (classic dynamic programme after trimming the common prefix
 * and suffix). Unmatched steps between two matches are listed A's first, then B's. Returns null when the part left
 * after trimming needs more than LCS_MAX_CELLS cells.
 */
export function alignByLcs(a: readonly string[], b: readonly string[]): AlignedRows | null {
  return finish(alignByLcsSlices(...codesOf(a, b)));
}

/** alignByLcs over signature codes, a slice at a time; its fractions are rough (the table, when there is one, is most of the work). */
function* alignByLcsSlices(a: Int32Array, b: Int32Array): Sliced<AlignedRows | null> {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) if (++start % SLICE === 0) yield 0;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
    if (endA % SLICE === 0) yield 0;
  }
  const n = endA - start;
  const m = endB - start;
  if ((n + 1) * (m + 1) > LCS_MAX_CELLS) return null;
  const ca = a.subarray(start, endA);
  const cb = b.subarray(start, endB);
  // table[i][j] = LCS length of A[i..] and B[j..], filled from the ends so the walk below goes forwards.
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  let cells = 0;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      table[i * width + j] = ca[i] === cb[j] ? table[(i + 1) * width + j + 1] + 1 : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    // A row of the table is m cells: a slice is some thousands of rows' worth of cells.
    if ((cells += m) >= 64 * SLICE) {
      cells = 0;
      yield (n - i) / n;
    }
  }

  // At most every step of both runs on its own row.
  const rows = new RowsBuilder(a.length + b.length);
  for (let k = 0; k < start; k++) {
    rows.push(k, k, true);
    if (k % SLICE === SLICE - 1) yield 1;
  }
  let i = 0;
  let j = 0;
  const gapA: number[] = [];
  const gapB: number[] = [];
  const flush = () => {
    for (const x of gapA) rows.push(start + x, -1, false);
    for (const y of gapB) rows.push(-1, start + y, false);
    gapA.length = 0;
    gapB.length = 0;
  };
  while (i < n && j < m) {
    if (ca[i] === cb[j]) {
      flush();
      rows.push(start + i, start + j, true);
      i++;
      j++;
    } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) gapA.push(i++);
    else gapB.push(j++);
  }
  while (i < n) gapA.push(i++);
  while (j < m) gapB.push(j++);
  flush();
  for (let k = endA; k < a.length; k++) {
    rows.push(k, endB + (k - endA), true);
    if (k % SLICE === SLICE - 1) yield 1;
  }
  return rows.rows();
}

export interface Alignment {
  mode: AlignMode;
  rows: AlignedRows;
  matched: number;
  /** Set when LCS was asked for but the runs were too long for it (index alignment shown instead). */
  fallback?: string;
}

/**
 * Both runs' units as signature codes (SPEC §5.1: agent and action), one numbering for the pair. Looked up by agent,
 * then by action signature: no string per unit is kept, and a chat message's signature (its kind) is none made.
 */
function* signatureCodesSlices(a: CompareRun, b: CompareRun): Sliced<[Int32Array, Int32Array]> {
  const byAgent = new Map<string, Map<string, number>>();
  let next = 0;
  const total = a.units.length + b.units.length || 1;
  let done = 0;
  const side = function* (c: CompareRun): Sliced<Int32Array> {
    const out = new Int32Array(c.units.length);
    // Steps of one agent come in stretches: its table is looked up again only when the agent changes.
    let agentId: string | undefined;
    let codes: Map<string, number> | undefined;
    for (let k = 0; k < c.units.length; k++) {
      if (++done % SLICE === 0) yield done / total;
      const step = c.units[k];
      if (codes === undefined || step.agentId !== agentId) {
        agentId = step.agentId;
        const name = c.agentNames.get(agentId) ?? agentId;
        codes = byAgent.get(name);
        if (!codes) byAgent.set(name, (codes = new Map()));
      }
      const signature = actionSignature(step);
      let code = codes.get(signature);
      if (code === undefined) codes.set(signature, (code = next++));
      out[k] = code;
    }
    return out;
  };
  return [yield* side(a), yield* side(b)];
}

/** How the compare view lines up two runs' steps, a slice at a time (model/slices.ts; run to the end at once for a small pair). */
export function* alignSlices(a: CompareRun, b: CompareRun, mode: AlignMode): Sliced<Alignment> {
  const [sa, sb] = yield* phase(signatureCodesSlices(a, b), 0, 0.1);
  let rows = mode === 'lcs' ? yield* phase(alignByLcsSlices(sa, sb), 0.1, 0.9) : yield* phase(alignByIndexSlices(sa, sb), 0.1, 0.9);
  let fallback: string | undefined;
  if (!rows) {
    rows = yield* phase(alignByIndexSlices(sa, sb), 0.1, 0.9);
    fallback = `These runs are too long to match step by step (${sa.length.toLocaleString('en')} × ${sb.length.toLocaleString('en')} steps); aligned by step index instead.`;
  }
  let matched = 0;
  for (let r = 0; r < rows.length; r++) {
    matched += rows.matched[r];
    if (r % SLICE === SLICE - 1) yield 0.9 + (0.1 * r) / rows.length;
  }
  return { mode: fallback ? 'index' : mode, rows, matched, fallback };
}

/** The latest step of one side at or before a row (a side with a gap at that row stays on its previous step). */
export function sideAt(rows: AlignedRows, row: number, side: 'a' | 'b'): number | null {
  const column = rows[side];
  for (let r = Math.min(row, rows.length - 1); r >= 0; r--) if (column[r] >= 0) return column[r];
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Headline figures (issue 13 item 5): a run that stopped early is never shown as a saving

/** A run that ended before it finished (a fork stopped at a step it could not make, failed or cancelled). */
export interface EarlyStop {
  side: 'a' | 'b';
  status: 'stopped' | 'failed' | 'cancelled';
  /** Steps the run has (it stopped before making the next one). */
  steps: number;
  /** "stopped at step 5 (WebSurfer): …" — where and why, in the runner's words when it gave them. */
  label: string;
}

export interface CompareFigures {
  /** Set when either run ended early: the figures then cover only the steps both runs have. */
  stops: EarlyStop[];
  /** How many steps of each run the token and step figures cover (both runs' full length when none stopped). */
  n: { a: number; b: number };
  tokens: { a: number; b: number };
  net: { a: number; b: number };
  /** Both runs' full totals, shown as they are (not as a difference) when a run stopped early. */
  full: { a: { steps: number; tokens: number }; b: { steps: number; tokens: number } };
}

function earlyStop(side: 'a' | 'b', c: CompareRun): EarlyStop | undefined {
  const status = c.run.live?.status;
  if (status === undefined || status === 'complete') return undefined;
  const note = c.run.live?.note?.trim();
  const label = note ? (status === 'stopped' && /^step \d/.test(note) ? `stopped at ${note}` : `${status}: ${note}`) : `${status} after step ${c.units.length}`;
  return { side, status, steps: c.units.length, label };
}

/** Tokens of the first `n` steps, with the overhead of the interventions on them. */
function prefix(c: CompareRun, n: number): { tokens: number; net: number } {
  if (n >= c.units.length) return { tokens: c.total, net: c.total + c.overhead };
  const tokens = n === 0 ? 0 : c.cumulative[n - 1];
  let overhead = 0;
  for (const [k, list] of c.interventions) if (k < n) for (const iv of list) overhead += iv.tokens?.total ?? 0;
  return { tokens, net: tokens + overhead };
}

/**
 * The deltas Compare shows. When neither run ended early they are the full totals. When one did, a difference of the
 * full totals would count the steps it never made as saved; the figures then cover the steps both runs have — the
 * first min(steps) steps, up to the stop — and the full totals are kept apart to be shown without a difference.
 */
export function compareFigures(a: CompareRun, b: CompareRun): CompareFigures {
  const stops = [earlyStop('a', a), earlyStop('b', b)].filter((s): s is EarlyStop => s !== undefined);
  const full = { a: { steps: a.units.length, tokens: a.total }, b: { steps: b.units.length, tokens: b.total } };
  if (stops.length === 0) {
    return { stops, n: { a: a.units.length, b: b.units.length }, tokens: { a: a.total, b: b.total }, net: { a: a.total + a.overhead, b: b.total + b.overhead }, full };
  }
  const n = Math.min(a.units.length, b.units.length);
  const pa = prefix(a, n);
  const pb = prefix(b, n);
  return { stops, n: { a: n, b: n }, tokens: { a: pa.tokens, b: pb.tokens }, net: { a: pa.net, b: pb.net }, full };
}
