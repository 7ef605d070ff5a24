// Pure derivations for the Taxonomy view: the edges of a run with every label on them, cases promoted from real
// traces into the gallery, and the statistics the charts draw (type distribution, one-shot resolution).
import {
  clarificationOf,
  clarificationsByHandoff,
  datasetLabels,
  edgeStatesSlices,
  ERROR_TYPES,
  humanLabels,
  type ClarifierType,
  type DatasetLabel,
  type EdgeClarification,
  type EdgeState,
  type ErrorType,
} from '../../engine/clarifier/index.ts';
import type { Annotation, Run } from '../../model/types.ts';
import { finish, phase, SLICE, type Sliced } from '../../model/slices.ts';

export interface EdgeRow {
  state: EdgeState;
  human?: Annotation;
  clarification?: EdgeClarification;
  dataset: DatasetLabel[];
}

export function edgeRows(run: Run, window?: number): EdgeRow[] {
  return finish(edgeRowsSlices(run, window));
}

/** edgeRows as a sliced derivation (model/slices.ts): the edge list of a large run is built a slice at a time. */
export function* edgeRowsSlices(run: Run, window?: number): Sliced<EdgeRow[]> {
  const states = yield* phase(edgeStatesSlices(run, window), 0, 0.8);
  const human = humanLabels(run);
  const clar = clarificationsByHandoff(run);
  const dataset = new Map<string, DatasetLabel[]>();
  for (const d of datasetLabels(run)) {
    if (d.handoffId === undefined) continue;
    const list = dataset.get(d.handoffId);
    if (list) list.push(d);
    else dataset.set(d.handoffId, [d]);
  }
  const rows: EdgeRow[] = [];
  for (let i = 0; i < states.length; i++) {
    const state = states[i];
    rows.push({ state, human: human.get(state.id), clarification: clar.get(state.id), dataset: dataset.get(state.id) ?? [] });
    if (i % SLICE === SLICE - 1) yield 0.8 + (0.2 * i) / states.length;
  }
  return rows;
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
    const rows = new Map(edgeRows(run).map((r) => [r.state.id, r]));
    for (const a of labels) {
      const row = rows.get(a.handoffId!);
      if (!row) continue;
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
