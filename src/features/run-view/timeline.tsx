// Per-agent swimlanes (managed agents nested under their manager, agent runs as bands), an annotations lane and an
// interventions lane, drawn on a canvas: only blocks inside the visible window are drawn, at most one per pixel
// column and lane, so 100k steps stay cheap. The playhead and the current block are shapes in a fixed-size SVG over it
// (no DOM element moves or resizes on a step: see playhead-layer.tsx).
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { usePlayhead } from '../../store/playhead.ts';
import { agentColors } from '../../ui/agent-colors.ts';
import type { RunView } from './run-view-model.ts';
import { formatDuration, formatCount } from '../../ui/format.ts';
import { compact } from '../../ui/format.ts';
import { initialTimelineMode, LANE_CHUNK, nearestMarker, stepAt, timelineGeometry, type TimelineGeometry, type TimelineMode } from './timeline-geometry.ts';
import { useElementWidth } from '../../ui/use-element-width.ts';
import { PlayheadLayer } from './playhead-layer.tsx';

const LANE_H = 22;
const MARK_LANE_H = 18;
const AXIS_H = 18;
const LABEL_W = 150;

type Window = [number, number];

export function Timeline({ view }: { view: RunView }) {
  const [mode, setMode] = useState<TimelineMode>(() => initialTimelineMode(view));
  const geometry = timelineGeometry(view, mode);
  const [win, setWin] = useState<Window>(geometry.domain);
  useEffect(() => setWin(geometry.domain), [geometry]);
  const [area, width] = useElementWidth<HTMLDivElement>();
  const height = view.lanes.length * LANE_H + 2 * MARK_LANE_H + AXIS_H;
  const modes: { id: TimelineMode; label: string; disabled: boolean; title: string }[] = [
    { id: 'time', label: 'time', disabled: !view.time.hasTime, title: view.time.hasTime ? 'Blocks as long as the step took' : 'This run has no timing for every step' },
    { id: 'tokens', label: 'tokens', disabled: view.tokens.cumulative[view.steps.length - 1] <= 0, title: 'Blocks as wide as the step’s tokens' },
    { id: 'order', label: 'order', disabled: false, title: 'One unit per step' },
  ];
  return (
    <section aria-label="Timeline" data-testid="timeline-panel" className="rounded border border-slate-200 bg-white">
      <header className="flex items-center gap-2 border-b border-slate-200 px-2 py-1">
        <h2 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Timeline</h2>
        <div role="group" aria-label="Block size" className="flex shrink-0 overflow-hidden rounded border border-slate-300 text-xs">
          {modes.map((m) => (
            <button
              key={m.id}
              type="button"
              disabled={m.disabled}
              title={m.title}
              aria-pressed={mode === m.id}
              onClick={() => setMode(m.id)}
              className={`px-2 py-0.5 disabled:opacity-40 ${mode === m.id ? 'bg-indigo-600 text-white' : 'bg-white text-slate-700 hover:bg-slate-50'}`}
            >
              {m.label}
            </button>
          ))}
        </div>
        <p className="ml-auto min-w-0 truncate text-[11px] whitespace-nowrap text-slate-400" title="wheel: zoom · drag: pan · double-click: fit">
          wheel: zoom · drag: pan · double-click: fit
        </p>
      </header>
      <div className="max-h-[22rem] overflow-y-auto [@media(max-height:900px)]:max-h-[9rem]">
        <div className="relative flex" style={{ height }}>
          <LaneLabels view={view} />
          <div ref={area} className="relative min-w-0 flex-1 [contain:content]">
            {width > 0 && (
              <>
                <TimelineCanvas view={view} geometry={geometry} win={win} setWin={setWin} width={width} height={height} />
                <TimelinePlayhead view={view} geometry={geometry} win={win} setWin={setWin} width={width} height={height} />
              </>
            )}
          </div>
        </div>
      </div>
    </section>
  );
}

const LaneLabels = memo(function LaneLabels({ view }: { view: RunView }) {
  const colors = agentColors(view);
  return (
    <div className="shrink-0 border-r border-slate-200 text-[11px]" style={{ width: LABEL_W }}>
      {view.lanes.map((lane) => (
        <div key={lane.agentId} className="flex items-center gap-1 truncate pr-1" style={{ height: LANE_H, paddingLeft: 6 + lane.depth * 12 }} title={lane.name}>
          {lane.depth > 0 && <span className="text-slate-300">└</span>}
          <span className="h-2.5 w-2.5 shrink-0 rounded-sm" style={{ background: colors.get(lane.agentId) }} />
          <span className="truncate text-slate-800">{lane.name}</span>
        </div>
      ))}
      <div className="flex items-center truncate border-t border-slate-200 pl-1.5 text-violet-800" style={{ height: MARK_LANE_H }}>
        annotations ({view.annotationPositions.length})
      </div>
      <div className="flex items-center truncate pl-1.5 text-emerald-800" style={{ height: MARK_LANE_H }}>
        interventions ({view.interventionPositions.length})
      </div>
    </div>
  );
});

interface CanvasProps {
  view: RunView;
  geometry: TimelineGeometry;
  win: Window;
  setWin: (w: Window) => void;
  width: number;
  height: number;
}

const TimelineCanvas = memo(function TimelineCanvas({ view, geometry, win, setWin, width, height }: CanvasProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const moveTo = usePlayhead((s) => s.moveTo);
  const [hover, setHover] = useState<{ x: number; y: number; position: number } | undefined>();
  const colors = useMemo(() => {
    const byAgent = agentColors(view);
    return view.lanes.map((l) => byAgent.get(l.agentId) ?? '#64748b');
  }, [view]);

  useEffect(() => {
    const el = canvas.current;
    const ctx = el?.getContext('2d');
    if (!el || !ctx) return;
    const dpr = window.devicePixelRatio || 1;
    el.width = Math.round(width * dpr);
    el.height = Math.round(height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawTimeline(ctx, view, geometry, win, width, colors);
  }, [view, geometry, win, width, height, colors]);

  const toDomain = (px: number) => win[0] + (px / width) * (win[1] - win[0]);
  const hitTest = (px: number, py: number): number | undefined => {
    const x = toDomain(px);
    const tolerance = (4 / width) * (win[1] - win[0]);
    const lane = Math.floor(py / LANE_H);
    if (lane < view.lanes.length) return stepAt(geometry, lane, x, tolerance);
    const markLane = Math.floor((py - view.lanes.length * LANE_H) / MARK_LANE_H);
    if (markLane === 0) return nearestMarker(geometry, view.annotationPositions, x, tolerance * 2);
    if (markLane === 1) return nearestMarker(geometry, view.interventionPositions, x, tolerance * 2);
    return undefined;
  };

  const drag = useRef<{ startX: number; win: Window; moved: boolean } | undefined>(undefined);
  const onWheel = (e: React.WheelEvent) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const at = toDomain(e.clientX - rect.left);
    const factor = e.deltaY > 0 ? 1.25 : 0.8;
    setWin(clampWindow([at - (at - win[0]) * factor, at + (win[1] - at) * factor], geometry.domain));
  };
  return (
    <>
      <canvas
        ref={canvas}
        data-testid="timeline-canvas"
        style={{ width, height, display: 'block', cursor: drag.current?.moved ? 'grabbing' : 'pointer' }}
        onWheel={onWheel}
        onDoubleClick={() => setWin(geometry.domain)}
        onMouseDown={(e) => {
          drag.current = { startX: e.clientX, win, moved: false };
        }}
        onMouseMove={(e) => {
          const rect = e.currentTarget.getBoundingClientRect();
          const d = drag.current;
          if (d && (e.buttons & 1) === 1 && Math.abs(e.clientX - d.startX) > 3) {
            d.moved = true;
            const shift = ((d.startX - e.clientX) / width) * (d.win[1] - d.win[0]);
            setWin(clampWindow([d.win[0] + shift, d.win[1] + shift], geometry.domain));
            setHover(undefined);
            return;
          }
          const position = hitTest(e.clientX - rect.left, e.clientY - rect.top);
          setHover(position === undefined ? undefined : { x: e.clientX - rect.left, y: e.clientY - rect.top, position });
        }}
        onMouseLeave={() => setHover(undefined)}
        onMouseUp={(e) => {
          const d = drag.current;
          drag.current = undefined;
          if (d?.moved) return;
          const rect = e.currentTarget.getBoundingClientRect();
          const position = hitTest(e.clientX - rect.left, e.clientY - rect.top);
          if (position !== undefined) moveTo(position);
        }}
      />
      {hover && <BlockTooltip view={view} hover={hover} width={width} />}
    </>
  );
});

function BlockTooltip({ view, hover, width }: { view: RunView; hover: { x: number; y: number; position: number }; width: number }) {
  const step = view.steps[hover.position];
  const tokens = view.tokens.input[hover.position] + view.tokens.output[hover.position];
  const duration = view.time.hasTime ? view.time.end[hover.position] - view.time.start[hover.position] : undefined;
  return (
    <div
      className="pointer-events-none absolute z-10 max-w-xs rounded bg-slate-900 px-2 py-1 text-[11px] text-white shadow"
      style={{ left: Math.min(hover.x + 12, width - 220), top: hover.y + 12 }}
    >
      <p className="font-semibold">
        #{hover.position + 1} {view.index.agentById.get(step.agentId)?.name ?? step.agentId} · {step.kind}
        {step.name ? ` · ${step.name}` : ''}
      </p>
      <p>
        {formatCount(tokens)} tokens{duration !== undefined ? ` · ${formatDuration(duration)}` : ''}
        {view.errorAt[hover.position] ? ' · error' : ''}
        {view.loopAt[hover.position] >= 0 ? ' · repeated call' : ''}
      </p>
    </div>
  );
}

function clampWindow([a, b]: Window, [d0, d1]: Window): Window {
  const span = Math.min(d1 - d0, Math.max(b - a, (d1 - d0) / 1e6, 1e-9));
  let lo = Math.max(d0, a);
  if (lo + span > d1) lo = d1 - span;
  return [lo, lo + span];
}

/** Exported for its test (timeline.test.ts). */
export function drawTimeline(ctx: CanvasRenderingContext2D, view: RunView, g: TimelineGeometry, win: Window, width: number, colors: string[]) {
  const lanesH = view.lanes.length * LANE_H;
  const totalH = lanesH + 2 * MARK_LANE_H + AXIS_H;
  ctx.clearRect(0, 0, width, totalH);
  const scale = width / (win[1] - win[0]);
  const px = (x: number) => (x - win[0]) * scale;
  for (let l = 0; l < view.lanes.length; l++) {
    ctx.fillStyle = l % 2 === 0 ? '#f8fafc' : '#ffffff';
    ctx.fillRect(0, l * LANE_H, width, LANE_H);
  }
  // Agent runs: a thin bracket under the lane's blocks, alternating shade per run.
  view.bands.forEach((band, i) => {
    const a = px(g.x0[band.first]);
    const b = px(g.x1[band.last]);
    if (b < 0 || a > width) return;
    ctx.fillStyle = i % 2 === 0 ? '#c7d2fe' : '#a5b4fc';
    ctx.fillRect(Math.max(0, a), band.lane * LANE_H + LANE_H - 4, Math.max(1, Math.min(width, b) - Math.max(0, a)), 2);
  });
  const { x0, x1 } = g;
  const lastPx = new Float64Array(view.lanes.length).fill(-Infinity);
  const errors: number[] = [];
  const loops: number[] = [];
  // A loop mark is at least 2 px wide and an error marker 6 px: marks narrower than that whose left pixel column in
  // their lane is drawn already add nothing (at 1M steps in a loop, a million fillRect calls were a 0.7 s task).
  const lastLoopPx = new Float64Array(view.lanes.length).fill(-Infinity);
  const lastErrorPx = new Float64Array(view.lanes.length).fill(-Infinity);
  // The blocks' colour, set only when it changes: a canvas parses each colour string set (~5,600 blocks at 1M steps).
  let blockColor: string | undefined;
  /** A visible step (from `a` to `b` px): its error marker, loop mark and block unless their pixel column is drawn. */
  const step = (p: number, lane: number, a: number, b: number) => {
    if (view.errorAt[p]) {
      const at = Math.floor(a);
      if (b - a >= 4 || at > lastErrorPx[lane]) {
        lastErrorPx[lane] = at;
        errors.push(p);
      }
    }
    if (view.loopAt[p] >= 0) {
      const at = Math.floor(a);
      if (b - a > 3 || at > lastLoopPx[lane]) {
        lastLoopPx[lane] = at;
        loops.push(p);
      }
    }
    const left = Math.floor(Math.max(0, a));
    const w = Math.max(1, b - a - (b - a > 3 ? 1 : 0));
    if (w <= 1 && left <= lastPx[lane]) return; // this pixel column of the lane is already drawn
    lastPx[lane] = left;
    if (blockColor !== colors[lane]) ctx.fillStyle = blockColor = colors[lane];
    ctx.fillRect(a, lane * LANE_H + 4, w, LANE_H - 10);
  };
  const chunks = g.chunks;
  if (chunks && chunks.length === view.lanes.length) {
    // Lane by lane (lanes do not overlap: the same pixels as in replay order), passing over the steps that could not
    // draw: where a lane's blocks start in order and are under half a pixel, a pixel column at a time (the first step
    // starting in the next column is searched for), else a chunk at a time (see skipsChunk).
    for (let lane = 0; lane < chunks.length; lane++) {
      const positions = g.byLane[lane];
      const { sorted, width: widest, end, flags, anyFlags } = chunks[lane];
      const narrow = chunks[lane].widest * scale <= 0.5;
      // Blocks under half a pixel starting before −1 px end before 0: not drawn.
      let i = sorted && narrow ? firstAtLeast(x0, positions, win[0], scale, 0, positions.length, -1, 1) : 0;
      let stride = 1;
      let searchedTo = i;
      while (i < positions.length) {
        const drawn = lastPx[lane];
        if (sorted && drawn >= 0 && i >= searchedTo && px(x0[positions[i]]) < drawn + 1) {
          // The steps from i on that start in the column drawn last, or left of it, draw nothing if every one is under
          // half a pixel and their error markers and loop marks are drawn there too: checked for the lane, else for
          // the chunks they are in.
          const j = firstAtLeast(x0, positions, win[0], scale, i, positions.length, drawn + 1, stride);
          // The flags whose marks are drawn in that column already.
          const drawnFlags = (lastErrorPx[lane] >= drawn ? 1 : 0) | (lastLoopPx[lane] >= drawn ? 2 : 0);
          let ok = narrow && (anyFlags & ~drawnFlags) === 0;
          if (!ok) {
            ok = true;
            for (let c = (i / LANE_CHUNK) | 0, last = ((j - 1) / LANE_CHUNK) | 0; ok && c <= last; c++) ok = widest[c] * scale <= 0.5 && (flags[c] & ~drawnFlags) === 0;
          }
          searchedTo = j;
          if (ok) {
            stride = j - i;
            i = j;
            continue;
          }
        }
        if (i % LANE_CHUNK === 0) {
          const c = i / LANE_CHUNK;
          // Every block of the chunk ends left of the window (px is monotonic).
          if (px(end[c]) < 0) {
            i += LANE_CHUNK;
            continue;
          }
          if (sorted && skipsChunk(widest[c] * scale, px(x0[positions[Math.min(positions.length, i + LANE_CHUNK) - 1]]), flags[c], lastPx[lane], lastErrorPx[lane], lastLoopPx[lane])) {
            i += LANE_CHUNK;
            continue;
          }
        }
        const p = positions[i++];
        const a = px(x0[p]);
        const b = px(x1[p]);
        if (a > width) {
          if (sorted) break; // every later block of the lane starts further right
          continue;
        }
        if (b < 0) continue;
        step(p, lane, a, b);
      }
    }
  } else {
    for (let p = 0; p < x0.length; p++) {
      const a = px(x0[p]);
      const b = px(x1[p]);
      if (b < 0 || a > width) continue;
      step(p, view.laneAt[p], a, b);
    }
  }
  ctx.fillStyle = '#f59e0b';
  for (const p of loops) ctx.fillRect(px(x0[p]), view.laneAt[p] * LANE_H + LANE_H - 6, Math.max(2, px(x1[p]) - px(x0[p]) - 1), 3);
  ctx.fillStyle = '#dc2626';
  ctx.strokeStyle = '#dc2626';
  for (const p of errors) {
    const a = px(x0[p]);
    const y = view.laneAt[p] * LANE_H;
    // Outline blocks wide enough to show it; on dense views the marker alone says "error".
    if (px(x1[p]) - a >= 4) ctx.strokeRect(a - 0.5, y + 3.5, px(x1[p]) - a, LANE_H - 9);
    ctx.beginPath();
    ctx.moveTo(a - 3, y);
    ctx.lineTo(a + 3, y);
    ctx.lineTo(a, y + 5);
    ctx.fill();
  }
  // Marker lanes.
  ctx.fillStyle = '#f1f5f9';
  ctx.fillRect(0, lanesH, width, 2 * MARK_LANE_H);
  const marks = (positions: Int32Array, y: number, color: string) => {
    ctx.fillStyle = color;
    let last = -Infinity;
    for (const p of positions) {
      const c = px((x0[p] + x1[p]) / 2);
      if (c < -4 || c > width + 4 || c - last < 1) continue;
      last = c;
      ctx.beginPath();
      ctx.moveTo(c, y + 3);
      ctx.lineTo(c + 5, y + MARK_LANE_H / 2);
      ctx.lineTo(c, y + MARK_LANE_H - 3);
      ctx.lineTo(c - 5, y + MARK_LANE_H / 2);
      ctx.fill();
    }
  };
  marks(view.annotationPositions, lanesH, '#7c3aed');
  marks(view.interventionPositions, lanesH + MARK_LANE_H, '#059669');
  if (view.interventionPositions.length === 0) {
    ctx.fillStyle = '#94a3b8';
    ctx.font = '10px system-ui, sans-serif';
    ctx.fillText('no interventions on this run yet (engines add them)', 6, lanesH + MARK_LANE_H + 12);
  }
  drawAxis(ctx, g.mode, win, width, lanesH + 2 * MARK_LANE_H);
}

/**
 * The first i in [from, to) whose block starts at or right of `bound` px, (x0[positions[i]] − w0) × scale, the lane's
 * blocks starting in order: tried at `from + guess − 1` and `from + guess` first (the steps per pixel column of the
 * column before), then by doubling and halving. The pixel is worked out here as drawTimeline's `px` does, not by a
 * call: in the timeline's first draw this code runs cold, where a call per probe was most of its cost.
 */
export function firstAtLeast(x0: ArrayLike<number>, positions: ArrayLike<number>, w0: number, scale: number, from: number, to: number, bound: number, guess: number): number {
  if (from >= to || (x0[positions[from]] - w0) * scale >= bound) return from;
  // Left of bound at lo; hi is past the answer (at or right of bound, or hi = to).
  let lo = from;
  let hi = Math.min(to, from + Math.max(1, guess));
  if (hi - 1 > lo) {
    if ((x0[positions[hi - 1]] - w0) * scale < bound) lo = hi - 1;
    else hi = hi - 1;
  }
  for (let jump = Math.max(1, guess); hi < to && (x0[positions[hi]] - w0) * scale < bound; jump *= 2) {
    lo = hi;
    hi = Math.min(to, hi + jump);
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if ((x0[positions[mid]] - w0) * scale < bound) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Whether no step of a chunk of a lane whose blocks start in order would draw anything: all its blocks are under
 * half a pixel wide (`widestPx`, with room for rounding: each then draws a 1 px block at most) and the last one starts
 * (`lastStartPx`) in a pixel column where the lane's block, and its error marker and loop mark if the chunk has any
 * (`flags`), are drawn already, so every earlier one's are too.
 */
export function skipsChunk(widestPx: number, lastStartPx: number, flags: number, lastPx: number, lastErrorPx: number, lastLoopPx: number): boolean {
  if (!(widestPx <= 0.5)) return false;
  const at = Math.floor(lastStartPx);
  return Math.floor(Math.max(0, lastStartPx)) <= lastPx && (!(flags & 1) || at <= lastErrorPx) && (!(flags & 2) || at <= lastLoopPx);
}

function drawAxis(ctx: CanvasRenderingContext2D, mode: TimelineMode, win: Window, width: number, y: number) {
  ctx.fillStyle = '#64748b';
  ctx.strokeStyle = '#cbd5e1';
  ctx.font = '10px system-ui, sans-serif';
  ctx.beginPath();
  ctx.moveTo(0, y + 0.5);
  ctx.lineTo(width, y + 0.5);
  ctx.stroke();
  const span = win[1] - win[0];
  const rough = span / Math.max(1, width / 90);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough;
  const origin = mode === 'time' ? win[0] : 0;
  for (let t = Math.ceil((win[0] - origin) / step) * step + origin; t <= win[1]; t += step) {
    const x = ((t - win[0]) / span) * width;
    ctx.fillRect(x, y, 1, 4);
    const label = mode === 'time' ? `+${formatDuration(t - origin)}` : mode === 'tokens' ? compact(t) : `#${Math.round(t) + 1}`;
    ctx.fillText(label, x + 2, y + 13);
  }
}

/** Playhead colour (Tailwind indigo-600), as the DOM line and ring had. */
const PLAYHEAD = '#4f46e5';

/**
 * The playhead line and the outline of the current block, shapes in an SVG of the timeline's size (playhead-layer.tsx
 * says why not DOM elements). The elements after it paint nothing: they hold the current step for tests and scripts
 * (`timeline`, `timeline-playhead`, the block marked `data-current`, its left edge in `data-x`).
 */
function TimelinePlayhead({ view, geometry, win, setWin, width, height }: CanvasProps) {
  const position = usePlayhead((s) => s.position);
  const step = view.steps[position];
  const a = geometry.x0[position];
  const b = geometry.x1[position];
  // Keep the current step in view when the playhead leaves the window. A layout effect: a state update from a passive
  // effect is rendered in a scheduler task of its own, after the frame of the move, which then showed the old window
  // (the current block off screen) for a frame; from a layout effect the new window renders in the key's own task.
  useLayoutEffect(() => {
    if (b < win[0] || a > win[1]) {
      const span = win[1] - win[0];
      setWin(clampWindow([a - span / 2, a + span / 2], geometry.domain));
    }
  }, [a, b, win, setWin, geometry]);
  const scale = width / (win[1] - win[0]);
  const left = (a - win[0]) * scale;
  const right = (b - win[0]) * scale;
  const lane = view.laneAt[position];
  const lineX = Math.max(0, Math.min(width - 2, left));
  const block = { x: left - 1, y: lane * LANE_H + 3, w: Math.max(3, right - left + 1), h: LANE_H - 8 };
  // The block's ring as the DOM ring had it: a 1 px white gap and a 2 px ring, rounded (2 px on the block).
  const ring = (out: number) => ({ x: block.x - out, y: block.y - out, width: block.w + 2 * out, height: block.h + 2 * out, rx: 2 + out });
  return (
    <div data-testid="timeline" data-current-step={step?.id} data-position={position} className="pointer-events-none absolute inset-0">
      <PlayheadLayer testId="timeline-playhead-layer" width={width} height={height}>
        <rect x={lineX} y={0} width={2} height={height - AXIS_H} fill={PLAYHEAD} />
        <rect {...ring(0.5)} fill="none" stroke="#ffffff" strokeWidth={1} />
        <rect {...ring(2)} fill="none" stroke={PLAYHEAD} strokeWidth={2} />
      </PlayheadLayer>
      <div data-testid="timeline-playhead" data-step-id={step?.id} data-x={lineX} hidden />
      <div data-current="true" data-step-id={step?.id} data-x={block.x} data-lane={lane} hidden />
    </div>
  );
}
