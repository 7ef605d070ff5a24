// Token charts (d3 scales and shapes, React-rendered SVG): per-step stacked input/output bars with the cumulative
// total as a line, and per-agent totals. Long runs are summed into one bar per few pixels, so the number of SVG
// elements never grows with the step count. Hover shows exact numbers; the playhead is a marker line.
import { line, scaleLinear } from 'd3';
import { memo, useMemo, useState } from 'react';
import { usePlayhead } from '../../store/playhead.ts';
import { agentColors } from '../../ui/agent-colors.ts';
import { TOKEN_BLOCK, type RunView } from './run-view-model.ts';
import { compact, formatCount } from '../../ui/format.ts';
import { useElementWidth } from '../../ui/use-element-width.ts';
import { maxOf } from '../../model/large-arrays.ts';
import { PlayheadLayer } from './playhead-layer.tsx';

const HEIGHT = 190;
const MARGIN = { top: 10, right: 46, bottom: 22, left: 44 };
const MIN_BAR_PX = 3;
const INPUT = '#4e79a7';
const OUTPUT = '#f28e2b';
const CUMULATIVE = '#0f172a';

export interface TokenBuckets {
  /** Steps per bar. */
  size: number;
  input: Float64Array;
  output: Float64Array;
  /** Cumulative total at the bucket's last step. */
  cumulative: Float64Array;
  estimated: Uint8Array;
  max: number;
}

/**
 * Sum consecutive steps into at most `maxBars` bars. A bar of many steps adds the view's block sums
 * (RunView.tokens.blocks) for its whole blocks and the steps at its two ends: at 1M steps, some 50k additions instead
 * of 3M (a pass over every step was 15–55 ms of the chart's first render).
 */
export function bucketTokens(view: RunView, maxBars: number): TokenBuckets {
  const n = view.steps.length;
  const size = Math.max(1, Math.ceil(n / Math.max(1, maxBars)));
  const count = Math.ceil(n / size);
  const input = new Float64Array(count);
  const output = new Float64Array(count);
  const cumulative = new Float64Array(count);
  const estimated = new Uint8Array(count);
  const { tokens } = view;
  const blocks = tokens.blocks;
  // Whole blocks only when the sums are the same in any order (integers) and a bar holds a few blocks.
  const byBlock = blocks.exact && size >= 2 * TOKEN_BLOCK;
  let max = 0;
  for (let b = 0; b < count; b++) {
    const first = b * size;
    const end = Math.min(n, first + size);
    let i = 0;
    let o = 0;
    let e = 0;
    let p = first;
    if (byBlock) {
      for (; p < end && p % TOKEN_BLOCK !== 0; p++) {
        i += tokens.input[p];
        o += tokens.output[p];
        e |= tokens.estimated[p];
      }
      for (; p + TOKEN_BLOCK <= end; p += TOKEN_BLOCK) {
        const k = p / TOKEN_BLOCK;
        i += blocks.input[k];
        o += blocks.output[k];
        e |= blocks.estimated[k];
      }
    }
    for (; p < end; p++) {
      i += tokens.input[p];
      o += tokens.output[p];
      e |= tokens.estimated[p];
    }
    input[b] = i;
    output[b] = o;
    estimated[b] = e;
    cumulative[b] = tokens.cumulative[end - 1];
    max = Math.max(max, i + o);
  }
  return { size, input, output, cumulative, estimated, max };
}

export function TokenCharts({ view }: { view: RunView }) {
  const [box, width] = useElementWidth<HTMLDivElement>();
  const n = view.steps.length;
  const total = n > 0 ? view.tokens.cumulative[n - 1] : 0;
  // Found with the view's other columns (run-view-model.ts): a pass over 1M steps here was 15–65 ms of the first render.
  const anyEstimated = view.tokens.anyEstimated;
  return (
    <section aria-label="Token charts" data-testid="token-charts-panel" className="rounded border border-slate-200 bg-white">
      <header className="flex items-center gap-3 border-b border-slate-200 px-2 py-1">
        <h2 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Tokens</h2>
        <span className="text-[11px] text-slate-600">
          {formatCount(total)} total{anyEstimated && ' (some estimated by a tokenizer)'}
        </span>
        <span className="ml-auto flex items-center gap-3 text-[11px] text-slate-600">
          <Swatch color={INPUT} label="input" />
          <Swatch color={OUTPUT} label="output" />
          <span className="flex items-center gap-1">
            <span className="inline-block h-0.5 w-4" style={{ background: CUMULATIVE }} /> cumulative
          </span>
        </span>
      </header>
      {total === 0 ? (
        <p className="p-3 text-xs text-slate-500">This run records no token usage.</p>
      ) : (
        <div className="grid grid-cols-[minmax(0,2fr)_minmax(12rem,1fr)]">
          <div ref={box} className="relative min-w-0 [contain:content]">
            {width > 0 && <StepChart view={view} width={width} />}
          </div>
          <AgentTotals view={view} />
        </div>
      )}
    </section>
  );
}

function Swatch({ color, label }: { color: string; label: string }) {
  return (
    <span className="flex items-center gap-1">
      <span className="inline-block h-2.5 w-2.5 rounded-sm" style={{ background: color }} /> {label}
    </span>
  );
}

interface Scales {
  buckets: TokenBuckets;
  x: (bucket: number) => number;
  barWidth: number;
  plotW: number;
}

function StepChart({ view, width }: { view: RunView; width: number }) {
  const plotW = Math.max(10, width - MARGIN.left - MARGIN.right);
  const buckets = useMemo(() => bucketTokens(view, Math.floor(plotW / MIN_BAR_PX)), [view, plotW]);
  const count = buckets.input.length;
  const scales: Scales = useMemo(() => {
    const barWidth = plotW / count;
    return { buckets, x: (b: number) => MARGIN.left + b * barWidth, barWidth, plotW };
  }, [buckets, count, plotW]);
  const [hover, setHover] = useState<number | undefined>();
  const moveTo = usePlayhead((s) => s.moveTo);
  const bucketAt = (clientX: number, rect: DOMRect) => {
    const b = Math.floor((clientX - rect.left - MARGIN.left) / scales.barWidth);
    return b >= 0 && b < count ? b : undefined;
  };
  return (
    <>
      <svg
        data-testid="token-chart-steps"
        width={width}
        height={HEIGHT}
        // Its own compositing layer: the bars (hundreds of elements) are not painted again when the playhead moves.
        className="block will-change-transform"
        onMouseMove={(e) => setHover(bucketAt(e.clientX, e.currentTarget.getBoundingClientRect()))}
        onMouseLeave={() => setHover(undefined)}
        onClick={(e) => {
          const b = bucketAt(e.clientX, e.currentTarget.getBoundingClientRect());
          if (b !== undefined) moveTo(b * buckets.size);
        }}
      >
        <Bars view={view} scales={scales} />
        {hover !== undefined && (
          <rect x={scales.x(hover)} y={MARGIN.top} width={Math.max(1, scales.barWidth)} height={HEIGHT - MARGIN.top - MARGIN.bottom} fill="#0f172a" fillOpacity={0.08} />
        )}
      </svg>
      <ChartPlayhead view={view} scales={scales} width={width} />
      {hover !== undefined && <StepTooltip view={view} buckets={buckets} bucket={hover} left={Math.min(scales.x(hover) + 10, width - 200)} />}
    </>
  );
}

const Bars = memo(function Bars({ view, scales }: { view: RunView; scales: Scales }) {
  const { buckets, x, barWidth, plotW } = scales;
  const count = buckets.input.length;
  const n = view.steps.length;
  const y = scaleLinear()
    .domain([0, buckets.max || 1])
    .nice()
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const total = view.tokens.cumulative[n - 1] || 1;
  const yc = scaleLinear()
    .domain([0, total])
    .nice()
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const cumulativePath =
    line<number>()
      .x((b) => x(b) + barWidth)
      .y((b) => yc(buckets.cumulative[b]))(Array.from({ length: count }, (_, b) => b)) ?? '';
  const gap = barWidth > 4 ? 1 : 0;
  // Whole step counts only: a run of a few steps got ticks at #0.2, #0.4, …
  const stepTicks = scaleLinear().domain([0, n]).ticks(Math.max(2, Math.floor(plotW / 80))).filter(Number.isInteger);
  return (
    <g>
      {y.ticks(4).map((t) => (
        <g key={t} transform={`translate(0,${y(t)})`}>
          <line x1={MARGIN.left} x2={MARGIN.left + plotW} stroke="#e2e8f0" />
          <text x={MARGIN.left - 4} dy="0.32em" textAnchor="end" fontSize={10} fill="#64748b">
            {compact(t)}
          </text>
        </g>
      ))}
      {yc.ticks(4).map((t) => (
        <text key={t} x={MARGIN.left + plotW + 4} y={yc(t)} dy="0.32em" fontSize={10} fill="#334155">
          {compact(t)}
        </text>
      ))}
      {Array.from({ length: count }, (_, b) => {
        const inTop = y(buckets.input[b]);
        const outTop = y(buckets.input[b] + buckets.output[b]);
        const opacity = buckets.estimated[b] ? 0.55 : 1;
        return (
          <g key={b} opacity={opacity}>
            <rect x={x(b)} y={inTop} width={Math.max(0.5, barWidth - gap)} height={HEIGHT - MARGIN.bottom - inTop} fill={INPUT} />
            <rect x={x(b)} y={outTop} width={Math.max(0.5, barWidth - gap)} height={inTop - outTop} fill={OUTPUT} />
          </g>
        );
      })}
      <path d={cumulativePath} fill="none" stroke={CUMULATIVE} strokeWidth={1.5} />
      <line x1={MARGIN.left} x2={MARGIN.left + plotW} y1={HEIGHT - MARGIN.bottom} y2={HEIGHT - MARGIN.bottom} stroke="#94a3b8" />
      {stepTicks.map((t) => (
        <text key={t} x={x(t / buckets.size)} y={HEIGHT - 6} fontSize={10} fill="#64748b" textAnchor="middle">
          {t === 0 ? 'step 1' : `#${formatCount(t)}`}
        </text>
      ))}
    </g>
  );
});

const MARKER = '#e11d48';

/**
 * The playhead's marker, shapes in an SVG of the chart's size (playhead-layer.tsx): the bars are never painted again,
 * and no DOM element moves. The element `token-charts` paints nothing and holds the current step.
 */
function ChartPlayhead({ view, scales, width }: { view: RunView; scales: Scales; width: number }) {
  const position = usePlayhead((s) => s.position);
  const bucket = Math.floor(position / scales.buckets.size);
  const cx = scales.x(bucket) + scales.barWidth / 2;
  return (
    <>
      <PlayheadLayer testId="token-charts-playhead-layer" width={width} height={HEIGHT - MARGIN.bottom}>
        <path d={`M${cx - 4},2 h8 l-4,5 z`} fill={MARKER} />
        <line x1={cx} x2={cx} y1={MARGIN.top - 4} y2={HEIGHT - MARGIN.bottom} stroke={MARKER} strokeWidth={1.5} />
      </PlayheadLayer>
      <div data-testid="token-charts" data-current-step={view.steps[position]?.id} data-position={position} data-x={cx} hidden />
    </>
  );
}

function StepTooltip({ view, buckets, bucket, left }: { view: RunView; buckets: TokenBuckets; bucket: number; left: number }) {
  const first = bucket * buckets.size;
  const last = Math.min(view.steps.length, first + buckets.size) - 1;
  const step = view.steps[first];
  return (
    <div className="pointer-events-none absolute top-2 z-10 rounded bg-slate-900 px-2 py-1 text-[11px] text-white shadow" style={{ left }} data-testid="token-tooltip">
      <p className="font-semibold">
        {first === last ? `step ${first + 1} · ${view.index.agentById.get(step.agentId)?.name ?? step.agentId}` : `steps ${first + 1}–${last + 1}`}
      </p>
      <p>input {formatCount(buckets.input[bucket])}</p>
      <p>output {formatCount(buckets.output[bucket])}</p>
      <p>cumulative {formatCount(buckets.cumulative[bucket])}</p>
      {buckets.estimated[bucket] === 1 && <p className="text-amber-300">includes estimated counts</p>}
    </div>
  );
}

const AgentTotals = memo(function AgentTotals({ view }: { view: RunView }) {
  const colors = agentColors(view);
  const rows = useMemo(() => [...view.tokens.perAgent].filter((a) => a.input + a.output > 0).sort((a, b) => b.input + b.output - (a.input + a.output)), [view]);
  const max = maxOf(rows.map((r) => r.input + r.output), 1);
  // Its own compositing layer: a scroller that is no stacking context is painted again with the panel around it, and
  // its rows (an SVG each) were half the Paint of a playhead move (CPU per press in an A/B trace on 100k steps,
  // bench/profile-view.ts: Paint 1.52 → 0.79 ms, PrePaint 0.87 → 0.62 ms).
  return (
    <div className="max-h-[190px] overflow-y-auto border-l border-slate-200 px-2 py-1 will-change-transform" aria-label="Tokens per agent" data-testid="token-chart-agents">
      <table className="w-full text-[11px]">
        <tbody>
          {rows.map((r) => {
            const total = r.input + r.output;
            return (
              <tr key={r.agentId} title={`${r.name}: input ${formatCount(r.input)}, output ${formatCount(r.output)}, total ${formatCount(total)}`}>
                <td className="max-w-[7rem] truncate py-0.5 pr-1 text-slate-800">
                  <span className="mr-1 inline-block h-2 w-2 rounded-sm" style={{ background: colors.get(r.agentId) }} />
                  {r.name}
                </td>
                <td className="w-full py-0.5">
                  <svg width="100%" height="10" aria-hidden>
                    <rect x="0" y="1" width={`${(r.input / max) * 100}%`} height="8" fill={INPUT} />
                    <rect x={`${(r.input / max) * 100}%`} y="1" width={`${(r.output / max) * 100}%`} height="8" fill={OUTPUT} />
                  </svg>
                </td>
                <td className="py-0.5 pl-1 text-right text-slate-600 tabular-nums">{compact(total)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
});
