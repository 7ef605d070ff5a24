// Stages against the replay: which stage holds a playhead position, what changed on the subtask board from one stage
// to the next, and the selection matrix (stage × layer × agent) the heatmap draws. Pure; built once per run.
import type { Stage, SubtaskStatus } from '../../model/types.ts';

export interface PlacedStages {
  /** Stages that cover steps, in replay order. */
  stages: Stage[];
  /** First and last replay position of each placed stage. */
  starts: Int32Array;
  ends: Int32Array;
  closing?: Stage;
  /** Stages whose steps are not in this run (recorded stages naming unknown step ids): listed, never placed. */
  unplaced: Stage[];
}

export function placeStages(all: readonly Stage[] | undefined, positionOf: ReadonlyMap<string, number>, length: number): PlacedStages {
  const placed: { stage: Stage; start: number; end?: number }[] = [];
  const unplaced: Stage[] = [];
  let closing: Stage | undefined;
  for (const stage of all ?? []) {
    if (stage.closing) {
      closing = stage;
      continue;
    }
    const start = stage.startStepId !== undefined ? positionOf.get(stage.startStepId) : undefined;
    if (start === undefined) {
      unplaced.push(stage);
      continue;
    }
    const end = stage.endStepId !== undefined ? positionOf.get(stage.endStepId) : undefined;
    placed.push({ stage, start, end });
  }
  placed.sort((a, b) => a.start - b.start || a.stage.index - b.stage.index);
  const starts = Int32Array.from(placed.map((p) => p.start));
  // A stage without a recorded end runs until the next one starts.
  const ends = Int32Array.from(placed.map((p, i) => Math.max(p.start, p.end ?? (i + 1 < placed.length ? placed[i + 1].start - 1 : length - 1))));
  return { stages: placed.map((p) => p.stage), starts, ends, closing, unplaced };
}

/** Index into `placed.stages` of the stage holding `position`; -1 when none does (before the first, or in a gap). */
export function stageIndexAt(placed: PlacedStages, position: number): number {
  let lo = 0;
  let hi = placed.starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (placed.starts[mid] <= position) lo = mid + 1;
    else hi = mid;
  }
  const i = lo - 1;
  return i >= 0 && position <= placed.ends[i] ? i : -1;
}

export type SubtaskChange = { kind: 'new' } | { kind: 'status'; from: SubtaskStatus };

/** What changed on the board from `before` to `after`, by subtask id (unchanged subtasks are absent). */
export function boardChanges(before: Stage | undefined, after: Stage): Map<string, SubtaskChange> {
  const changes = new Map<string, SubtaskChange>();
  const was = new Map((before?.subtasks ?? []).map((s) => [s.id, s.status]));
  for (const s of after.subtasks) {
    const from = was.get(s.id);
    if (from === undefined) {
      if (before !== undefined) changes.set(s.id, { kind: 'new' });
    } else if (from !== s.status) changes.set(s.id, { kind: 'status', from });
  }
  return changes;
}

export interface SelectionMatrix {
  /** 'probability' when any layer entry recorded one; else observed 'frequency'. */
  measure: 'probability' | 'frequency';
  /** Agents of the pool, in order of first appearance. */
  agents: string[];
  layers: number;
  /** value[stage][layer][agent]; NaN where the agent is not listed in that layer. */
  value: number[][][];
  /** selected[stage][layer][agent]. */
  selected: boolean[][][];
}

export function selectionMatrix(stages: readonly Stage[]): SelectionMatrix {
  const agents: string[] = [];
  const seen = new Set<string>();
  let layers = 0;
  let recorded = false;
  for (const st of stages) {
    layers = Math.max(layers, st.layers.length);
    for (const layer of st.layers)
      for (const e of layer) {
        if (!seen.has(e.agentId)) {
          seen.add(e.agentId);
          agents.push(e.agentId);
        }
        if (e.probability !== undefined) recorded = true;
      }
  }
  const column = new Map(agents.map((a, i) => [a, i]));
  const value = stages.map((st) =>
    Array.from({ length: layers }, (_, l) => {
      const row = new Array<number>(agents.length).fill(NaN);
      for (const e of st.layers[l] ?? []) row[column.get(e.agentId)!] = (recorded ? e.probability : e.frequency) ?? NaN;
      return row;
    }),
  );
  const selected = stages.map((st) =>
    Array.from({ length: layers }, (_, l) => {
      const row = new Array<boolean>(agents.length).fill(false);
      for (const e of st.layers[l] ?? []) row[column.get(e.agentId)!] = e.selected !== false;
      return row;
    }),
  );
  return { measure: recorded ? 'probability' : 'frequency', agents, layers, value, selected };
}
