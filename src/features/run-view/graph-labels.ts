// Which edges of the interaction graph get their count written beside them. A team whose agents all talk to one
// another (a message bus, a group chat with votes) has an edge each way between most pairs: written all at once, the
// counts piled up in the middle of the graph over one another and over the agents' names. A count is written where
// it covers no other count and no node or node name, the busiest edges first: at the middle of its edge, else a little
// before or after it along the curve. The others are in the edges' tooltips, and the current step's edges have theirs
// written by the highlight whatever the room (where the graph wrote it, or at the middle).

/**
 * The control point of an edge's curve (a quadratic Bézier between the two nodes' centres): it bends to the left of
 * the way from `a` to `b`, so the two edges of a pair going opposite ways bend to opposite sides.
 */
export function edgeControl(a: [number, number], b: [number, number]): [number, number] {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const length = Math.hypot(dx, dy) || 1;
  const bend = Math.min(40, length * 0.15);
  return [(a[0] + b[0]) / 2 - (dy / length) * bend, (a[1] + b[1]) / 2 + (dx / length) * bend];
}

/** The point of the edge's curve at `t` from `a` (0) to `b` (1). */
function pointOnEdge(a: [number, number], b: [number, number], t: number): [number, number] {
  const c = edgeControl(a, b);
  const [u, v, w] = [(1 - t) * (1 - t), 2 * (1 - t) * t, t * t];
  return [u * a[0] + v * c[0] + w * b[0], u * a[1] + v * c[1] + w * b[1]];
}

/** The point halfway along the edge's curve. */
export function edgeMidpoint(a: [number, number], b: [number, number]): [number, number] {
  return pointOnEdge(a, b, 0.5);
}

/** Where a count's text is centred at `t` along its edge: on the curve, a vote's a line lower (as the graph writes it). */
export function countCentre(a: [number, number], b: [number, number], vote: boolean, t = 0.5): [number, number] {
  const [x, y] = pointOnEdge(a, b, t);
  return [x, vote ? y + 10.5 : y];
}

/** Where along its edge a count may go, in order of preference. */
const SPOTS = [0.5, 0.38, 0.62, 0.28, 0.72];

/** Graph units a character of a count takes at its 9 px (digits, ×, "votes"), and half a line's height. */
const COUNT_CHAR = 5.4;
const COUNT_HALF_HEIGHT = 6;
/** A node's name: 11 px text whose baseline is NAME_BELOW under the node's rim. */
const NAME_CHAR = 6.5;
const NAME_HALF_HEIGHT = 6.5;

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const overlaps = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

export interface LabelNode {
  at: [number, number];
  r: number;
  /** The name as written under the node. */
  name: string;
}

export interface LabelEdge {
  id: string;
  from: [number, number];
  to: [number, number];
  vote: boolean;
  text: string;
  /** Busier edges are written first. */
  weight: number;
}

/**
 * Where each edge whose count can be written without covering another count, a node or a node's name has it written
 * (the centre of its text; boxes in graph units, so the answer does not change with the zoom). `nameBelow`: the
 * name's baseline under the rim. Greedy, busiest first; at most a few dozen edges (the graph writes no counts above
 * that), so pairwise is enough.
 */
export function placeCountLabels(edges: readonly LabelEdge[], nodes: readonly LabelNode[], nameBelow: number): Map<string, [number, number]> {
  const taken: Box[] = [];
  for (const { at, r, name } of nodes) {
    taken.push({ x0: at[0] - r, y0: at[1] - r, x1: at[0] + r, y1: at[1] + r });
    const half = (name.length * NAME_CHAR) / 2 + 2;
    const centre = at[1] + r + nameBelow - 3.5;
    taken.push({ x0: at[0] - half, y0: centre - NAME_HALF_HEIGHT, x1: at[0] + half, y1: centre + NAME_HALF_HEIGHT });
  }
  const placed = new Map<string, [number, number]>();
  const order = edges.map((_, i) => i).sort((i, j) => edges[j].weight - edges[i].weight || i - j);
  for (const i of order) {
    const edge = edges[i];
    const half = (edge.text.length * COUNT_CHAR) / 2 + 1.5;
    for (const t of SPOTS) {
      const [x, y] = countCentre(edge.from, edge.to, edge.vote, t);
      const box = { x0: x - half, y0: y - COUNT_HALF_HEIGHT, x1: x + half, y1: y + COUNT_HALF_HEIGHT };
      if (taken.some((other) => overlaps(other, box))) continue;
      taken.push(box);
      placed.set(edge.id, [x, y]);
      break;
    }
  }
  return placed;
}
