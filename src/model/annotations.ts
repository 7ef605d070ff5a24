// Annotations that arrive apart from their run (TRAIL annotation files, AgentRx ground truth, a dataset's decisive-error
// label) and how they attach to runs. Importers produce annotation sets; these pure functions attach them, in the
// import worker (runs of one batch), the CLI (files read together) and the library (runs opened before or after).
// Run ids come from files: runs are found through Maps or own-property lookups, never by indexing a plain object.
import { appendAll } from './large-arrays.ts';
import { ownValue } from './record.ts';
import type { Annotation, Run, Step } from './types.ts';

/** Annotations that arrive in a file of their own and attach to a run loaded from another file. */
export interface AnnotationSet {
  /** The id of the run they belong to (a TRAIL trace id, a tau-bench task id…). */
  runId: string;
  annotations: Annotation[];
}

/** The annotations of `sets` for `run` that it does not hold yet (by annotation id, each id once). */
export function newAnnotations(run: Pick<Run, 'annotations'>, sets: Iterable<AnnotationSet>): Annotation[] {
  const known = new Set(run.annotations.map((a) => a.id));
  const added: Annotation[] = [];
  for (const set of sets) {
    for (const a of set.annotations) {
      if (known.has(a.id)) continue;
      known.add(a.id);
      added.push(a);
    }
  }
  return added;
}

/** An annotation file that does not name its run (one TRAIL file lacks `trace_id`) belongs to the one run that has
 *  every step it points at. */
function runHoldingAllTargets(runs: readonly Run[], set: AnnotationSet): Run | undefined {
  const targets = set.annotations.map((a) => a.stepId).filter((id): id is string => id !== undefined);
  if (targets.length === 0) return undefined;
  const holders = runs.filter((r) => {
    const ids = new Set(r.steps.map((s) => s.id));
    return targets.every((id) => ids.has(id));
  });
  return holders.length === 1 ? holders[0] : undefined;
}

/**
 * Attach annotation sets to freshly imported runs (mutated in place: they belong to the caller and are not shared yet).
 * A set with an empty run id goes to the one run holding every step it names. Returns the sets that found no run, so
 * the caller can say so.
 */
export function attachAnnotationSets(runs: Run[], sets: readonly AnnotationSet[]): AnnotationSet[] {
  const byId = new Map(runs.map((r) => [r.id, r]));
  const unattached: AnnotationSet[] = [];
  for (const set of sets) {
    const run = byId.get(set.runId) ?? (set.runId === '' ? runHoldingAllTargets(runs, set) : undefined);
    if (!run) {
      unattached.push(set);
      continue;
    }
    appendAll(run.annotations, newAnnotations(run, [set]));
  }
  return unattached;
}

/**
 * Attach sets to runs held in a record without mutating them: the runs named by `targetIds` that gain an annotation
 * are replaced by copies in `runs` (which the caller owns). Matching is by run id only.
 */
export function withAnnotationSets(runs: Record<string, Run>, targetIds: Iterable<string>, sets: readonly AnnotationSet[]): void {
  if (sets.length === 0) return;
  const byRun = new Map<string, AnnotationSet[]>();
  for (const set of sets) {
    const list = byRun.get(set.runId);
    if (list) list.push(set);
    else byRun.set(set.runId, [set]);
  }
  for (const id of targetIds) {
    const run = ownValue(runs, id);
    const mine = byRun.get(id);
    if (!run || !mine) continue;
    const added = newAnnotations(run, mine);
    if (added.length > 0) runs[id] = { ...run, annotations: [...run.annotations, ...added] };
  }
}

/** A dataset's label of the decisive error (Who&When's `mistake_agent` / `mistake_step` / `mistake_reason`). */
export interface DecisiveErrorLabel {
  agentId?: string;
  /** 0-based position in the run's steps, as the dataset numbers them. */
  stepNumber?: number;
  reason?: string;
}

/**
 * The annotation a decisive-error label makes on its run: attached to the numbered step when the run has it, else to
 * the run as a whole; `outside` says the number pointed past the steps (the caller warns).
 */
export function decisiveErrorAnnotation(runId: string, steps: readonly Pick<Step, 'id'>[], label: DecisiveErrorLabel): { annotation: Annotation; outside: boolean } {
  const annotation: Annotation = { id: `${runId}:whowhen`, source: 'dataset', taxonomy: 'WhoWhen', code: 'decisive-error' };
  let outside = false;
  const n = label.stepNumber;
  if (n !== undefined) {
    if (Number.isInteger(n) && n >= 0 && n < steps.length) annotation.stepId = steps[n].id;
    else outside = true;
  }
  if (label.agentId !== undefined) annotation.agentId = label.agentId;
  if (label.reason !== undefined) annotation.description = label.reason;
  return { annotation, outside };
}

/** A run-level score (TRAIL scores, Langfuse numeric scores) rather than a label: it carries a number. */
export function scoreValue(a: Annotation): number | undefined {
  const rec = a as Record<string, unknown>;
  if (typeof rec.score === 'number') return rec.score;
  if (typeof rec.value === 'number') return rec.value;
  return undefined;
}

/**
 * A run's scores and labels, counted here for the library's columns, the run view's "scores & labels" and its scores
 * panel: an annotation with a number is a score, any other a label, and a benchmark result line's own score (exact
 * match and contains, by the benchmark's rule) is one score more.
 */
export function scoreCounts(run: Run): { scores: number; labels: number } {
  let valued = 0;
  for (const a of run.annotations) if (scoreValue(a) !== undefined) valued++;
  return { scores: valued + (run.benchmark ? 1 : 0), labels: run.annotations.length - valued };
}
