// Spread of tokens per run by group, baseline vs supervised, with the reduction written above each pair (the
// supervisor paper's Figure 3b). Standard deviation by default (same unit as tokens); variance on request.
import { scaleBand, scaleLinear } from 'd3';
import { useState } from 'react';
import { ARMS, type CorpusStatistics } from '../../model/statistics.ts';
import { toCsv } from '../../export/csv.ts';
import { ARM_COLOR, ARM_LABEL, AXIS, FONT, GRID, groupLabel, pct, squareTokenTick, tokens, tokenTick } from '../../ui/chart/chart-style.ts';
import { ChartFrame, HoverReadout, useHover, useSvgRef } from '../../ui/chart/chart-frame.tsx';
import { maxOf, minOf } from '../../model/large-arrays.ts';

const W = 760;
const H = 300;
const M = { top: 36, right: 16, bottom: 40, left: 80 };

type Measure = 'std' | 'variance';

export function varianceCsv(stats: CorpusStatistics): string {
  return toCsv(
    [stats.groupBy, 'baseline_runs', 'supervised_runs', 'baseline_std_tokens', 'supervised_std_tokens', 'std_reduction_pct', 'baseline_variance_tokens2', 'supervised_variance_tokens2', 'variance_reduction_pct'],
    [...stats.groups, stats.overall, ...(stats.overallSimulated ? [stats.overallSimulated] : [])].map((g) => [
      g.group,
      g.baseline.n,
      g.supervised.n,
      g.baseline.std,
      g.supervised.std,
      g.stdReductionPct,
      g.baseline.variance,
      g.supervised.variance,
      g.varianceReductionPct,
    ]),
  );
}

/** `armLabels` renames the arms (the two-arm corpus says which is measured and which estimated). */
export function VarianceChart({ stats, armLabels }: { stats: CorpusStatistics; armLabels?: Partial<Record<(typeof ARMS)[number], string>> }) {
  const labels = { ...ARM_LABEL, ...armLabels };
  const svgRef = useSvgRef();
  const [hover, setHover] = useHover();
  const [measure, setMeasure] = useState<Measure>('std');
  const groups = stats.groups.filter((g) => g.baseline.n + g.supervised.n > 0);
  const value = (v: number) => (Number.isFinite(v) ? v : 0);
  const pick = (g: (typeof groups)[number], arm: (typeof ARMS)[number]) => (measure === 'std' ? g[arm].std : g[arm].variance);
  const max = maxOf(groups.flatMap((g) => ARMS.map((a) => value(pick(g, a)))), 1);
  // A spread needs two runs with token counts in an arm: with none anywhere, the axis has nothing to measure.
  const measured = groups.some((g) => ARMS.some((a) => Number.isFinite(pick(g, a))));
  const x = scaleBand<string>().domain(groups.map((g) => g.group)).range([M.left, W - M.right]).paddingInner(0.3).paddingOuter(0.15);
  const inner = scaleBand<string>().domain([...ARMS]).range([0, x.bandwidth()]).padding(0.08);
  const y = scaleLinear().domain([0, max]).nice().range([H - M.bottom, M.top]);
  const tick = measure === 'std' ? tokenTick : squareTokenTick;
  const reduction = (g: (typeof groups)[number]) => (measure === 'std' ? g.stdReductionPct : g.varianceReductionPct);
  return (
    <ChartFrame
      title="Spread of tokens per run"
      testId="variance-chart"
      exportName={`spread-tokens-by-${stats.groupBy}`}
      svgRef={svgRef}
      csv={() => varianceCsv(stats)}
      controls={
        <label className="text-xs text-slate-600">
          show{' '}
          <select className="rounded border border-slate-300 px-1 py-0.5 text-xs" value={measure} onChange={(e) => setMeasure(e.target.value as Measure)} aria-label="Spread measure">
            <option value="std">standard deviation</option>
            <option value="variance">variance</option>
          </select>
        </label>
      }
      caption={<>Sample {measure === 'std' ? 'standard deviation (tokens)' : 'variance (tokens²)'} of tokens per run; the figure above each pair is how much smaller the supervised arm's is.</>}
    >
      <svg ref={svgRef} viewBox={`0 0 ${W} ${H}`} className="h-auto w-full max-w-[760px]" role="img" aria-label={`Bar chart of token ${measure} by ${stats.groupBy}`} fontFamily={FONT}>
        {(measured ? y.ticks(5) : [0]).map((t) => (
          <g key={t}>
            <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} stroke={GRID} />
            <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" fontSize={11} fill={AXIS} data-testid="variance-tick">
              {tick(t)}
            </text>
          </g>
        ))}
        <text transform={`translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)`} textAnchor="middle" fontSize={12} fill={AXIS}>
          {/* The ticks carry their unit (100K, 2.5M): "thousand tokens" here made 100K read as 100K thousand. */}
          {measure === 'std' ? 'Std. deviation (tokens, K = thousand)' : 'Variance (tokens², K = thousand, M = million)'}
        </text>
        {!measured && (
          <text x={(M.left + W - M.right) / 2} y={(M.top + H - M.bottom) / 2} textAnchor="middle" fontSize={12} fill={AXIS} data-testid="variance-empty">
            No spread yet: it needs at least two runs with token counts in an arm.
          </text>
        )}
        <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} stroke={AXIS} />
        {groups.map((g) => {
          const gx = x(g.group)!;
          const top = minOf(ARMS.map((a) => y(value(pick(g, a)))));
          const r = reduction(g);
          return (
            <g key={g.group} data-testid="variance-group" data-group={g.group}>
              {ARMS.map((arm) => {
                const v = pick(g, arm);
                const lines = [
                  `${groupLabel(stats.groupBy, g.group)} · ${labels[arm]} · ${g[arm].n} runs`,
                  `std ${tokens(g[arm].std)} tokens · variance ${tokens(g[arm].variance)} tokens²`,
                  `reduction: std ${pct(g.stdReductionPct)} · variance ${pct(g.varianceReductionPct)}`,
                ];
                return (
                  <rect
                    key={arm}
                    x={gx + inner(arm)!}
                    width={inner.bandwidth()}
                    y={y(value(v))}
                    height={H - M.bottom - y(value(v))}
                    fill={ARM_COLOR[arm]}
                    fillOpacity={0.8}
                    onMouseEnter={() => setHover(lines)}
                    onMouseLeave={() => setHover(null)}
                  >
                    <title>{lines.join('\n')}</title>
                  </rect>
                );
              })}
              <text x={gx + x.bandwidth() / 2} y={top - 6} textAnchor="middle" fontSize={12} fontWeight={600} fill="#0f172a" data-testid="variance-reduction">
                {Number.isFinite(r) ? `${r >= 0 ? '−' : '+'}${Math.abs(r).toFixed(1)}%` : 'n/a'}
              </text>
              <text x={gx + x.bandwidth() / 2} y={H - M.bottom + 16} textAnchor="middle" fontSize={12} fill="#0f172a">
                {groupLabel(stats.groupBy, g.group)}
              </text>
              <text x={gx + x.bandwidth() / 2} y={H - M.bottom + 30} textAnchor="middle" fontSize={11} fill={AXIS} data-testid="variance-n">
                n = {g.baseline.n} / {g.supervised.n}
              </text>
            </g>
          );
        })}
        <g transform={`translate(${M.left + 8} 12)`} fontSize={11} fill="#0f172a">
          {ARMS.map((arm, i) => (
            <g key={arm} transform={`translate(${i * (armLabels ? 170 : 100)} 0)`}>
              <rect width={12} height={12} y={-1} fill={ARM_COLOR[arm]} fillOpacity={0.8} />
              <text x={16} y={9}>{labels[arm]}</text>
            </g>
          ))}
          <text x={armLabels ? 345 : 210} y={9} fill={AXIS}>label: change of the supervised {measure === 'std' ? 'std' : 'variance'} vs baseline</text>
        </g>
      </svg>
      <HoverReadout lines={hover} />
    </ChartFrame>
  );
}
