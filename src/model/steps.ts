// The one step model (README "What a step is", ADR 0017): a step is one row of the run view's step list, the thing
// the playhead moves over — a step not nested in another. Every count of steps (library, run view, engines, stages,
// rectify, compare, corpus, CLI) is `stepCounts(run).steps`, and step numbers are 1-based positions in that list.
import { isReplayStep } from './replay-step.ts';
import { stepFacts, type StepFacts } from './step-facts.ts';
import type { Intervention, Run, Step, StepKind } from './types.ts';
import { SLICE, type Sliced } from './slices.ts';

export { isReplayStep };

/**
 * The rows of the step list, in replay order: steps not nested inside another step. When none is nested (its step
 * facts say so), the run's own steps array, not a copy of it (a chat log's million messages): read it, never change it.
 */
export function replaySteps(run: Pick<Run, 'steps'>): readonly Step[] {
  if (stepFacts(run).rows === run.steps.length) return run.steps;
  const out: Step[] = [];
  for (const step of run.steps) if (isReplayStep(step)) out.push(step);
  return out;
}

/** `stepCounts(run).steps` without building the list (a run view still being prepared names it). */
export function replayStepCount(run: Pick<Run, 'steps'>): number {
  let n = 0;
  for (const step of run.steps) if (isReplayStep(step)) n++;
  return n;
}

export interface StepCounts {
  /** Rows of the step list. */
  steps: number;
  /** Rows per kind; kinds absent from the run are absent here (a Map: kinds are read back by name). */
  byKind: Map<StepKind, number>;
}

export function countStepKinds(steps: readonly Step[]): StepCounts {
  const byKind = new Map<StepKind, number>();
  for (const step of steps) byKind.set(step.kind, (byKind.get(step.kind) ?? 0) + 1);
  return { steps: steps.length, byKind };
}

const countsOfFacts = new WeakMap<StepFacts, StepCounts>();

/**
 * The rows of the step list and their kinds, read from the run's step facts (src/model/step-facts.ts): counted once
 * per steps array, or by the import worker. Pickers and headers ask on every render; a million steps counted each
 * time was a 170 ms task (the Engines view's run picker).
 */
export function stepCounts(run: Pick<Run, 'steps'>): StepCounts {
  const facts = stepFacts(run);
  let counts = countsOfFacts.get(facts);
  if (!counts) {
    const byKind = new Map<StepKind, number>();
    for (const [kind, { rows }] of facts.kinds) byKind.set(kind, rows);
    counts = { steps: facts.rows, byKind };
    countsOfFacts.set(facts, counts);
  }
  return counts;
}

const KIND_NAMES: Record<StepKind, [one: string, many: string]> = {
  action: ['action', 'actions'],
  planning: ['planning', 'planning'],
  message: ['message', 'messages'],
  llm: ['model call', 'model calls'],
  tool: ['tool call', 'tool calls'],
  final: ['final answer', 'final answers'],
};

const KIND_ORDER: readonly StepKind[] = ['action', 'planning', 'message', 'llm', 'tool', 'final'];

export function kindName(kind: StepKind, n: number): string {
  return KIND_NAMES[kind][n === 1 ? 0 : 1];
}

/** `{kind: n}` in a fixed kind order, for JSON reports. */
export function stepsByKindRecord(counts: StepCounts): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  for (const kind of KIND_ORDER) {
    const n = counts.byKind.get(kind);
    if (n) out[kind] = n;
  }
  return out;
}

/**
 * "27 steps · 16 actions · 11 planning": the count with its kinds spelled out when the rows are of more than one
 * kind; "3 steps" when they are all of one kind.
 */
export function describeStepCounts(counts: StepCounts): string {
  const head = `${counts.steps.toLocaleString('en')} step${counts.steps === 1 ? '' : 's'}`;
  if (counts.byKind.size < 2) return head;
  const parts = [head];
  for (const kind of KIND_ORDER) {
    const n = counts.byKind.get(kind);
    if (n) parts.push(`${n.toLocaleString('en')} ${kindName(kind, n)}`);
  }
  return parts.join(' · ');
}

/** The 1-based step number shown for a 0-based position in the step list. */
export const stepNumber = (position: number): number => position + 1;

/**
 * Reads a `?step=` value: the 1-based step number, or — for links made before step numbers — a step id, which wins
 * when a step has that id. Returns the 0-based position, or undefined when the value names no row.
 */
export function positionFromStepParam(value: string, steps: readonly Step[], positionOfId?: ReadonlyMap<string, number>): number | undefined {
  const byId = positionOfId?.get(value) ?? (positionOfId ? undefined : indexOfId(steps, value));
  if (byId !== undefined) return byId;
  if (!/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && n <= steps.length ? n - 1 : undefined;
}

function indexOfId(steps: readonly Step[], id: string): number | undefined {
  const i = steps.findIndex((s) => s.id === id);
  return i < 0 ? undefined : i;
}

/**
 * The 1-based step number of every step by id: a row's position in the step list plus one; a step nested in a row
 * gets its row's number (the row the playhead stops on). One pass; build it once per run, not per lookup.
 */
export function stepNumbersById(run: Pick<Run, 'steps'>): Map<string, number> {
  const out = new Map<string, number>();
  let position = -1;
  for (const step of run.steps) {
    if (step.parentStepId === undefined) out.set(step.id, stepNumber(++position));
  }
  const parentOf = new Map<string, string>();
  for (const step of run.steps) if (step.parentStepId !== undefined) parentOf.set(step.id, step.parentStepId);
  numberNested(out, parentOf);
  return out;
}

/**
 * Gives each nested step in `parentOf` (id → its parent's id) its row's number from `numbers`: nested steps point at
 * their row, possibly through another nested step; a few levels at most.
 */
function numberNested(numbers: Map<string, number>, parentOf: ReadonlyMap<string, string>): void {
  for (const [id, first] of parentOf) {
    let parent: string | undefined = first;
    for (let hops = 0; parent !== undefined && !numbers.has(parent) && hops < 8; hops++) parent = parentOf.get(parent);
    const n = parent === undefined ? undefined : numbers.get(parent);
    if (n !== undefined) numbers.set(id, n);
  }
}

/**
 * stepNumbersById for a few ids only (an engine's interventions over a run of a million steps): the same numbers,
 * without a Map of every step. Passes over the steps with a Set lookup each; a nested step's row is found through its
 * parents (a few levels at most).
 */
export function stepNumbersFor(run: Pick<Run, 'steps'>, ids: Iterable<string>): Map<string, number> {
  const wanted = new Set(ids);
  const out = new Map<string, number>();
  if (wanted.size === 0) return out;
  // The parents of wanted nested steps are wanted too (their row's number is theirs), a few levels up.
  for (let hops = 0, grew = true; grew && hops < 8; hops++) {
    grew = false;
    for (const step of run.steps) {
      if (step.parentStepId === undefined || !wanted.has(step.id) || wanted.has(step.parentStepId)) continue;
      wanted.add(step.parentStepId);
      grew = true;
    }
  }
  // The wanted nested steps' parents, in the order stepNumbersById reads them (a shared id: its last parent).
  const parentOf = new Map<string, string>();
  for (const step of run.steps) if (step.parentStepId !== undefined && wanted.has(step.id)) parentOf.set(step.id, step.parentStepId);
  let position = -1;
  for (const step of run.steps) {
    if (step.parentStepId !== undefined) continue;
    position++;
    if (wanted.has(step.id)) out.set(step.id, stepNumber(position));
  }
  numberNested(out, parentOf);
  return out;
}

/**
 * The steps with these ids and their positions in `steps`, in one pass with a Set lookup a step (no Map of every
 * step). The last of two steps with one id wins, as in a Map built over the steps.
 */
export function stepsWithIds(steps: readonly Step[], ids: Iterable<string>): Map<string, { step: Step; position: number }> {
  const wanted = new Set(ids);
  const out = new Map<string, { step: Step; position: number }>();
  if (wanted.size === 0) return out;
  for (let i = 0; i < steps.length; i++) {
    const id = steps[i].id;
    if (wanted.has(id)) out.set(id, { step: steps[i], position: i });
  }
  return out;
}

/** An engine's interventions in run order (interventionsInRunOrderSlices), with the steps they name. */
export interface InterventionsInRunOrder {
  /** In the order of their steps in the run; those whose step is not found come first, as they were. */
  items: Intervention[];
  found: Map<string, { step: Step; position: number }>;
}

/**
 * The run's interventions that `keep` takes, in the order of their steps, found in one pass over the steps; in slices
 * (model/slices.ts). In one piece, over 200,000 steps and 100,000 interventions, it was a task of ~60 ms, and an
 * engine's view works it out again as a pass keeps results (ADR 0087).
 */
export function* interventionsInRunOrderSlices(run: Pick<Run, 'steps' | 'interventions'>, keep: (iv: Intervention) => boolean): Sliced<InterventionsInRunOrder> {
  const all = run.interventions;
  const items: Intervention[] = [];
  const wanted = new Set<string>();
  for (let i = 0; i < all.length; i++) {
    if (i % SLICE === SLICE - 1) yield (0.2 * i) / all.length;
    const iv = all[i];
    if (!keep(iv)) continue;
    items.push(iv);
    if (iv.stepId !== undefined) wanted.add(iv.stepId);
  }
  const found = new Map<string, { step: Step; position: number }>();
  const steps = run.steps;
  if (wanted.size > 0) {
    for (let i = 0; i < steps.length && found.size < wanted.size; i++) {
      if (i % SLICE === SLICE - 1) yield 0.2 + (0.7 * i) / steps.length;
      const id = steps[i].id;
      if (wanted.has(id)) found.set(id, { step: steps[i], position: i });
    }
  }
  yield 0.9;
  // Sorted by position read once per item (not two map look-ups per comparison); ties keep their order. A pass makes
  // its results in step order, so the sort finds them nearly sorted already.
  const positions = new Float64Array(items.length);
  for (let k = 0; k < items.length; k++) {
    const id = items[k].stepId;
    positions[k] = id === undefined ? -1 : (found.get(id)?.position ?? -1);
  }
  const order = Array.from({ length: items.length }, (_, k) => k).sort((a, b) => positions[a] - positions[b] || a - b);
  return { items: order.map((k) => items[k]), found };
}

