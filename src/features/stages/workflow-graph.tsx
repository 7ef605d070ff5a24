// The workflow of one stage: layers of agents as columns (SVG, links drawn with d3's link generator). Recorded stages
// list the pool per layer with selection probabilities; the instantiated agents are solid, the others faded. Derived
// stages show the agents observed in each layer with their share of the layer's turns (a frequency).
import { linkHorizontal } from 'd3';
import { memo, useMemo } from 'react';
import type { Stage } from '../../model/types.ts';
import { maxOf } from '../../model/large-arrays.ts';

const COL_W = 150;
const NODE_W = 116;
const NODE_H = 36;
const GAP = 10;
const LEFT = 86;
const TOP = 26;

interface Node {
  key: string;
  agentId: string;
  layer: number;
  x: number;
  y: number;
  selected: boolean;
  label: string;
}

const link = linkHorizontal<{ source: [number, number]; target: [number, number] }, [number, number]>();

/** Memoised: the playhead moves every step, the stage only at its borders. */
export const WorkflowGraph = memo(function WorkflowGraph({ stage, agentName, colors }: { stage: Stage; agentName: (id: string) => string; colors: Map<string, string> }) {
  const { nodes, edges, width, height } = useMemo(() => {
    const tallest = maxOf(stage.layers.map((l) => l.length), 1);
    const height = TOP + tallest * (NODE_H + GAP) + 8;
    const nodes: Node[] = stage.layers.flatMap((layer, l) => {
      const top = TOP + ((tallest - layer.length) * (NODE_H + GAP)) / 2;
      return layer.map((e, i) => ({
        key: `${l}:${e.agentId}`,
        agentId: e.agentId,
        layer: l,
        x: LEFT + l * COL_W,
        y: top + i * (NODE_H + GAP),
        selected: e.selected !== false,
        label:
          e.probability !== undefined
            ? `p = ${e.probability.toFixed(2)}`
            : e.frequency !== undefined
              ? `${e.turns ?? '?'} turn${e.turns === 1 ? '' : 's'} · ${Math.round(e.frequency * 100)}%`
              : '',
      }));
    });
    const mid = (n: Node): [number, number] => [n.x, n.y + NODE_H / 2];
    const out = (n: Node): [number, number] => [n.x + NODE_W, n.y + NODE_H / 2];
    const stateMid: [number, number] = [72, TOP + (tallest * (NODE_H + GAP) - GAP) / 2];
    const edges: { key: string; d: string }[] = [];
    for (const n of nodes.filter((n) => n.layer === 0 && n.selected)) edges.push({ key: `state-${n.key}`, d: link({ source: stateMid, target: mid(n) }) ?? '' });
    for (let l = 0; l + 1 < stage.layers.length; l++) {
      for (const a of nodes.filter((n) => n.layer === l && n.selected))
        for (const b of nodes.filter((n) => n.layer === l + 1 && n.selected)) edges.push({ key: `${a.key}-${b.key}`, d: link({ source: out(a), target: mid(b) }) ?? '' });
    }
    return { nodes, edges, width: LEFT + Math.max(1, stage.layers.length) * COL_W, height };
  }, [stage]);
  const stateY = TOP + (maxOf(stage.layers.map((l) => l.length), 1) * (NODE_H + GAP) - GAP) / 2 - NODE_H / 2;
  const recorded = stage.layers.some((l) => l.some((e) => e.probability !== undefined));

  return (
    <section data-testid="workflow-graph" data-stage={stage.id} data-layers={stage.layers.length} className="rounded border border-slate-200 bg-white p-3">
      <header className="mb-1 flex flex-wrap items-baseline gap-x-3">
        <h3 className="text-sm font-semibold text-slate-900">Workflow of this stage</h3>
        <p className="text-xs text-slate-600">
          {stage.layers.length === 0
            ? stage.closing
              ? 'the closing state runs no workflow'
              : 'no agent acted in this stage'
            : recorded
              ? 'layers of agents from the pool with the recorded selection probabilities; faded = not instantiated'
              : 'layers by depth below the manager; labels are observed turn shares (frequency, not probability)'}
        </p>
      </header>
      {stage.layers.length > 0 && (
        <svg role="img" aria-label={`Workflow with ${stage.layers.length} layer${stage.layers.length === 1 ? '' : 's'}`} viewBox={`0 0 ${width} ${height}`} width="100%" style={{ maxHeight: 320, maxWidth: width * 1.4 }}>
          {stage.layers.map((_, l) => (
            <text key={l} x={LEFT + l * COL_W + NODE_W / 2} y={14} textAnchor="middle" className="fill-slate-500 text-[10px]">
              layer {l + 1}
            </text>
          ))}
          <g>
            <rect x={8} y={stateY} width={64} height={NODE_H} rx={6} className="fill-slate-100 stroke-slate-400" strokeDasharray="3 2" />
            <text x={40} y={stateY + 15} textAnchor="middle" className="fill-slate-600 text-[10px]">
              task
            </text>
            <text x={40} y={stateY + 27} textAnchor="middle" className="fill-slate-600 text-[10px]">
              state
            </text>
          </g>
          {edges.map((e) => (
            <path key={e.key} d={e.d} fill="none" className="stroke-slate-400" strokeWidth={1.2} />
          ))}
          {nodes.map((n) => (
            <g key={n.key} data-testid="workflow-node" data-agent={n.agentId} data-layer={n.layer + 1} data-selected={n.selected} opacity={n.selected ? 1 : 0.4}>
              <title>{`${agentName(n.agentId)} — layer ${n.layer + 1}${n.label ? `, ${n.label}` : ''}${n.selected ? '' : ' (not instantiated)'}`}</title>
              <rect x={n.x} y={n.y} width={NODE_W} height={NODE_H} rx={6} fill="white" stroke={colors.get(n.agentId) ?? '#64748b'} strokeWidth={n.selected ? 2.5 : 1.2} strokeDasharray={n.selected ? undefined : '4 3'} />
              <rect x={n.x} y={n.y} width={6} height={NODE_H} rx={2} fill={colors.get(n.agentId) ?? '#64748b'} />
              <text x={n.x + 12} y={n.y + 15} className="fill-slate-900 text-[11px] font-medium">
                {clip(agentName(n.agentId), 16)}
              </text>
              <text x={n.x + 12} y={n.y + 28} className="fill-slate-600 text-[10px]">
                {n.label}
              </text>
            </g>
          ))}
        </svg>
      )}
    </section>
  );
});

const clip = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
