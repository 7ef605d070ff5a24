// Latency × extra cost per group and arm, bubble area ∝ accuracy (the AgentAsk paper's Figure 4 left). Latency is
// the arm's mean run duration as % of the group's baseline (baseline = 100); extra cost the engine's own tokens as %
// of the baseline's mean tokens (baseline = 0, the reference). Groups whose runs record no timing are listed, not plotted.
import { scaleLinear, scaleSqrt } from 'd3';
import { ARMS, type Arm, type CorpusStatistics, type GroupStatistics } from '../../model/statistics.ts';
import { toCsv } from '../../export/csv.ts';
import { accuracy, ARM_COLOR, ARM_LABEL, AXIS, FONT, GRID, groupLabel, pct } from '../../ui/chart/chart-style.ts';
import { ChartFrame, HoverReadout, useHover, useSvgRef } from '../../ui/chart/chart-frame.tsx';
import { maxOf, minOf } from '../../model/large-arrays.ts';

const W = 760;
const H = 320;
const M = { top: 24, right: 130, bottom: 46, left: 64 };
const MAX_RADIUS = 26;

interface Bubble {
  group: string;
  arm: Arm;
  latencyPct: number;
  extraCostPct: number;
  accuracy: number;
  runs: number;
}

export function bubbles(stats: CorpusStatistics): Bubble[] {
  const out: Bubble[] = [];
  for (const g of stats.groups)
    for (const arm of ARMS) {
      if (g[arm].n === 0) continue;
      out.push({ group: g.group, arm, runs: g[arm].n, accuracy: g[arm].accuracy, ...position(g, arm) });
    }
  return out;
}

function position(g: GroupStatistics, arm: Arm): { latencyPct: number; extraCostPct: number } {
  if (arm === 'supervised') return { latencyPct: g.latencyPct, extraCostPct: g.extraCostPct };
  // The baseline is the reference: as fast as itself and no engine in the loop (supervisor interventions that the
  // engines panel wrote into a baseline run are hypothetical and were not spent when it was recorded).
  return { latencyPct: Number.isFinite(g.baseline.meanDurationMs) ? 100 : NaN, extraCostPct: 0 };
}

export function bubbleCsv(stats: CorpusStatistics): string {
  return toCsv(
    [stats.groupBy, 'arm', 'runs', 'latency_pct_of_baseline', 'extra_cost_pct_of_baseline_tokens', 'accuracy_pct'],
    bubbles(stats).map((b) => [b.group, b.arm, b.runs, b.latencyPct, b.extraCostPct, b.accuracy * 100]),
  );
}

export function BubbleChart({ stats }: { stats: CorpusStatistics }) {
  const svgRef = useSvgRef();
  const [hover, setHover] = useHover();
  const all = bubbles(stats);
  const plotted = all.filter((b) => Number.isFinite(b.latencyPct) && Number.isFinite(b.extraCostPct));
  const untimed = [...new Set(all.filter((b) => !Number.isFinite(b.latencyPct)).map((b) => b.group))];
  const xs = plotted.map((b) => b.latencyPct);
  const ys = plotted.map((b) => b.extraCostPct);
  const x = scaleLinear().domain([minOf(xs, 90), maxOf(xs, 110)]).nice().range([M.left, W - M.right]);
  const y = scaleLinear().domain([minOf(ys, 0), maxOf(ys, 5)]).nice().range([H - M.bottom, M.top]);
  const r = scaleSqrt().domain([0, 1]).range([0, MAX_RADIUS]);
  const radius = (a: number) => (Number.isFinite(a) ? Math.max(r(a), 2) : 4);
  return (
    <ChartFrame
      title="Latency × extra cost, sized by accuracy"
      testId="bubble-chart"
      exportName={`latency-cost-accuracy-by-${stats.groupBy}`}
      svgRef={svgRef}
      csv={() => bubbleCsv(stats)}
      caption={
        <>
          One bubble per {stats.groupBy} and arm. x: mean run duration as % of the baseline's; y: engine overhead tokens as %
          of the baseline's mean tokens; bubble area ∝ accuracy (hollow when no outcome is known).
          {untimed.length > 0 && ` Not plotted, no timing recorded: ${untimed.map((g) => groupLabel(stats.groupBy, g)).join(', ')}.`}
        </>
      }
    >
      <svg ref={svgRef} viewBox={`0 0 ${W} ${H}`} className="h-auto w-full max-w-[760px]" role="img" aria-label="Bubble chart of latency against extra cost, sized by accuracy" fontFamily={FONT}>
        {x.ticks(6).map((t) => (
          <g key={`x${t}`}>
            <line x1={x(t)} x2={x(t)} y1={M.top} y2={H - M.bottom} stroke={GRID} />
            <text x={x(t)} y={H - M.bottom + 14} textAnchor="middle" fontSize={11} fill={AXIS}>{t}%</text>
          </g>
        ))}
        {y.ticks(5).map((t) => (
          <g key={`y${t}`}>
            <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} stroke={GRID} />
            <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" fontSize={11} fill={AXIS}>{t}%</text>
          </g>
        ))}
        <text x={(M.left + W - M.right) / 2} y={H - 8} textAnchor="middle" fontSize={12} fill={AXIS}>
          Latency (mean run duration, % of baseline)
        </text>
        <text transform={`translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)`} textAnchor="middle" fontSize={12} fill={AXIS}>
          Extra cost (% of baseline tokens)
        </text>
        <rect x={M.left} y={M.top} width={W - M.left - M.right} height={H - M.top - M.bottom} fill="none" stroke={AXIS} strokeWidth={0.5} />
        {/* Every group's baseline sits at (100 %, its own overhead, normally 0): hollow rings, largest first so each
            stays hoverable, and one label for all of them. */}
        {[...plotted].sort((p, q) => radius(q.accuracy) - radius(p.accuracy)).map((b) => {
          const lines = [
            `${groupLabel(stats.groupBy, b.group)} · ${ARM_LABEL[b.arm]} · ${b.runs} runs`,
            `latency ${pct(b.latencyPct)} of baseline · extra cost ${pct(b.extraCostPct)} of baseline tokens`,
            `accuracy ${accuracy(b.accuracy)}`,
          ];
          const known = Number.isFinite(b.accuracy);
          const baseline = b.arm === 'baseline';
          return (
            <g key={`${b.group}-${b.arm}`} data-testid="bubble" data-arm={b.arm} onMouseEnter={() => setHover(lines)} onMouseLeave={() => setHover(null)}>
              <title>{lines.join('\n')}</title>
              <circle
                cx={x(b.latencyPct)}
                cy={y(b.extraCostPct)}
                r={radius(b.accuracy)}
                fill={known && !baseline ? ARM_COLOR[b.arm] : baseline ? '#ffffff' : 'none'}
                fillOpacity={baseline ? 0.01 : 0.35}
                stroke={ARM_COLOR[b.arm]}
                strokeWidth={1.5}
              />
              {!baseline && (
                <text x={x(b.latencyPct)} y={y(b.extraCostPct) - radius(b.accuracy) - 3} textAnchor="middle" fontSize={10} fill="#0f172a">
                  {groupLabel(stats.groupBy, b.group)}
                </text>
              )}
            </g>
          );
        })}
        {plotted.some((b) => b.arm === 'baseline') && (
          <text x={x(100) + MAX_RADIUS + 4} y={y(0) - 4} fontSize={10} fill={ARM_COLOR.baseline}>
            baselines (every {stats.groupBy})
          </text>
        )}
        <g transform={`translate(${W - M.right + 14} ${M.top + 6})`} fontSize={11} fill="#0f172a">
          {ARMS.map((arm, i) => (
            <g key={arm} transform={`translate(0 ${i * 18})`}>
              <circle cx={6} cy={5} r={6} fill={ARM_COLOR[arm]} fillOpacity={0.35} stroke={ARM_COLOR[arm]} />
              <text x={16} y={9}>{ARM_LABEL[arm]}</text>
            </g>
          ))}
          <text y={54} fill={AXIS}>accuracy</text>
          {[0.5, 1].map((a, i) => (
            <g key={a} transform={`translate(${MAX_RADIUS} ${62 + MAX_RADIUS + i * 58})`}>
              <circle r={r(a)} fill="none" stroke={AXIS} />
              <text x={MAX_RADIUS + 6} y={4} fill={AXIS}>{a * 100}%</text>
            </g>
          ))}
        </g>
      </svg>
      <HoverReadout lines={hover} />
    </ChartFrame>
  );
}
