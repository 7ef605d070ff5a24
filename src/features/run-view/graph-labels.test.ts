// The edge counts the graph writes (graph-labels.ts): each where it covers no other count, node or name.
import { describe, expect, it } from 'vitest';
import { countCentre, NAME_ABOVE, NAME_STEP, placeCountLabels, placeNames, type LabelEdge, type LabelNode } from './graph-labels.ts';

const NAME_BELOW = 12;

/** Every ordered pair of `n` agents on a circle of `ring` units, an edge each way. */
function completeTeam(n: number, ring: number): { nodes: LabelNode[]; edges: LabelEdge[] } {
  const at = (i: number): [number, number] => [Math.round(Math.cos((i / n) * 2 * Math.PI) * ring), Math.round(Math.sin((i / n) * 2 * Math.PI) * ring)];
  const nodes = Array.from({ length: n }, (_, i) => ({ at: at(i), r: 16, name: `Agent${i}`, nameY: 16 + NAME_BELOW }));
  const edges: LabelEdge[] = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) edges.push({ id: `${i}->${j}`, from: at(i), to: at(j), vote: (i + j) % 3 === 0, text: `×${i * n + j}`, weight: i * n + j });
  return { nodes, edges };
}

/** The box a count is written in at its place, as the placement measures it (a little wider than the text is). */
function box(edge: LabelEdge, [x, y]: [number, number]) {
  const half = (edge.text.length * 5.4) / 2 + 1.5;
  return { x0: x - half, x1: x + half, y0: y - 6, y1: y + 6 };
}

describe('placeCountLabels', () => {
  it('writes every count of a sparse graph: an agent and its tools far apart', () => {
    const agent: LabelNode = { at: [0, 0], r: 20, name: 'manager', nameY: 20 + NAME_BELOW };
    const tools = [0, 1, 2, 3].map((k): LabelNode => ({ at: [Math.cos(k * 1.57) * 150, Math.sin(k * 1.57) * 150], r: 10, name: `tool${k}`, nameY: 10 + NAME_BELOW }));
    const edges = tools.map((t, k): LabelEdge => ({ id: `e${k}`, from: agent.at, to: t.at, vote: false, text: `×${k + 1}`, weight: k + 1 }));
    expect([...placeCountLabels(edges, [agent, ...tools]).keys()].sort()).toEqual(['e0', 'e1', 'e2', 'e3']);
  });

  it('in a team where everyone talks to everyone, keeps counts off one another and off the nodes', () => {
    const { nodes, edges } = completeTeam(6, 70);
    const placed = placeCountLabels(edges, nodes);
    // Some are written, not all: 30 counts do not fit between 6 agents this close without covering one another.
    expect(placed.size).toBeGreaterThan(3);
    expect(placed.size).toBeLessThan(edges.length);
    const boxes = edges.filter((e) => placed.has(e.id)).map((e) => box(e, placed.get(e.id)!));
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        expect(a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1, `counts ${i} and ${j} overlap`).toBe(false);
      }
    for (const b of boxes)
      for (const n of nodes) {
        const inside = b.x0 < n.at[0] + n.r && n.at[0] - n.r < b.x1 && b.y0 < n.at[1] + n.r && n.at[1] - n.r < b.y1;
        expect(inside, `a count covers the node at ${n.at}`).toBe(false);
      }
  });

  it('gives the middle to the busiest edge, and moves the next along its curve', () => {
    // Two edges whose middles fall on the same spot: the busier one is written there, the other a little before it.
    const edges: LabelEdge[] = [
      { id: 'quiet', from: [0, 0], to: [200, 0], vote: false, text: '×2', weight: 2 },
      { id: 'busy', from: [0, 0], to: [200, 0.5], vote: false, text: '×40', weight: 40 },
    ];
    const placed = placeCountLabels(edges, []);
    expect(placed.get('busy')).toEqual(countCentre([0, 0], [200, 0.5], false));
    const quiet = placed.get('quiet')!;
    expect(quiet[0]).toBeLessThan(100);
    expect(quiet[0]).toBeGreaterThan(50);
  });

  it('leaves a count unwritten when no spot along its edge is free', () => {
    // A short edge between two nodes whose discs cover it from end to end.
    const nodes: LabelNode[] = [
      { at: [0, 0], r: 30, name: 'a', nameY: 30 + NAME_BELOW },
      { at: [50, 0], r: 30, name: 'b', nameY: 30 + NAME_BELOW },
    ];
    const placed = placeCountLabels([{ id: 'e', from: [0, 0], to: [50, 0], vote: false, text: '×3', weight: 3 }], nodes);
    expect(placed.size).toBe(0);
  });
});

describe('placeNames', () => {
  it('writes names under their nodes while there is room', () => {
    const nodes = [
      { at: [0, 0] as [number, number], r: 16, name: 'CodeAgent' },
      { at: [200, 0] as [number, number], r: 12, name: 'DeepResearchAgent' },
    ];
    expect(placeNames(nodes, NAME_BELOW)).toEqual([16 + NAME_BELOW, 12 + NAME_BELOW]);
  });

  it('moves down the name that would cover a bigger neighbour’s, else over its node', () => {
    // Two agents side by side, 70 units apart: their names (9 and 17 characters) would overlap under them.
    const side = [
      { at: [0, 0] as [number, number], r: 12, name: 'CodeAgent' },
      { at: [70, 0] as [number, number], r: 16, name: 'DeepResearchAgent' },
    ];
    expect(placeNames(side, NAME_BELOW)).toEqual([12 + NAME_BELOW + 3 * NAME_STEP, 16 + NAME_BELOW]);
    // A third node right under the small one takes that line: its name goes over it.
    const under = [...side, { at: [0, 48] as [number, number], r: 12, name: 'Coordinator' }];
    expect(placeNames(under, NAME_BELOW)[0]).toBe(-(12 + NAME_ABOVE));
    // And with a node right over it too, no place is free: the usual one is kept.
    const boxed = [...under, { at: [0, -35] as [number, number], r: 12, name: 'Planner' }];
    expect(placeNames(boxed, NAME_BELOW)[0]).toBe(12 + NAME_BELOW);
  });

  it('places a thousand names by their neighbourhoods: a row of close agents alternates under and lower', () => {
    // 1,000 agents 60 units apart on one line, names of 12 characters (80 units wide): each covers its neighbours'.
    const row = Array.from({ length: 1000 }, (_, i) => ({ at: [i * 60, 0] as [number, number], r: 12, name: `Agent-${String(i).padStart(6, '0')}` }));
    const spots = placeNames(row, NAME_BELOW);
    expect(spots.slice(0, 4)).toEqual([24, 24 + 2 * NAME_STEP, 24, 24 + 2 * NAME_STEP]);
    expect(new Set(spots)).toEqual(new Set([24, 24 + 2 * NAME_STEP]));
  });
});

