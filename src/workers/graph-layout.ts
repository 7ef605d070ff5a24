// Force-directed layout of the interaction graph (d3-force), run to rest in one call. Pure: runs in the layout worker
// and in tests. Managers sit above the agents they manage; tools and memory settle near the agents that call them.
import { emptyRecord } from '../model/record.ts';
import { forceCollide, forceLink, forceManyBody, forceSimulation, forceX, forceY, type SimulationNodeDatum } from 'd3';
import { maxOf } from '../model/large-arrays.ts';

export interface LayoutInput {
  nodes: { id: string; depth: number; radius: number }[];
  links: { source: string; target: string; weight: number }[];
}

export interface LayoutOutput {
  /** Node id → [x, y]. */
  positions: Record<string, [number, number]>;
}

interface SimNode extends SimulationNodeDatum {
  id: string;
  depth: number;
  radius: number;
}

const LEVEL_GAP = 110;

export function layoutGraph(input: LayoutInput): LayoutOutput {
  const n = input.nodes.length;
  const nodes: SimNode[] = input.nodes.map((node, i) => {
    // Deterministic start: a circle per hierarchy level, so the same run always lays out the same way.
    const angle = (i / Math.max(1, n)) * 2 * Math.PI;
    const ring = 60 + Math.sqrt(n) * 25;
    return { ...node, x: Math.cos(angle) * ring, y: node.depth * LEVEL_GAP + Math.sin(angle) * ring * 0.3 };
  });
  const ids = new Set(nodes.map((node) => node.id));
  const links = input.links.filter((l) => ids.has(l.source) && ids.has(l.target) && l.source !== l.target).map((l) => ({ ...l }));
  const maxWeight = maxOf(links.map((l) => l.weight), 1);
  const simulation = forceSimulation<SimNode>(nodes)
    .force(
      'link',
      forceLink<SimNode, (typeof links)[number] & { source: string | SimNode; target: string | SimNode }>(links)
        .id((d) => d.id)
        .distance(90)
        .strength((l) => 0.15 + 0.35 * (l.weight / maxWeight)),
    )
    .force('charge', forceManyBody<SimNode>().strength(-260 - 6 * Math.min(n, 80)))
    .force('collide', forceCollide<SimNode>((d) => d.radius + 26))
    .force('x', forceX<SimNode>(0).strength(0.04))
    .force('y', forceY<SimNode>((d) => d.depth * LEVEL_GAP).strength(0.25))
    .stop();
  const ticks = Math.min(400, 120 + n * 4);
  for (let i = 0; i < ticks; i++) simulation.tick();
  const positions = emptyRecord<[number, number]>(); // keyed by agent names from the trace
  for (const node of nodes) positions[node.id] = [Math.round(node.x ?? 0), Math.round(node.y ?? 0)];
  return { positions };
}
