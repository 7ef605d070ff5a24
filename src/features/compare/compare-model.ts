// What the compare view shows of a run, and how two runs line up (SPEC §4 Compare). Pure; tested directly.
// The replay units are the steps `inspect` counts (smolagents action steps, chat turns, else model and tool calls).
// Tokens and interventions recorded on nested steps (a model call inside an action step) belong to the enclosing
// unit; usage outside any unit (a planning call between steps) goes to the next unit, so a run's curve ends at the
// same total the library shows.
import { isReplayStep } from '../../model/steps.ts';
import { finish, phase, SLICE, type Sliced } from '../../model/slices.ts';
import { StepPositions } from '../../model/step-positions.ts';
import type { Intervention, Run, Step } from '../../model/types.ts';

export interface CompareStep {
  /** 0-based position among the run's replay units. */
  position: number;
  step: Step;
  agentName: string;
  /** Agent + action signature, the key LCS matching uses. */
  signature: string;
  /** Short human label of the action. */
  action: string;
  tokens: number;
  cumulative: number;
  interventions: Intervention[];
  /** What the step said or saw: observation, else output/message text. */
  text: string;
}

export interface CompareRun {
  run: Run;
  steps: CompareStep[];
  total: number;
  agents: number;
  overhead: number;
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
  const agentName = new Map(run.agents.map((a) => [a.id, a.name]));
  const steps = run.steps;
  // Two tables of positions by id and two more passes over the steps, and the interventions.
  const work = 4 * steps.length + run.interventions.length || 1;
  // Step ids are looked up in tables of positions (model/step-positions.ts), not Maps keyed by every id: at a million
  // steps a Map's growth copied it whole inside one slice (a task of 110–430 ms when the compare view opened).
  // The last step of an id wins, as it did in a Map filled in step order.
  const byId = yield* phase(new StepPositions(steps).build(), 0, steps.length / work);
  let done = steps.length;
  const replay: Step[] = [];
  const units: CompareStep[] = [];
  // The unit of each replay step, by its position in `steps` (-1 for a nested step).
  const unitAt = new Int32Array(steps.length).fill(-1);
  // One unit per row of the step list (model/steps.ts): the same steps, numbered the same, as the run view.
  for (let p = 0; p < steps.length; p++) {
    if (++done % SLICE === 0) yield done / work;
    const step = steps[p];
    if (!isReplayStep(step)) continue;
    unitAt[p] = units.length;
    replay.push(step);
    const name = agentName.get(step.agentId) ?? step.agentId;
    units.push({
      position: units.length,
      step,
      agentName: name,
      signature: `${name}::${actionSignature(step)}`,
      action: actionLabel(step),
      tokens: 0,
      cumulative: 0,
      interventions: NO_INTERVENTIONS,
      text: step.observation ?? step.output ?? step.inputText ?? '',
    });
  }
  // A unit's index is its step's position among the replay steps (the last of an id, as before).
  const unitOf = yield* phase(new StepPositions(replay).build(), (2 * steps.length) / work, (3 * steps.length) / work);
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
  let pending = 0;
  for (let p = 0; p < steps.length; p++) {
    if (++done % SLICE === 0) yield done / work;
    const step = steps[p];
    const own = ownUnit(p);
    if (own !== undefined) {
      units[own].tokens += pending;
      pending = 0;
    }
    const total = step.usage?.total ?? 0;
    if (total === 0) continue;
    const u = own ?? resolve(step);
    if (u !== undefined) units[u].tokens += total;
    else pending += total;
  }
  if (units.length > 0) units[units.length - 1].tokens += pending;
  let overhead = 0;
  for (const i of run.interventions) {
    if (++done % SLICE === 0) yield done / work;
    overhead += i.tokens?.total ?? 0;
    const u = i.stepId !== undefined ? resolve(stepOf(i.stepId)) : undefined;
    if (u === undefined) continue;
    // The shared empty list is replaced by the unit's own at its first intervention.
    if (units[u].interventions === NO_INTERVENTIONS) units[u].interventions = [i];
    else units[u].interventions.push(i);
  }
  let cumulative = 0;
  for (let k = 0; k < units.length; k++) {
    if (k % SLICE === SLICE - 1) yield 1;
    cumulative += units[k].tokens;
    units[k].cumulative = cumulative;
  }
  return { run, steps: units, total: cumulative, agents: run.agents.length, overhead };
}

// ---------------------------------------------------------------------------------------------------------------
// Alignment

export interface AlignedRow {
  a: number | null;
  b: number | null;
  /** Both sides present with the same signature. */
  matched: boolean;
}

export type AlignMode = 'index' | 'lcs';

/** Step i of A beside step i of B. */
export function alignByIndex(a: readonly string[], b: readonly string[]): AlignedRow[] {
  return finish(alignByIndexSlices(a, b));
}

function* alignByIndexSlices(a: readonly string[], b: readonly string[]): Sliced<AlignedRow[]> {
  const rows: AlignedRow[] = [];
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const ai = i < a.length ? i : null;
    const bi = i < b.length ? i : null;
    rows.push({ a: ai, b: bi, matched: ai !== null && bi !== null && a[ai] === b[bi] });
    if (i % SLICE === SLICE - 1) yield i / length;
  }
  return rows;
}

/** Largest DP table (cells) the LCS fills; beyond it, after trimming the common ends, the caller is told. */
export const LCS_MAX_CELLS = 16_000_000;

/**
 * Longest common subsequence of the two signature lists (classic dynamic programme after trimming the common prefix
 * and suffix). Unmatched steps between two matches are listed A's first, then B's. Returns null when the part left
 * after trimming needs more than LCS_MAX_CELLS cells.
 */
export function alignByLcs(a: readonly string[], b: readonly string[]): AlignedRow[] | null {
  return finish(alignByLcsSlices(a, b));
}

/** alignByLcs a slice at a time; its fractions are rough (the table, when there is one, is most of the work). */
function* alignByLcsSlices(a: readonly string[], b: readonly string[]): Sliced<AlignedRow[] | null> {
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
  // Signatures to small integers so the inner loop compares numbers.
  const ids = new Map<string, number>();
  const code = (s: string) => ids.get(s) ?? (ids.set(s, ids.size), ids.size - 1);
  const ca = Int32Array.from({ length: n }, (_, i) => code(a[start + i]));
  const cb = Int32Array.from({ length: m }, (_, j) => code(b[start + j]));
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

  const rows: AlignedRow[] = [];
  for (let k = 0; k < start; k++) {
    rows.push({ a: k, b: k, matched: true });
    if (k % SLICE === SLICE - 1) yield 1;
  }
  let i = 0;
  let j = 0;
  const gapA: number[] = [];
  const gapB: number[] = [];
  const flush = () => {
    for (const x of gapA) rows.push({ a: start + x, b: null, matched: false });
    for (const y of gapB) rows.push({ a: null, b: start + y, matched: false });
    gapA.length = 0;
    gapB.length = 0;
  };
  while (i < n && j < m) {
    if (ca[i] === cb[j]) {
      flush();
      rows.push({ a: start + i, b: start + j, matched: true });
      i++;
      j++;
    } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) gapA.push(i++);
    else gapB.push(j++);
  }
  while (i < n) gapA.push(i++);
  while (j < m) gapB.push(j++);
  flush();
  for (let k = endA; k < a.length; k++) {
    rows.push({ a: k, b: endB + (k - endA), matched: true });
    if (k % SLICE === SLICE - 1) yield 1;
  }
  return rows;
}

export interface Alignment {
  mode: AlignMode;
  rows: AlignedRow[];
  matched: number;
  /** Set when LCS was asked for but the runs were too long for it (index alignment shown instead). */
  fallback?: string;
}

/** How the compare view lines up two runs' steps, a slice at a time (model/slices.ts; run to the end at once for a small pair). */
export function* alignSlices(a: CompareRun, b: CompareRun, mode: AlignMode): Sliced<Alignment> {
  const sa = a.steps.map((s) => s.signature);
  const sb = b.steps.map((s) => s.signature);
  yield 0.1;
  let rows = mode === 'lcs' ? yield* phase(alignByLcsSlices(sa, sb), 0.1, 0.9) : yield* phase(alignByIndexSlices(sa, sb), 0.1, 0.9);
  let fallback: string | undefined;
  if (!rows) {
    rows = yield* phase(alignByIndexSlices(sa, sb), 0.1, 0.9);
    fallback = `These runs are too long to match step by step (${sa.length.toLocaleString('en')} × ${sb.length.toLocaleString('en')} steps); aligned by step index instead.`;
  }
  let matched = 0;
  for (let r = 0; r < rows.length; r++) {
    if (rows[r].matched) matched++;
    if (r % SLICE === SLICE - 1) yield 0.9 + (0.1 * r) / rows.length;
  }
  return { mode: fallback ? 'index' : mode, rows, matched, fallback };
}

/** The latest step of one side at or before a row (a side with a gap at that row stays on its previous step). */
export function sideAt(rows: readonly AlignedRow[], row: number, side: 'a' | 'b'): number | null {
  for (let r = Math.min(row, rows.length - 1); r >= 0; r--) {
    const v = rows[r][side];
    if (v !== null) return v;
  }
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
  const label = note ? (status === 'stopped' && /^step \d/.test(note) ? `stopped at ${note}` : `${status}: ${note}`) : `${status} after step ${c.steps.length}`;
  return { side, status, steps: c.steps.length, label };
}

/** Tokens of the first `n` steps, with the overhead of the interventions on them. */
function prefix(c: CompareRun, n: number): { tokens: number; net: number } {
  if (n >= c.steps.length) return { tokens: c.total, net: c.total + c.overhead };
  const tokens = n === 0 ? 0 : c.steps[n - 1].cumulative;
  let overhead = 0;
  for (let i = 0; i < n; i++) for (const iv of c.steps[i].interventions) overhead += iv.tokens?.total ?? 0;
  return { tokens, net: tokens + overhead };
}

/**
 * The deltas Compare shows. When neither run ended early they are the full totals. When one did, a difference of the
 * full totals would count the steps it never made as saved; the figures then cover the steps both runs have — the
 * first min(steps) steps, up to the stop — and the full totals are kept apart to be shown without a difference.
 */
export function compareFigures(a: CompareRun, b: CompareRun): CompareFigures {
  const stops = [earlyStop('a', a), earlyStop('b', b)].filter((s): s is EarlyStop => s !== undefined);
  const full = { a: { steps: a.steps.length, tokens: a.total }, b: { steps: b.steps.length, tokens: b.total } };
  if (stops.length === 0) {
    return { stops, n: { a: a.steps.length, b: b.steps.length }, tokens: { a: a.total, b: b.total }, net: { a: a.total + a.overhead, b: b.total + b.overhead }, full };
  }
  const n = Math.min(a.steps.length, b.steps.length);
  const pa = prefix(a, n);
  const pb = prefix(b, n);
  return { stops, n: { a: n, b: n }, tokens: { a: pa.tokens, b: pb.tokens }, net: { a: pa.net, b: pb.net }, full };
}
