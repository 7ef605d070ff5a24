// The interaction graph (SVG, d3-zoom): agents, tools and memory as three node shapes, edges as wide as their
// messages or tokens, the manager hierarchy dashed, loops outlined, and the current step's agent and edges lit.
// Layout runs in a Web Worker; the base drawing is memoised, only the highlight layer follows the playhead.
import { select, zoom, zoomIdentity, type ZoomBehavior } from 'd3';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { GraphEdge, GraphNode } from '../../model/graph.ts';
import { recordOf } from '../../model/record.ts';
import { rectifierMarks } from './rectifier-marks.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { countCentre, edgeControl, edgeMidpoint, nameHalfWidth, placeCountLabels, placeNames } from './graph-labels.ts';
import { fitTransform, graphBounds, spreadToPanel } from './graph-fit.ts';
import type { LayoutInput, LayoutOutput } from '../../workers/graph-layout.ts';
import { agentColors } from '../../ui/agent-colors.ts';
import type { RunView } from './run-view-model.ts';
import { compact, formatCount, plural } from '../../ui/format.ts';
import { useElementWidth } from '../../ui/use-element-width.ts';
import { maxOf } from '../../model/large-arrays.ts';

/** Shorter on short screens (a 1280×800 laptop), so the timeline and the token chart stay above the fold. */
const HEIGHT = typeof window !== 'undefined' && window.innerHeight < 900 ? 300 : 440;
type Weight = 'messages' | 'tokens';
type Positions = LayoutOutput['positions'];

// ---- layout in a worker ----------------------------------------------------------------------------------------
let worker: Worker | undefined;
let requestId = 0;
const pendingLayouts = new Map<number, { resolve: (o: LayoutOutput) => void; reject: (e: Error) => void }>();
const layouts = new WeakMap<object, Promise<LayoutOutput>>();

function layoutWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('../../workers/layout.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<{ id: number; output?: LayoutOutput; error?: string }>) => {
      const pending = pendingLayouts.get(event.data.id);
      pendingLayouts.delete(event.data.id);
      if (!pending) return;
      if (event.data.output) pending.resolve(event.data.output);
      else pending.reject(new Error(event.data.error ?? 'layout failed'));
    };
  }
  return worker;
}

function requestLayout(key: object, input: LayoutInput): Promise<LayoutOutput> {
  let promise = layouts.get(key);
  if (!promise) {
    promise = new Promise((resolve, reject) => {
      const id = ++requestId;
      pendingLayouts.set(id, { resolve, reject });
      layoutWorker().postMessage({ id, input });
    });
    layouts.set(key, promise);
  }
  return promise;
}

export function nodeRadius(node: GraphNode, maxActivity: number): number {
  const share = Math.sqrt(node.activity / Math.max(1, maxActivity));
  return node.kind === 'agent' ? 11 + 11 * share : 7 + 6 * share;
}

// ---- view ------------------------------------------------------------------------------------------------------

export function InteractionGraphView({ view }: { view: RunView }) {
  const { graph } = view;
  const [weight, setWeight] = useState<Weight>('messages');
  const [layout, setLayout] = useState<{ graph: object; positions: Positions } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const maxActivity = useMemo(() => maxOf(graph.nodes.map((n) => n.activity), 1), [graph]);
  useEffect(() => {
    let live = true;
    const input: LayoutInput = {
      nodes: graph.nodes.map((n) => ({ id: n.id, depth: n.depth, radius: nodeRadius(n, maxActivity) })),
      links: [
        ...graph.edges.map((e) => ({ source: e.source, target: e.target, weight: e.messages })),
        ...graph.hierarchy.map((h) => ({ source: h.manager, target: h.managed, weight: 1 })),
      ],
    };
    requestLayout(graph, input).then(
      // Back from the worker as a structured clone, which has a prototype again: keyed by agent names, so none.
      (out) => live && setLayout({ graph, positions: recordOf(out.positions) }),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [graph, maxActivity]);

  const [box, width] = useElementWidth<HTMLDivElement>();

  const svg = useRef<SVGSVGElement>(null);
  const content = useRef<SVGGElement>(null);
  const highlight = useRef<HighlightCanvas>({ canvas: null, zoom: { k: 1, x: 0, y: 0 }, draw: undefined });
  const zoomer = useRef<ZoomBehavior<SVGSVGElement, unknown> | undefined>(undefined);
  const legend = useRef<HTMLDivElement>(null);
  const laidOut = layout?.graph === graph ? layout.positions : undefined;
  // The legend's height (one line, or two in a narrow panel): the graph is fitted above it.
  const [legendHeight, setLegendHeight] = useState(0);
  useLayoutEffect(() => {
    const h = legend.current?.offsetHeight ?? 0;
    if (h !== legendHeight) setLegendHeight(h);
  }, [width, legendHeight]);
  const room = HEIGHT - (legendHeight > 0 ? legendHeight + LEGEND_GAP : 0);
  // Room for each node's name (a little more than placement reserves, so no name touches the panel's edge).
  const fitNodes = useMemo(() => graph.nodes.map((n) => ({ id: n.id, half: Math.max(40, nameHalfWidth(shortLabel(n.label)) + 4) })), [graph]);
  // Spread to the panel's shape (graph-fit.ts); by steps of 32 px of width, so a resize does not redraw at every pixel.
  const panel = Math.round(width / 32) * 32;
  const positions = useMemo(() => (laidOut && panel > 0 ? spreadToPanel(fitNodes, laidOut, panel, room) : laidOut), [laidOut, fitNodes, panel, room]);
  useEffect(() => {
    if (!svg.current) return;
    const behaviour = zoom<SVGSVGElement, unknown>()
      .scaleExtent([0.1, 8])
      .on('zoom', (event) => {
        content.current?.setAttribute('transform', event.transform.toString());
        const { k, x, y } = event.transform as { k: number; x: number; y: number };
        highlight.current.zoom = { k, x, y };
        highlight.current.draw?.();
      });
    zoomer.current = behaviour;
    select(svg.current).call(behaviour).on('dblclick.zoom', null);
    return () => {
      if (svg.current) select(svg.current).on('.zoom', null);
    };
  }, [positions !== undefined]);
  const fit = useCallback(() => {
    if (!svg.current || !zoomer.current || !positions || width === 0) return;
    // Room for each node's label, which is wider than the node (a long name would be cut at the panel's edge).
    const bounds = graphBounds(fitNodes, positions);
    if (!bounds) return;
    // The legend sits over the bottom of the panel: the graph is fitted above it, where it covered the names of the
    // nodes drawn lowest.
    const { scale, x, y } = fitTransform(bounds, width, room);
    select(svg.current).call(zoomer.current.transform, zoomIdentity.translate(x, y).scale(scale));
  }, [positions, width, fitNodes, room]);
  useEffect(fit, [fit]);

  const agents = graph.nodes.filter((n) => n.kind === 'agent').length;
  const tools = graph.nodes.filter((n) => n.kind === 'tool').length;
  const nodeTotals = `${plural(agents, 'agent')} · ${plural(tools, 'tool')} · ${formatCount(graph.nodes.filter((n) => n.kind === 'memory').length)} memory`;
  return (
    <section aria-label="Interaction graph" data-testid="graph-panel" className="rounded border border-slate-200 bg-white">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-2 py-1">
        <h2 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Interaction graph</h2>
        <span className="text-[11px] text-slate-500">{nodeTotals}</span>
        <div role="group" aria-label="Edge width" className="ml-auto flex shrink-0 overflow-hidden rounded border border-slate-300 text-xs">
          {(['messages', 'tokens'] as const).map((w) => (
            <button
              key={w}
              type="button"
              aria-pressed={weight === w}
              onClick={() => setWeight(w)}
              className={`px-2 py-0.5 ${weight === w ? 'bg-indigo-600 text-white' : 'bg-white text-slate-700 hover:bg-slate-50'}`}
            >
              width: {w}
            </button>
          ))}
        </div>
        <button type="button" onClick={fit} className="rounded border border-slate-300 px-2 py-0.5 text-xs hover:bg-slate-50">
          fit
        </button>
      </header>
      <div ref={box} className="relative [contain:strict]" style={{ height: HEIGHT }}>
        {!positions && <p className="absolute inset-0 flex items-center justify-center text-xs text-slate-500">{error ? `Layout failed: ${error}` : 'Laying out the graph…'}</p>}
        <svg ref={svg} data-testid="graph" width={width} height={HEIGHT} className="block cursor-grab select-none will-change-transform" role="img" aria-label="Agent interaction graph">
          <GraphDefs />
          <g ref={content}>{positions && <GraphBase view={view} positions={positions} weight={weight} maxActivity={maxActivity} />}</g>
        </svg>
        {/* The highlight is drawn on a canvas on top: a move redraws its pixels and changes no element's painted
            bounds, so it neither repaints the graph underneath nor makes Chromium layerize the page again (ADR 0021). */}
        {positions && <GraphHighlight view={view} positions={positions} weight={weight} maxActivity={maxActivity} canvas={highlight} width={width} />}
        <Legend ref={legend} />
      </div>
    </section>
  );
}

const EDGE_COLORS: Record<GraphEdge['kind'], string> = {
  message: '#64748b',
  delegation: '#4f46e5',
  report: '#0891b2',
  broadcast: '#7c3aed',
  tool: '#b45309',
  memory: '#047857',
  vote: '#db2777',
};

function GraphDefs() {
  return (
    <defs>
      {Object.entries(EDGE_COLORS).map(([kind, color]) => (
        <marker key={kind} id={`arrow-${kind}`} viewBox="0 0 10 10" refX="8" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto">
          <path d="M0,0 L10,5 L0,10 z" fill={color} />
        </marker>
      ))}
    </defs>
  );
}

interface LayerProps {
  view: RunView;
  positions: Positions;
  weight: Weight;
  maxActivity: number;
}

function edgeWidth(edge: GraphEdge, weight: Weight, max: { messages: number; tokens: number }): number {
  const value = weight === 'messages' ? edge.messages / max.messages : max.tokens > 0 ? edge.tokens / max.tokens : 0;
  return 1.2 + 7 * Math.sqrt(value);
}

/** Counts are written on the edges while they stay readable. */
const countsShown = (edges: number) => edges <= 40;

/** What an edge's count says: its messages (or tokens, by the width chosen), or a vote edge's votes. */
function edgeCountText(edge: GraphEdge, weight: Weight): string {
  return edge.kind === 'vote' ? `${compact(edge.messages)} vote${edge.messages === 1 ? '' : 's'}` : weight === 'messages' ? `×${compact(edge.messages)}` : compact(edge.tokens);
}

/** Where each node's name goes (graph-labels.ts placeNames), per layout: its baseline from the node's centre. */
const nameSpots = new WeakMap<Positions, Map<string, Map<string, number>>>();

function namePlacement(view: RunView, positions: Positions, maxActivity: number): Map<string, number> {
  let byActivity = nameSpots.get(positions);
  if (!byActivity) nameSpots.set(positions, (byActivity = new Map()));
  const key = String(maxActivity);
  let placed = byActivity.get(key);
  if (placed) return placed;
  const nodes = view.graph.nodes.filter((n) => positions[n.id]);
  const offsets = placeNames(
    nodes.map((n) => ({ at: positions[n.id], r: nodeRadius(n, maxActivity), name: shortLabel(n.label) })),
    NAME_BELOW,
  );
  placed = new Map(nodes.map((n, i) => [n.id, offsets[i]]));
  byActivity.set(key, placed);
  return placed;
}

/** Where the graph writes its edges' counts (graph-labels.ts), per layout and edge width: its base and its highlight read it. */
const placements = new WeakMap<Positions, Map<string, Map<string, [number, number]>>>();

function countPlacement(view: RunView, positions: Positions, weight: Weight, maxActivity: number): Map<string, [number, number]> {
  const { graph } = view;
  let byWidth = placements.get(positions);
  if (!byWidth) placements.set(positions, (byWidth = new Map()));
  const key = `${weight}:${maxActivity}`;
  let placed = byWidth.get(key);
  if (placed) return placed;
  placed = new Map();
  if (countsShown(graph.edges.length)) {
    const names = namePlacement(view, positions, maxActivity);
    const nodes = graph.nodes.flatMap((n) => (positions[n.id] ? [{ at: positions[n.id], r: nodeRadius(n, maxActivity), name: shortLabel(n.label), nameY: names.get(n.id)! }] : []));
    const edges = graph.edges.flatMap((e) =>
      positions[e.source] && positions[e.target]
        ? [{ id: e.id, from: positions[e.source], to: positions[e.target], vote: e.kind === 'vote', text: edgeCountText(e, weight), weight: weight === 'messages' || e.kind === 'vote' ? e.messages : e.tokens }]
        : [],
    );
    placed = placeCountLabels(edges, nodes);
  }
  byWidth.set(key, placed);
  return placed;
}

/** A curve from the rim of one node to the rim of the other (a quadratic Bézier); opposite edges bend to opposite sides. */
export function edgeCurve(a: [number, number], b: [number, number], ra: number, rb: number): { start: [number, number]; control: [number, number]; end: [number, number] } {
  const control = edgeControl(a, b);
  return { start: toward(a, control, ra + 2), control, end: toward(b, control, rb + 4) };
}

/** edgeCurve as SVG path data. */
function edgePath(a: [number, number], b: [number, number], ra: number, rb: number): string {
  const { start, control, end } = edgeCurve(a, b, ra, rb);
  return `M${start[0]},${start[1]} Q${control[0]},${control[1]} ${end[0]},${end[1]}`;
}

function toward(from: [number, number], to: [number, number], distance: number): [number, number] {
  const [dx, dy] = [to[0] - from[0], to[1] - from[1]];
  const length = Math.hypot(dx, dy) || 1;
  return [+(from[0] + (dx / length) * distance).toFixed(1), +(from[1] + (dy / length) * distance).toFixed(1)];
}

function useMaxima(view: RunView) {
  return useMemo(
    () => ({
      messages: maxOf(view.graph.edges.map((e) => e.messages), 1),
      tokens: maxOf(view.graph.edges.map((e) => e.tokens), 0),
    }),
    [view],
  );
}

const GraphBase = memo(function GraphBase({ view, positions, weight, maxActivity }: LayerProps) {
  const { graph } = view;
  const colors = agentColors(view);
  const max = useMaxima(view);
  const byId = useMemo(() => new Map(graph.nodes.map((n) => [n.id, n])), [graph]);
  const edgeIds = useMemo(() => new Set(graph.edges.map((e) => `${e.source}->${e.target}`)), [graph]);
  const radius = (id: string) => nodeRadius(byId.get(id)!, maxActivity);
  // Dense graphs (large teams) fade their edges so nodes and labels stay readable; the current step stays bright.
  const edgeOpacity = graph.edges.length > 60 ? 0.22 : 0.55;
  // The counts that fit (none on a graph too dense to write them on); the rest are in the edges' tooltips.
  const placed = countPlacement(view, positions, weight, maxActivity);
  const names = namePlacement(view, positions, maxActivity);
  return (
    <>
      <g aria-label="Manager hierarchy">
        {graph.hierarchy
          .filter((h) => !edgeIds.has(`${h.manager}->${h.managed}`) && positions[h.manager] && positions[h.managed])
          .map((h) => (
            <path
              key={`${h.manager}=>${h.managed}`}
              d={edgePath(positions[h.manager], positions[h.managed], radius(h.manager), radius(h.managed))}
              fill="none"
              stroke="#94a3b8"
              strokeWidth={1.5}
              strokeDasharray="5 4"
              data-hierarchy="true"
            >
              <title>{`${byId.get(h.manager)?.label} manages ${byId.get(h.managed)?.label}`}</title>
            </path>
          ))}
      </g>
      <g aria-label="Edges">
        {graph.edges.map((edge) => {
          const a = positions[edge.source];
          const b = positions[edge.target];
          if (!a || !b) return null;
          const d = edgePath(a, b, radius(edge.source), radius(edge.target));
          const w = edgeWidth(edge, weight, max);
          const managed = byId.get(edge.target)?.managerId === edge.source;
          return (
            <g key={edge.id} data-edge-id={edge.id} data-kind={edge.kind} data-loop={edge.inLoop ? 'true' : undefined}>
              {edge.inLoop && <path d={d} fill="none" stroke="#f59e0b" strokeWidth={w + 7} strokeDasharray="6 4" strokeOpacity={0.9} />}
              <path
                d={d}
                fill="none"
                stroke={EDGE_COLORS[edge.kind]}
                strokeOpacity={edgeOpacity}
                strokeWidth={w}
                strokeDasharray={edge.kind === 'vote' ? '2 3' : managed && edge.kind !== 'delegation' ? '5 4' : undefined}
                markerEnd={`url(#arrow-${edge.kind})`}
              >
                <title>{`${byId.get(edge.source)?.label} → ${byId.get(edge.target)?.label} (${edge.kind}): ${formatCount(edge.messages)} ${
                  edge.kind === 'tool' || edge.kind === 'memory' ? 'calls' : edge.kind === 'vote' ? 'votes on polls it proposed' : 'messages'
                }, ${formatCount(Math.round(edge.tokens))} tokens${edge.inLoop ? ' · part of a loop (repeated identical calls)' : ''}`}</title>
              </path>
              {placed.has(edge.id) && (
                <text
                  x={placed.get(edge.id)![0]}
                  y={placed.get(edge.id)![1]}
                  dy="0.35em"
                  textAnchor="middle"
                  fontSize={9}
                  fill={EDGE_COLORS[edge.kind]}
                  stroke="#fff"
                  strokeWidth={3}
                  paintOrder="stroke"
                  pointerEvents="none"
                >
                  {edgeCountText(edge, weight)}
                </text>
              )}
            </g>
          );
        })}
      </g>
      <PrunedEdges view={view} positions={positions} radius={radius} />
      <g aria-label="Nodes">
        {graph.nodes.map((node) => {
          const p = positions[node.id];
          if (!p) return null;
          const r = nodeRadius(node, maxActivity);
          return <NodeShape key={node.id} node={node} at={p} r={r} nameY={names.get(node.id) ?? r + NAME_BELOW} color={node.agentId ? (colors.get(node.agentId) ?? '#64748b') : undefined} />;
        })}
      </g>
    </>
  );
});

function NodeShape({ node, at, r, nameY, color }: { node: GraphNode; at: [number, number]; r: number; nameY: number; color?: string }) {
  const label = shortLabel(node.label);
  const title = `${node.label} (${node.kind}) · ${formatCount(node.activity)} ${node.kind === 'agent' ? 'steps' : 'calls'}${
    node.kind === 'agent' ? ` · ${formatCount(node.tokens)} tokens` : ''
  }${node.inLoop ? ' · repeats identical calls (loop)' : ''}`;
  return (
    <g transform={`translate(${at[0]},${at[1]})`} data-node-id={node.id} data-kind={node.kind} data-loop={node.inLoop ? 'true' : undefined}>
      <title>{title}</title>
      {node.inLoop && <circle r={r + 7} fill="none" stroke="#f59e0b" strokeWidth={3} strokeDasharray="5 3" />}
      {node.kind === 'agent' && <circle r={r} fill={color} stroke="#fff" strokeWidth={2} />}
      {node.kind === 'tool' && <rect x={-r} y={-r} width={2 * r} height={2 * r} rx={3} fill="#fef3c7" stroke="#b45309" strokeWidth={1.5} />}
      {node.kind === 'memory' && <MemoryShape r={r} />}
      {node.kind === 'agent' && node.activity > 0 && (
        <text textAnchor="middle" dy="0.35em" fontSize={9} fill="#fff" fontWeight={600} pointerEvents="none">
          {compact(node.activity)}
        </text>
      )}
      <text
        y={nameY}
        textAnchor="middle"
        fontSize={11}
        fill={node.kind === 'agent' ? '#0f172a' : '#57534e'}
        fontWeight={node.kind === 'agent' ? 600 : 400}
        stroke="#fff"
        strokeWidth={3}
        paintOrder="stroke"
        pointerEvents="none"
      >
        {label}
      </text>
    </g>
  );
}

/** A cylinder, the usual picture of a store. */
function MemoryShape({ r }: { r: number }) {
  const rx = r;
  const ry = r * 0.35;
  const h = r * 1.6;
  return (
    <g transform={`translate(0,${-h / 2})`}>
      <path d={`M${-rx},0 v${h} a${rx},${ry} 0 0,0 ${2 * rx},0 v${-h}`} fill="#d1fae5" stroke="#047857" strokeWidth={1.5} />
      <ellipse cx={0} cy={0} rx={rx} ry={ry} fill="#a7f3d0" stroke="#047857" strokeWidth={1.5} />
    </g>
  );
}

/** Edges that carried messages the rectifier pruned: a dashed red overlay with the count, so pruning is visible at a glance. */
function PrunedEdges({ view, positions, radius }: { view: RunView; positions: Record<string, [number, number]>; radius: (id: string) => number }) {
  const marks = rectifierMarks(view);
  const counts = useMemo(() => {
    const c = new Map<number, number>();
    for (const p of marks.pruned) for (const e of view.graph.edgesAt[p] ?? []) c.set(e, (c.get(e) ?? 0) + 1);
    return c;
  }, [marks, view]);
  if (counts.size === 0) return null;
  return (
    <g aria-label="Pruned messages" data-testid="graph-pruned">
      {[...counts].map(([e, n]) => {
        const edge = view.graph.edges[e];
        const a = positions[edge.source];
        const b = positions[edge.target];
        if (!a || !b) return null;
        const d = edgePath(a, b, radius(edge.source), radius(edge.target));
        const [mx, my] = edgeMidpoint(a, b);
        return (
          <g key={edge.id} data-testid="graph-pruned-edge" data-edge-id={edge.id} data-pruned={n}>
            <path d={d} fill="none" stroke="#dc2626" strokeWidth={2.5} strokeDasharray="3 4" strokeOpacity={marks.fallback ? 0.35 : 0.9}>
              <title>{`${n} message${n === 1 ? '' : 's'} on this edge ${marks.fallback ? 'rejected by the rectifier (restored by the global fallback)' : 'pruned by the rectifier'}`}</title>
            </path>
            <text x={mx} y={my - 12} textAnchor="middle" fontSize={10} fontWeight={600} fill="#dc2626" stroke="#fff" strokeWidth={3} paintOrder="stroke" pointerEvents="none">
              {`✕${n} pruned`}
            </text>
          </g>
        );
      })}
    </g>
  );
}

const CURRENT = '#e11d48';
const CURRENT_PRUNED = '#94a3b8';

function pixelRatio(): number {
  return typeof window !== 'undefined' ? window.devicePixelRatio || 1 : 1;
}

/** The highlight's canvas, the graph's zoom (kept by the zoom handler) and the highlight's current drawing. */
interface HighlightCanvas {
  canvas: HTMLCanvasElement | null;
  /** The page's font family on the canvas element (read when it is attached: a read per move could force a style pass). */
  family?: string;
  zoom: { k: number; x: number; y: number };
  draw: (() => void) | undefined;
  /**
   * Where the highlight is drawn before it is copied onto the canvas: an OffscreenCanvas belongs to no document, so
   * its font and text calls never make Chromium bring the page's style up to date in the key's task (on the page's
   * canvas they did: the key's task was 0.3–0.6 ms longer, ADR 0053).
   */
  offscreen?: OffscreenCanvas;
}

/** A 2D context drawHighlight can draw on: the page's canvas or an offscreen one. */
type Context2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/**
 * Draws the highlight on the state's offscreen canvas (made or resized to the page canvas's size), then copies it onto
 * the page's canvas: a copy of pixels needs no font, so nothing in the move asks for the page's style before its frame.
 * Where there is no OffscreenCanvas, draws on the page's canvas itself.
 */
function drawThroughOffscreen(state: HighlightCanvas, draw: (ctx: Context2D) => void) {
  const target = state.canvas?.getContext('2d');
  if (!target) return;
  const { width, height } = target.canvas;
  if (typeof OffscreenCanvas === 'undefined') return draw(target);
  if (!state.offscreen || state.offscreen.width !== width || state.offscreen.height !== height) state.offscreen = new OffscreenCanvas(width, height);
  const ctx = state.offscreen.getContext('2d');
  if (!ctx) return draw(target);
  draw(ctx);
  target.setTransform(1, 0, 0, 1, 0, 0);
  target.clearRect(0, 0, width, height);
  target.drawImage(state.offscreen, 0, 0);
}

/** What the highlight draws for a step, in the graph's coordinates (before zoom). */
export interface HighlightShape {
  /**
   * `count`: the edge's count as the graph writes it (at its middle, centred), drawn again above the highlight, which
   * would otherwise cover it (the 1M-span OTLP run's "×250k" on its current edge read "×_50k").
   */
  edges: { start: [number, number]; control: [number, number]; end: [number, number]; width: number; count?: { text: string; at: [number, number]; color: string } }[];
  ring?: { at: [number, number]; r: number };
  /** The names of the nodes the highlight touches, drawn again above it (its curves cross the name below a node). */
  names?: { text: string; at: [number, number]; agent: boolean }[];
  pruned: boolean;
}

/**
 * Draws the current step's highlight: its edges as curves ending in an arrowhead (the old SVG marker: a triangle
 * 11 units long whose point sits 2.2 units past the curve's end, turned along the curve's last tangent) and its
 * agent ringed, under the graph's zoom.
 */
export function drawHighlight(
  ctx: Context2D,
  shape: HighlightShape,
  zoom: HighlightCanvas['zoom'],
  ratio: number,
  size: { width: number; height: number },
  /** The font family the graph's text is drawn in (the page's, read once from the canvas element). */
  family = 'sans-serif',
) {
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, size.width * ratio, size.height * ratio);
  ctx.setTransform(ratio * zoom.k, 0, 0, ratio * zoom.k, ratio * zoom.x, ratio * zoom.y);
  const color = shape.pruned ? CURRENT_PRUNED : CURRENT;
  ctx.lineCap = 'butt';
  for (const e of shape.edges) {
    ctx.beginPath();
    ctx.moveTo(e.start[0], e.start[1]);
    ctx.quadraticCurveTo(e.control[0], e.control[1], e.end[0], e.end[1]);
    ctx.strokeStyle = color;
    ctx.lineWidth = e.width;
    ctx.setLineDash(shape.pruned ? [4, 4] : []);
    ctx.stroke();
    ctx.setLineDash([]);
    const angle = Math.atan2(e.end[1] - e.control[1], e.end[0] - e.control[0]);
    const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
    const [ex, ey] = e.end;
    ctx.beginPath();
    ctx.moveTo(ex + (-8 * cos + 5 * sin) * 1.1, ey + (-8 * sin - 5 * cos) * 1.1);
    ctx.lineTo(ex + 2 * cos * 1.1, ey + 2 * sin * 1.1);
    ctx.lineTo(ex + (-8 * cos - 5 * sin) * 1.1, ey + (-8 * sin + 5 * cos) * 1.1);
    ctx.closePath();
    ctx.fillStyle = CURRENT;
    ctx.fill();
  }
  if (shape.ring) {
    ctx.beginPath();
    ctx.arc(shape.ring.at[0], shape.ring.at[1], shape.ring.r, 0, 2 * Math.PI);
    ctx.strokeStyle = CURRENT;
    ctx.lineWidth = 3;
    ctx.stroke();
  }
  // The counts last, over the curves, as the graph draws them: 9 px, in the edge's colour, outlined in white.
  ctx.font = `9px ${family}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineJoin = 'round';
  for (const e of shape.edges) {
    if (!e.count) continue;
    const [x, y] = e.count.at;
    ctx.lineWidth = 3;
    ctx.strokeStyle = '#fff';
    ctx.strokeText(e.count.text, x, y);
    ctx.fillStyle = e.count.color;
    ctx.fillText(e.count.text, x, y);
  }
  // The names as NodeShape writes them: 11 px, an agent's bold and darker, outlined in white, on their baseline.
  ctx.textBaseline = 'alphabetic';
  for (const name of shape.names ?? []) {
    ctx.font = `${name.agent ? '600 ' : ''}11px ${family}`;
    ctx.lineWidth = 3;
    ctx.strokeStyle = '#fff';
    ctx.strokeText(name.text, name.at[0], name.at[1]);
    ctx.fillStyle = name.agent ? '#0f172a' : '#57534e';
    ctx.fillText(name.text, name.at[0], name.at[1]);
  }
}

/** A node's name: its baseline this far below the node's rim. */
const NAME_BELOW = 12;

/**
 * The current step: its agent ringed, the edges it sends on drawn over the rest, on a canvas above the graph. The
 * canvas also holds what the step lights up as attributes (for tests and tools): changing them paints nothing.
 */
function GraphHighlight({ view, positions, weight, maxActivity, canvas, width }: LayerProps & { canvas: RefObject<HighlightCanvas>; width: number }) {
  const position = usePlayhead((s) => s.position);
  const { graph } = view;
  const max = useMaxima(view);
  const nodeIndex = graph.nodeAt[position];
  const node = nodeIndex >= 0 ? graph.nodes[nodeIndex] : undefined;
  const edges = graph.edgesAt[position] ?? [];
  const at = node ? positions[node.id] : undefined;
  const marks = rectifierMarks(view);
  const pruned = marks.pruned.has(position) && !marks.fallback;
  const byId = useMemo(() => new Map(graph.nodes.map((n) => [n.id, n])), [graph]);
  const labelled = countsShown(graph.edges.length);
  const placed = countPlacement(view, positions, weight, maxActivity);
  const shape: HighlightShape = { edges: [], pruned };
  for (const e of edges) {
    const edge = graph.edges[e];
    const a = positions[edge.source];
    const b = positions[edge.target];
    if (!a || !b) continue;
    const curve = edgeCurve(a, b, nodeRadius(byId.get(edge.source)!, maxActivity), nodeRadius(byId.get(edge.target)!, maxActivity));
    // Written where the graph writes a count (a vote's a line lower), whether or not the graph had room for it.
    const count = labelled ? { text: edgeCountText(edge, weight), at: placed.get(edge.id) ?? countCentre(a, b, edge.kind === 'vote'), color: EDGE_COLORS[edge.kind] } : undefined;
    shape.edges.push({ ...curve, width: Math.max(2.5, edgeWidth(edge, weight, max)), count });
  }
  if (node && at) shape.ring = { at, r: nodeRadius(node, maxActivity) + 4 };
  // Every node the highlight touches (the ringed agent, the ends of its edges) has its name written again above it.
  const touched = new Set<GraphNode>(node ? [node] : []);
  for (const e of edges) for (const id of [graph.edges[e].source, graph.edges[e].target]) {
    const n = byId.get(id);
    if (n) touched.add(n);
  }
  shape.names = [];
  const names = namePlacement(view, positions, maxActivity);
  for (const n of touched) {
    const p = positions[n.id];
    if (p) shape.names.push({ text: shortLabel(n.label), at: [p[0], p[1] + (names.get(n.id) ?? nodeRadius(n, maxActivity) + NAME_BELOW)], agent: n.kind === 'agent' });
  }
  // Drawn in a layout effect, in the key's own task: the frame that shows the move shows the highlight too.
  useLayoutEffect(() => {
    const state = canvas.current;
    state.draw = () => drawThroughOffscreen(state, (ctx) => drawHighlight(ctx, shape, state.zoom, pixelRatio(), { width, height: HEIGHT }, state.family));
    state.draw();
  });
  const attach = useCallback((el: HTMLCanvasElement | null) => {
    canvas.current.canvas = el;
    if (el) canvas.current.family = getComputedStyle(el).fontFamily || undefined;
  }, [canvas]);
  const ratio = pixelRatio();
  return (
    <canvas
      ref={attach}
      data-testid="graph-current"
      data-current="true"
      data-node-id={node?.id}
      data-agent-id={node?.agentId}
      data-edge-ids={edges.map((e) => graph.edges[e].id).join(' ')}
      data-pruned={pruned ? 'true' : undefined}
      width={Math.round(width * ratio)}
      height={Math.round(HEIGHT * ratio)}
      style={{ width, height: HEIGHT }}
      className="pointer-events-none absolute inset-0"
      aria-hidden
    />
  );
}

/** Under the legend: its offset from the panel's bottom (`bottom-1`) and a little air. */
const LEGEND_GAP = 8;

function Legend({ ref }: { ref: RefObject<HTMLDivElement | null> }) {
  return (
    <div ref={ref} data-testid="graph-legend" className="pointer-events-none absolute bottom-1 left-2 flex flex-wrap items-center gap-x-3 gap-y-0.5 rounded bg-white/85 px-1.5 py-0.5 text-[10px] text-slate-600">
      <span className="flex items-center gap-1">
        <svg width="10" height="10" aria-hidden>
          <circle cx="5" cy="5" r="4.5" fill="#4e79a7" />
        </svg>
        agent
      </span>
      <span className="flex items-center gap-1">
        <svg width="10" height="10" aria-hidden>
          <rect x="0.5" y="0.5" width="9" height="9" rx="2" fill="#fef3c7" stroke="#b45309" />
        </svg>
        tool
      </span>
      <span className="flex items-center gap-1">
        <svg width="10" height="12" aria-hidden>
          <path d="M1,3 v6 a4,1.5 0 0,0 8,0 v-6" fill="#d1fae5" stroke="#047857" />
          <ellipse cx="5" cy="3" rx="4" ry="1.5" fill="#a7f3d0" stroke="#047857" />
        </svg>
        memory
      </span>
      <span className="flex items-center gap-1">
        <svg width="18" height="6" aria-hidden>
          <line x1="0" y1="3" x2="18" y2="3" stroke="#94a3b8" strokeWidth="1.5" strokeDasharray="4 3" />
        </svg>
        manages
      </span>
      <span className="flex items-center gap-1">
        <svg width="18" height="8" aria-hidden>
          <line x1="0" y1="4" x2="18" y2="4" stroke="#f59e0b" strokeWidth="5" strokeDasharray="5 3" />
        </svg>
        loop (repeated identical calls)
      </span>
      <span className="flex items-center gap-1">
        <svg width="18" height="6" aria-hidden>
          <line x1="0" y1="3" x2="18" y2="3" stroke="#e11d48" strokeWidth="2.5" />
        </svg>
        current step
      </span>
    </div>
  );
}

/** Node labels longer than this are cut with an ellipsis (the full name is in the node's tooltip). */
const LABEL_CHARS = 22;

function shortLabel(label: string): string {
  return label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label;
}
