// Which edges of the interaction graph get their count written beside them. A team whose agents all talk to one
// another (a message bus, a group chat with votes) has an edge each way between most pairs: written all at once, the
// counts piled up in the middle of the graph over one another and over the agents' names. A count is written where
// it covers no other count and no node or node name, the busiest edges first: at the middle of its edge, else a little
// before or after it along the curve. The others are in the edges' tooltips, and the current step's edges have theirs
// written by the highlight whatever the room (where the graph wrote it, or at the middle). A node's name goes under it,
// a line lower or over it where, under it, it would cover another name or node (placeNames).

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

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const overlaps = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

export interface LabelNode {
  at: [number, number];
  r: number;
  /** The name as written by the node. */
  name: string;
  /** Its baseline, from the node's centre (placeNames: under the node, or over it where another name is). */
  nameY: number;
}

/** Half the width a node's name (as written, shortened) takes at 11 px, in graph units, with a little room. */
export function nameHalfWidth(name: string): number {
  return (name.length * NAME_CHAR) / 2 + 2;
}

/** A name's box (graph units) with its baseline `nameY` from the centre `at`. */
function nameBox(at: [number, number], name: string, nameY: number): Box {
  const half = nameHalfWidth(name);
  const centre = at[1] + nameY - 3.5;
  return { x0: at[0] - half, y0: centre - NAME_HALF_HEIGHT, x1: at[0] + half, y1: centre + NAME_HALF_HEIGHT };
}

/** A name written over its node: its baseline this far above the rim. */
export const NAME_ABOVE = 6;
/** A name moved down, clear of the name beside it, goes lower by this much at a time, at most a line and a half. */
export const NAME_STEP = 7;
const NAME_STEPS = [1, 2, 3];

/**
 * Where each node's name goes. Under the node (`nameBelow` from its rim to the baseline) unless there it would cover a
 * name already placed or another node (two agents side by side); then lower, by up to a line and a half, where names
 * beside each other are staggered and still read as their node's; then over the node. Bigger nodes are placed first and keep the usual
 * place. Returns each node's baseline from its centre, by the node's index.
 */
export function placeNames(nodes: readonly Omit<LabelNode, 'nameY'>[], nameBelow: number): number[] {
  // Boxes in a grid of cells, so each look-up reads only its neighbourhood: a team of hundreds of agents and tools is
  // not a pass over every pair.
  const grid = new BoxGrid();
  nodes.forEach(({ at, r }, i) => grid.add({ x0: at[0] - r, y0: at[1] - r, x1: at[0] + r, y1: at[1] + r }, i));
  const out = nodes.map(({ r }) => r + nameBelow);
  const order = nodes.map((_, i) => i).sort((i, j) => nodes[j].r - nodes[i].r || i - j);
  for (const i of order) {
    const { at, r, name } = nodes[i];
    const spots = [r + nameBelow, ...NAME_STEPS.map((k) => r + nameBelow + k * NAME_STEP), -(r + NAME_ABOVE)];
    const spot = spots.find((y) => !grid.hits(nameBox(at, name, y), i)) ?? spots[0];
    out[i] = spot;
    grid.add(nameBox(at, name, spot), -1);
  }
  return out;
}

/** Boxes kept by the cells of a grid they cover, each with the node it belongs to (-1: none). */
class BoxGrid {
  private readonly cells = new Map<string, { box: Box; owner: number }[]>();
  private static readonly SIZE = 64;

  private keys(b: Box): string[] {
    const size = BoxGrid.SIZE;
    const out: string[] = [];
    for (let x = Math.floor(b.x0 / size); x <= Math.floor(b.x1 / size); x++) for (let y = Math.floor(b.y0 / size); y <= Math.floor(b.y1 / size); y++) out.push(`${x},${y}`);
    return out;
  }

  add(box: Box, owner: number): void {
    const entry = { box, owner };
    for (const key of this.keys(box)) {
      const cell = this.cells.get(key);
      if (cell) cell.push(entry);
      else this.cells.set(key, [entry]);
    }
  }

  /** Whether `box` covers a box kept here that is not `self`'s own. */
  hits(box: Box, self: number): boolean {
    for (const key of this.keys(box)) for (const e of this.cells.get(key) ?? []) if (e.owner !== self && overlaps(e.box, box)) return true;
    return false;
  }
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
 * (the centre of its text; boxes in graph units, so the answer does not change with the zoom). Greedy, busiest first; at most a few dozen edges (the graph writes no counts above
 * that), so pairwise is enough.
 */
export function placeCountLabels(edges: readonly LabelEdge[], nodes: readonly LabelNode[]): Map<string, [number, number]> {
  const taken: Box[] = [];
  for (const { at, r, name, nameY } of nodes) {
    taken.push({ x0: at[0] - r, y0: at[1] - r, x1: at[0] + r, y1: at[1] + r });
    taken.push(nameBox(at, name, nameY));
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
