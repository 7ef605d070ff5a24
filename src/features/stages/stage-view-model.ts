// What the stage view derives from a run, once per run object: stages placed on the replay, the heatmap matrix, and
// where the stages came from. A playhead move is then a binary search.
import { placeStages, selectionMatrix, type PlacedStages, type SelectionMatrix } from '../../engine/stages/index.ts';
import type { Run, Stage } from '../../model/types.ts';
import type { RunView } from '../run-view/run-view-model.ts';

export type StageSource = 'none' | 'recorded' | 'offline' | 'llm' | 'mixed';

export interface StageViewModel {
  placed: PlacedStages;
  /** Placed stages, then the closing state: the heatmap's columns and the strip's chips. */
  columns: Stage[];
  matrix: SelectionMatrix;
  source: StageSource;
  /** How the stages were made, for the note under the derive controls (offline: the segmentation's own note). */
  note?: string;
  /** Display name of an agent id (pool agents a recording names but the run lacks keep their id). */
  agentName: (id: string) => string;
}

export function sourceOf(stages: readonly Stage[] | undefined): StageSource {
  if (!stages || stages.length === 0) return 'none';
  const kinds = new Set(stages.map((s) => s.derivedBy ?? 'recorded'));
  return kinds.size > 1 ? 'mixed' : ([...kinds][0] as StageSource);
}

/**
 * A run's stages without the closing state, which is not a stage: the view's count ("stage 1 / 7") for a run whose
 * stages all name its steps (the view leaves out recorded stages it cannot place on the replay, and lists them apart).
 */
export function stageCount(stages: readonly Stage[] | undefined): number {
  let n = 0;
  for (const s of stages ?? []) if (!s.closing) n++;
  return n;
}

const cache = new WeakMap<Run, StageViewModel>();

export function stageViewOf(view: RunView): StageViewModel {
  const run = view.run;
  let model = cache.get(run);
  if (!model) {
    const placed = placeStages(run.stages, view.positionOf, view.steps.length);
    const columns = placed.closing ? [...placed.stages, placed.closing] : placed.stages;
    const names = new Map(run.agents.map((a) => [a.id, a.name]));
    model = {
      placed,
      columns,
      matrix: selectionMatrix(columns),
      source: sourceOf(run.stages),
      note: run.stages?.find((s) => s.notes?.some((n) => n.startsWith('Heuristic:')))?.notes?.find((n) => n.startsWith('Heuristic:')),
      agentName: (id) => names.get(id) ?? id,
    };
    cache.set(run, model);
  }
  return model;
}

/** Column index of the stage (placed index; the closing state is the last column). */
export function columnOf(model: StageViewModel, stage: Stage | undefined): number {
  return stage === undefined ? -1 : model.columns.indexOf(stage);
}
