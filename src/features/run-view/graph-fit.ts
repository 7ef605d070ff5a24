// Fitting the interaction graph to its panel. The force layout settles into a roughly round cluster, while the panel
// is two to three times wider than tall (800 × 300 at 1920 × 1080). Fitted as it came, the cluster filled the panel's
// height and a third of its width, and its names and edge counts crowded each other in the middle. So before the fit,
// the node centres are spread along the panel's long side (at most MAX_SPREAD times) until the drawing is as wide as
// the panel at the scale its height allows. Names and counts keep their size; only the room between nodes grows.
import { emptyRecord } from '../../model/record.ts';
import type { Box } from './graph-labels.ts';

type Point = [number, number];
type Positions = Record<string, Point>;

/** A node as the fit sees it: its id and half the width its name needs. */
export interface FitNode {
  id: string;
  half: number;
}

/** Room above a node's centre and below it (its name is written under it), in layout units. */
export const ROOM_ABOVE = 40;
export const ROOM_BELOW = 50;
/** The fit never magnifies more than this (a graph of two nodes would fill the panel with them). */
export const MAX_SCALE = 2;
/** The most the centres are spread along one axis. */
export const MAX_SPREAD = 3;

/** The box the drawing needs with its centres spread `fx` times along x and `fy` times along y. */
export function graphBounds(nodes: readonly FitNode[], positions: Readonly<Positions>, fx = 1, fy = 1): Box | undefined {
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const node of nodes) {
    const p = Object.hasOwn(positions, node.id) ? positions[node.id] : undefined;
    if (!p) continue;
    x0 = Math.min(x0, p[0] * fx - node.half);
    x1 = Math.max(x1, p[0] * fx + node.half);
    y0 = Math.min(y0, p[1] * fy - ROOM_ABOVE);
    y1 = Math.max(y1, p[1] * fy + ROOM_BELOW);
  }
  return Number.isFinite(x0) ? { x0, x1, y0, y1 } : undefined;
}

/** The scale and translation that centre `b` in a panel `width` × `room`. */
export function fitTransform(b: Box, width: number, room: number): { scale: number; x: number; y: number } {
  const scale = Math.min(MAX_SCALE, width / (b.x1 - b.x0), room / (b.y1 - b.y0));
  return { scale, x: width / 2 - ((b.x0 + b.x1) / 2) * scale, y: room / 2 - ((b.y0 + b.y1) / 2) * scale };
}

/**
 * The largest factor in [1, MAX_SPREAD] for which `extent(factor)` stays within `limit`. The extent of a spread
 * drawing never shrinks as the factor grows (for each pair of nodes that narrows it, the mirrored pair widens it by as
 * much), so a bisection finds it.
 */
function largestFactor(extent: (f: number) => number, limit: number): number {
  if (extent(1) >= limit) return 1;
  if (extent(MAX_SPREAD) <= limit) return MAX_SPREAD;
  let [lo, hi] = [1, MAX_SPREAD];
  for (let i = 0; i < 24; i++) {
    const mid = (lo + hi) / 2;
    if (extent(mid) <= limit) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * `positions` with the centres spread along the panel's long side so that the drawing fills the panel (`width` ×
 * `room`). The same object when nothing needs spreading.
 */
export function spreadToPanel(nodes: readonly FitNode[], positions: Readonly<Positions>, width: number, room: number): Positions {
  const b = graphBounds(nodes, positions);
  if (!b || width <= 0 || room <= 0) return positions as Positions;
  const byWidth = width / (b.x1 - b.x0);
  const byHeight = room / (b.y1 - b.y0);
  let [fx, fy] = [1, 1];
  if (byWidth > byHeight) {
    // The height decides the scale: widen the drawing to the panel's width at that scale.
    const scale = Math.min(MAX_SCALE, byHeight);
    fx = largestFactor((f) => {
      const s = graphBounds(nodes, positions, f, 1)!;
      return s.x1 - s.x0;
    }, width / scale);
  } else if (byHeight > byWidth) {
    const scale = Math.min(MAX_SCALE, byWidth);
    fy = largestFactor((f) => {
      const s = graphBounds(nodes, positions, 1, f)!;
      return s.y1 - s.y0;
    }, room / scale);
  }
  if (fx === 1 && fy === 1) return positions as Positions;
  const out = emptyRecord<Point>(); // keyed by agent names from the trace
  for (const [id, p] of Object.entries(positions)) out[id] = [Math.round(p[0] * fx), Math.round(p[1] * fy)];
  return out;
}
