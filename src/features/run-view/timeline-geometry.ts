// Where each replay step sits on the timeline's x axis in each mode, and hit-testing. Pure, built once per run and mode.
import { finish, SLICE, type Sliced } from '../../model/slices.ts';
import type { RunView } from './run-view-model.ts';

/** time: recorded start/end; tokens: blocks as wide as the step's tokens, end to end; order: one unit per step. */
export type TimelineMode = 'time' | 'tokens' | 'order';

export interface TimelineGeometry {
  mode: TimelineMode;
  x0: Float64Array;
  x1: Float64Array;
  domain: [number, number];
  /** Per lane, the positions of its steps in replay order. */
  byLane: Int32Array[];
  /** Per lane, a summary of its blocks by chunks of LANE_CHUNK (absent: the timeline draws every step). */
  chunks?: LaneChunks[];
}

/** Steps of a lane per chunk of LaneChunks. */
export const LANE_CHUNK = 16;

/**
 * What the timeline's drawing needs to pass over a lane's blocks a chunk at a time (drawTimeline in timeline.tsx): at
 * 1M steps it drew from every step, a task of 50–85 ms (thread time) in the timeline's first render and on each zoom.
 */
export interface LaneChunks {
  /** Whether the lane's blocks start in order (x0 never decreasing along byLane): only then are chunks skipped. */
  sorted: boolean;
  /** Per chunk of LANE_CHUNK consecutive steps of the lane: its widest block (x1 − x0; Infinity when unknown). */
  width: Float64Array;
  /** Its latest block end (Infinity when unknown). */
  end: Float64Array;
  /** 1: a step of it has an error; 2: a step of it repeats (loopAt). */
  flags: Uint8Array;
  /** The lane's widest block (Infinity when unknown) and its chunks' flags together. */
  widest: number;
  anyFlags: number;
}

const cache = new WeakMap<RunView, Map<TimelineMode, TimelineGeometry>>();

/** The mode the timeline opens in. */
export function initialTimelineMode(view: RunView): TimelineMode {
  return view.time.hasTime ? 'time' : 'order';
}

/** The geometry of `view` in `mode` when built already, else undefined. */
export function builtTimelineGeometry(view: RunView, mode: TimelineMode): TimelineGeometry | undefined {
  return cache.get(view)?.get(mode);
}

export function timelineGeometry(view: RunView, mode: TimelineMode): TimelineGeometry {
  return cache.get(view)?.get(mode) ?? finish(timelineGeometrySlices(view, mode));
}

/**
 * timelineGeometry in slices (src/model/slices.ts), kept in the same cache: the run view of a large run builds its
 * timeline's opening geometry with its other derivations (run-view-loader.ts), not in the timeline's first render.
 */
export function* timelineGeometrySlices(view: RunView, mode: TimelineMode): Sliced<TimelineGeometry> {
  let modes = cache.get(view);
  if (!modes) cache.set(view, (modes = new Map()));
  let geometry = modes.get(mode);
  if (!geometry) modes.set(mode, (geometry = yield* build(view, mode)));
  return geometry;
}

function* build(view: RunView, mode: TimelineMode): Sliced<TimelineGeometry> {
  const n = view.steps.length;
  let x0: Float64Array;
  let x1: Float64Array;
  let domain: [number, number];
  if (mode === 'time' && view.time.hasTime) {
    // The view's own time columns, not copies (16 MB at a million steps): neither is written once the view is built.
    x0 = view.time.start;
    x1 = view.time.end;
    domain = [view.time.min, view.time.max];
  } else if (mode === 'tokens' && view.tokens.cumulative[n - 1] > 0) {
    x0 = new Float64Array(n);
    x1 = new Float64Array(n);
    let before = 0;
    for (let p = 0; p < n; p++) {
      if (p % (4 * SLICE) === 4 * SLICE - 1) yield (0.5 * p) / n;
      x0[p] = before;
      before = view.tokens.cumulative[p];
      x1[p] = before;
    }
    domain = [0, before];
  } else {
    x0 = new Float64Array(n);
    x1 = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      if (p % (4 * SLICE) === 4 * SLICE - 1) yield (0.5 * p) / n;
      x0[p] = p;
      x1[p] = p + 1;
    }
    domain = [0, Math.max(1, n)];
  }
  const counts = new Int32Array(view.lanes.length);
  for (let p = 0; p < n; p++) {
    if (p % (4 * SLICE) === 4 * SLICE - 1) yield 0.5 + (0.25 * p) / n;
    counts[view.laneAt[p]]++;
  }
  const byLane = Array.from(counts, (c) => new Int32Array(c));
  counts.fill(0);
  for (let p = 0; p < n; p++) {
    if (p % (4 * SLICE) === 4 * SLICE - 1) yield 0.75 + (0.2 * p) / n;
    const lane = view.laneAt[p];
    byLane[lane][counts[lane]++] = p;
  }
  const chunks: LaneChunks[] = [];
  let done = 0;
  for (const positions of byLane) {
    const count = Math.ceil(positions.length / LANE_CHUNK);
    const width = new Float64Array(count).fill(-Infinity);
    const end = new Float64Array(count).fill(-Infinity);
    const flags = new Uint8Array(count);
    let sorted = true;
    let before = -Infinity;
    for (let i = 0; i < positions.length; i++) {
      if (++done % (4 * SLICE) === 0) yield 0.95 + (0.05 * done) / n;
      const p = positions[i];
      const c = (i / LANE_CHUNK) | 0;
      const a = x0[p];
      const b = x1[p];
      // NaN (no time) compares false: such a chunk is never skipped and its lane drawn step by step.
      if (!(a >= before)) sorted = false;
      before = a;
      const w = b - a;
      if (w === w) {
        if (w > width[c]) width[c] = w;
        if (b > end[c]) end[c] = b;
      } else {
        width[c] = Infinity;
        end[c] = Infinity;
      }
      if (view.errorAt[p]) flags[c] |= 1;
      if (view.loopAt[p] >= 0) flags[c] |= 2;
    }
    let widest = -Infinity;
    let anyFlags = 0;
    for (let c = 0; c < count; c++) {
      if (width[c] > widest) widest = width[c];
      anyFlags |= flags[c];
    }
    chunks.push({ sorted, width, end, flags, widest, anyFlags });
  }
  return { mode, x0, x1, domain, byLane, chunks };
}

/** The step of `lane` whose block is at or nearest to domain value `x` (within `tolerance` domain units). */
export function stepAt(geometry: TimelineGeometry, lane: number, x: number, tolerance: number): number | undefined {
  const positions = geometry.byLane[lane];
  if (!positions || positions.length === 0) return undefined;
  const { x0, x1 } = geometry;
  // Last step starting at or before x (blocks of one agent are in order of start).
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x0[positions[mid]] <= x) lo = mid + 1;
    else hi = mid;
  }
  let best: number | undefined;
  let bestDistance = Infinity;
  for (let i = Math.max(0, lo - 3); i < Math.min(positions.length, lo + 2); i++) {
    const p = positions[i];
    const distance = x < x0[p] ? x0[p] - x : x > x1[p] ? x - x1[p] : 0;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = p;
    }
  }
  return bestDistance <= tolerance ? best : undefined;
}

/** The entry of sorted `positions` whose block centre is nearest to `x`. */
export function nearestMarker(geometry: TimelineGeometry, positions: ArrayLike<number>, x: number, tolerance: number): number | undefined {
  let best: number | undefined;
  let bestDistance = Infinity;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i];
    const d = Math.abs((geometry.x0[p] + geometry.x1[p]) / 2 - x);
    if (d < bestDistance) {
      bestDistance = d;
      best = p;
    }
  }
  return bestDistance <= tolerance ? best : undefined;
}
