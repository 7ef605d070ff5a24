// Pure derivations for the Taxonomy view: the edges of a run with every label on them, cases promoted from real
// traces into the gallery, and the statistics the charts draw (type distribution, one-shot resolution).
import {
  clarificationOf,
  clarificationsByHandoff,
  datasetLabels,
  edgeStatesSlices,
  ERROR_TYPES,
  type EdgeStateList,
  humanLabels,
  type ClarifierType,
  type DatasetLabel,
  type EdgeClarification,
  type EdgeState,
  type ErrorType,
} from '../../engine/clarifier/index.ts';
import type { Annotation, Run } from '../../model/types.ts';
import { finish, phase, type Sliced } from '../../model/slices.ts';

export interface EdgeRow {
  state: EdgeState;
  human?: Annotation;
  clarification?: EdgeClarification;
  dataset: DatasetLabel[];
}

/** How many rows made on demand a list keeps, so that a row in view stays the same object from one render to the next. */
const KEPT_ROWS = 2048;

/**
 * A run's edges with every label on them, one row per handoff in run order, each made when asked for (`at`) from the
 * run's edge states (EdgeStateList) and its labels looked up by handoff id. A million-message chat log's edge list held
 * a million rows and states before (ADR 0089).
 */
export class EdgeRows {
  private readonly kept = new Map<number, EdgeRow>();

  constructor(
    readonly states: EdgeStateList,
    private readonly human: ReadonlyMap<string, Annotation>,
    private readonly clarifications: ReadonlyMap<string, EdgeClarification>,
    private readonly dataset: ReadonlyMap<string, DatasetLabel[]>,
  ) {}

  get length(): number {
    return this.states.length;
  }

  /** The row of the handoff at `position`. */
  at(position: number): EdgeRow {
    const kept = this.kept.get(position);
    if (kept) return kept;
    const state = this.states.at(position);
    const row: EdgeRow = { state, human: this.human.get(state.id), clarification: this.clarifications.get(state.id), dataset: this.dataset.get(state.id) ?? [] };
    if (this.kept.size >= KEPT_ROWS) this.kept.clear();
    this.kept.set(position, row);
    return row;
  }

  /** The position of the edge with this id, -1 when none (EdgeStateList.indexOf: `near` is looked at first). */
  indexOf(id: string, near?: number): number {
    return this.states.indexOf(id, near);
  }

  /** Every row, in run order (a short list draws them all). */
  all(): EdgeRow[] {
    const out: EdgeRow[] = new Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.at(i);
    return out;
  }
}

/** Every edge row of the run, as an array. */
export function edgeRows(run: Run, window?: number): EdgeRow[] {
  return finish(edgeRowsSlices(run, window)).all();
}

/** The run's edge rows as a sliced derivation (model/slices.ts): the edge list of a large run is built a slice at a time. */
export function* edgeRowsSlices(run: Run, window?: number): Sliced<EdgeRows> {
  const states = yield* phase(edgeStatesSlices(run, window), 0, 0.95);
  const dataset = new Map<string, DatasetLabel[]>();
  for (const d of datasetLabels(run)) {
    if (d.handoffId === undefined) continue;
    const list = dataset.get(d.handoffId);
    if (list) list.push(d);
    else dataset.set(d.handoffId, [d]);
  }
  return new EdgeRows(states, humanLabels(run), clarificationsByHandoff(run), dataset);
}

/** A person's label on a real handoff that they added to the gallery (`gallery: true` on the annotation). */
export interface TraceCase {
  id: string;
  runId: string;
  runTitle: string;
  simulated: boolean;
  handoffId: string;
  type: ClarifierType;
  note?: string;
  task: string;
  sender: string;
  receiver: string;
  message: string;
  clarification?: EdgeClarification;
}

export const isGalleryLabel = (a: Annotation): boolean => (a as Annotation & { gallery?: unknown }).gallery === true;

/** The run with the gallery mark of its label on `handoffId` set or cleared (the label must exist). */
export function withGalleryMark(run: Run, handoffId: string, on: boolean): Run {
  const label = humanLabels(run).get(handoffId);
  if (!label) return run;
  const next: Annotation = { ...label };
  if (on) (next as Annotation & { gallery?: boolean }).gallery = true;
  else delete (next as Annotation & { gallery?: boolean }).gallery;
  return { ...run, annotations: run.annotations.map((a) => (a.id === label.id ? next : a)) };
}

export function traceCases(runs: readonly Run[]): TraceCase[] {
  const out: TraceCase[] = [];
  for (const run of runs) {
    const labels = [...humanLabels(run).values()].filter(isGalleryLabel);
    if (labels.length === 0) continue;
    const rows = finish(edgeRowsSlices(run));
    // The labelled handoffs' places, found in one pass over the run's handoffs (the first of an id, as a lookup would).
    const wanted = new Set(labels.map((a) => a.handoffId!));
    const placeOf = new Map<string, number>();
    run.handoffs.forEach((h, i) => {
      if (wanted.has(h.id) && !placeOf.has(h.id)) placeOf.set(h.id, i);
    });
    for (const a of labels) {
      const at = placeOf.get(a.handoffId!);
      if (at === undefined) continue;
      const row = rows.at(at);
      const c: TraceCase = {
        id: `${run.id}::${a.handoffId}`,
        runId: run.id,
        runTitle: run.title,
        simulated: run.simulated === true,
        handoffId: a.handoffId!,
        type: a.code as ClarifierType,
        task: row.state.task,
        sender: row.state.sender.name,
        receiver: row.state.receivers.map((r) => r.name).join(', '),
        message: row.state.message,
      };
      if (a.description) c.note = a.description;
      if (row.clarification) c.clarification = row.clarification;
      out.push(c);
    }
  }
  return out;
}

export interface TypeStats {
  /** Error-type counts (NONE left out, as in the paper's figure). */
  counts: Record<ErrorType, number>;
  total: number;
}

const emptyCounts = (): Record<ErrorType, number> => ({ DG: 0, RD: 0, SC: 0, CG: 0 });

export interface LibraryStats {
  human: TypeStats;
  clarifier: TypeStats;
  heuristic: TypeStats;
  /** Clarifier asks (endpoint) whose second check ran, and how many were resolved, per type. */
  secondChecked: Record<ErrorType, number>;
  resolved: Record<ErrorType, number>;
  runsWithLabels: number;
  runsClarified: number;
}

export function libraryStats(runs: readonly Run[]): LibraryStats {
  const human = emptyCounts();
  const clarifier = emptyCounts();
  const heuristic = emptyCounts();
  const secondChecked = emptyCounts();
  const resolved = emptyCounts();
  let runsWithLabels = 0;
  let runsClarified = 0;
  for (const run of runs) {
    const labels = humanLabels(run);
    if (labels.size > 0) runsWithLabels++;
    for (const a of labels.values()) if (a.code !== 'NONE') human[a.code as ErrorType]++;
    let clarified = false;
    for (const iv of run.interventions) {
      const c = clarificationOf(iv);
      if (!c) continue;
      clarified = true;
      if (c.type === 'NONE' || c.malformed) continue;
      (c.heuristic ? heuristic : clarifier)[c.type]++;
      if (!c.heuristic && c.resolved !== null) {
        secondChecked[c.type]++;
        if (c.resolved) resolved[c.type]++;
      }
    }
    if (clarified) runsClarified++;
  }
  const stats = (counts: Record<ErrorType, number>): TypeStats => ({ counts, total: ERROR_TYPES.reduce((s, t) => s + counts[t], 0) });
  return { human: stats(human), clarifier: stats(clarifier), heuristic: stats(heuristic), secondChecked, resolved, runsWithLabels, runsClarified };
}
