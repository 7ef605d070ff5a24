// The taxonomy's two charts (d3 scales, SVG drawn by React): the distribution of error types (AgentAsk Figure 2a) and
// the one-shot resolution rate per type (§5.4), for the labels and clarifier results in the library, each beside the
// paper's published figures, which are drawn as a reference and labelled as such.
import { scaleBand, scaleLinear } from 'd3';
import { useMemo, type RefObject } from 'react';
import { ERROR_TYPES, PAPER_STATS, TYPE_INFO, type ErrorType } from '../../engine/clarifier/index.ts';
import { toCsv } from '../../export/csv.ts';
import { useLibrary } from '../../store/library.ts';
import { ChartFrame, HoverReadout, useHover, useSvgRef } from '../../ui/chart/chart-frame.tsx';
import { AXIS, FONT, GRID } from '../../ui/chart/chart-style.ts';
import { libraryStats } from './taxonomy-model.ts';
import { TYPE_COLOR } from './type-ui.tsx';

interface Series {
  key: string;
  label: string;
  /** Per type: value in %, or null when there is nothing to show; n = the count behind it. */
  values: Record<ErrorType, { pct: number | null; n: number; of: number }>;
  reference?: boolean;
  /** Its number in the legend (series without data are left out of the chart but keep their number). */
  index?: number;
}

const W = 640;
const H = 260;
const M = { top: 16, right: 12, bottom: 44, left: 44 };

/** Series with data (references always have it), numbered as in the legend. */
const drawable = (series: Series[]): Series[] =>
  series.map((s, i) => ({ ...s, index: i + 1 })).filter((s) => s.reference || ERROR_TYPES.some((t) => s.values[t].of > 0));

function GroupedBars({ series: all, yLabel, testId, onHover, svgRef }: { series: Series[]; yLabel: string; testId: string; onHover: (lines: string[] | null) => void; svgRef: RefObject<SVGSVGElement | null> }) {
  const series = drawable(all);
  const x = scaleBand<ErrorType>().domain([...ERROR_TYPES]).range([M.left, W - M.right]).padding(0.2);
  const inner = scaleBand<string>().domain(series.map((s) => s.key)).range([0, x.bandwidth()]).padding(0.08);
  const y = scaleLinear().domain([0, 100]).range([H - M.bottom, M.top]);
  const ticks = y.ticks(5);
  return (
    <svg ref={svgRef} viewBox={`0 0 ${W} ${H}`} className="w-full max-w-3xl" role="img" aria-label={yLabel} data-testid={testId} fontFamily={FONT} fontSize={11}>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} stroke={GRID} />
          <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" fill={AXIS}>
            {t}%
          </text>
        </g>
      ))}
      <text transform={`translate(12 ${(H - M.bottom + M.top) / 2}) rotate(-90)`} textAnchor="middle" fill={AXIS}>
        {yLabel}
      </text>
      {ERROR_TYPES.map((t) => (
        <g key={t} transform={`translate(${x(t)} 0)`}>
          {series.map((s) => {
            const v = s.values[t];
            const bx = inner(s.key)!;
            if (v.pct === null) {
              return (
                <text key={s.key} x={bx + inner.bandwidth() / 2} y={y(0) - 4} textAnchor="middle" fill="#94a3b8" fontSize={9}>
                  n/a
                </text>
              );
            }
            const lines = [`${TYPE_INFO[t].name} (${t}) · ${s.label}`, `${v.pct.toFixed(1)}%${s.reference ? ' (published)' : ` (${v.n} of ${v.of})`}`];
            return (
              <rect
                key={s.key}
                data-series={s.key}
                data-type={t}
                data-value={v.pct}
                x={bx}
                y={y(v.pct)}
                width={inner.bandwidth()}
                height={Math.max(0, y(0) - y(v.pct))}
                fill={TYPE_COLOR[t]}
                fillOpacity={s.reference ? 0.25 : 0.85}
                stroke={TYPE_COLOR[t]}
                strokeDasharray={s.reference ? '3 2' : undefined}
                onMouseEnter={() => onHover(lines)}
                onMouseLeave={() => onHover(null)}
              >
                <title>{lines.join(': ')}</title>
              </rect>
            );
          })}
          {series.map((s, i) => {
            const v = s.values[t];
            if (v.pct === null) return null;
            return (
              <text key={`n-${s.key}`} x={inner(s.key)! + inner.bandwidth() / 2} y={y(v.pct) - 3} textAnchor="middle" fill={AXIS} fontSize={9}>
                {s.index ?? i + 1}
              </text>
            );
          })}
          <text x={x.bandwidth() / 2} y={H - M.bottom + 16} textAnchor="middle" fill={AXIS} fontWeight={600}>
            {t}
          </text>
          <text x={x.bandwidth() / 2} y={H - M.bottom + 30} textAnchor="middle" fill={AXIS} fontSize={10}>
            {TYPE_INFO[t].name}
          </text>
        </g>
      ))}
      <line x1={M.left} x2={W - M.right} y1={y(0)} y2={y(0)} stroke={AXIS} />
    </svg>
  );
}

function Legend({ series }: { series: Series[] }) {
  return (
    <ul className="mt-1 flex flex-wrap gap-3 text-xs text-slate-700">
      {series.map((s, i) => (
        <li key={s.key} className="flex items-center gap-1">
          <span className="inline-block h-3 w-3 rounded-sm border border-slate-500" style={{ background: s.reference ? 'repeating-linear-gradient(45deg,#fff,#fff 2px,#cbd5e1 2px,#cbd5e1 4px)' : '#475569', opacity: s.reference ? 1 : 0.85 - i * 0.1 }} />
          {i + 1}. {s.label}
          {!s.reference && ERROR_TYPES.every((t) => s.values[t].of === 0) && <span className="text-slate-400">: nothing yet, not drawn</span>}
        </li>
      ))}
      <li className="text-slate-500">The number above a bar names its series.</li>
    </ul>
  );
}

const shares = (counts: Record<ErrorType, number>): Series['values'] => {
  const total = ERROR_TYPES.reduce((s, t) => s + counts[t], 0);
  return Object.fromEntries(ERROR_TYPES.map((t) => [t, { pct: total > 0 ? (100 * counts[t]) / total : null, n: counts[t], of: total }])) as Series['values'];
};

const reference = (values: Record<ErrorType, number>): Series['values'] =>
  Object.fromEntries(ERROR_TYPES.map((t) => [t, { pct: values[t], n: 0, of: 0 }])) as Series['values'];

export function TaxonomyCharts() {
  const runs = useLibrary((s) => s.runs);
  const stats = useMemo(() => libraryStats(Object.values(runs)), [runs]);
  const distRef = useSvgRef();
  const shotRef = useSvgRef();
  const [distHover, setDistHover] = useHover();
  const [shotHover, setShotHover] = useHover();

  const distribution: Series[] = [
    { key: 'paper', label: `AgentAsk paper, Figure 2a (N = ${PAPER_STATS.distributionN} logs; published reference)`, values: reference(PAPER_STATS.distribution), reference: true },
    { key: 'paper-events', label: 'AgentAsk paper, §5.4 clarification events (published reference)', values: reference(PAPER_STATS.events), reference: true },
    { key: 'human', label: `your labels (${stats.human.total} error edges in ${stats.runsWithLabels} runs)`, values: shares(stats.human.counts) },
    { key: 'clarifier', label: `clarifier asks, endpoint (${stats.clarifier.total})`, values: shares(stats.clarifier.counts) },
    { key: 'heuristic', label: `heuristic flags, offline (${stats.heuristic.total})`, values: shares(stats.heuristic.counts) },
  ];
  const oneShot: Series[] = [
    { key: 'paper', label: 'AgentAsk paper, §5.4 (published reference)', values: reference(PAPER_STATS.oneShot), reference: true },
    {
      key: 'clarifier',
      label: 'clarifier on your runs (second check said NONE)',
      values: Object.fromEntries(
        ERROR_TYPES.map((t) => [t, { pct: stats.secondChecked[t] > 0 ? (100 * stats.resolved[t]) / stats.secondChecked[t] : null, n: stats.resolved[t], of: stats.secondChecked[t] }]),
      ) as Series['values'],
    },
  ];
  const csv = (series: Series[]) => () =>
    toCsv(
      ['series', 'type', 'percent', 'count', 'of'],
      series.flatMap((s) => ERROR_TYPES.map((t) => [s.label, t, s.values[t].pct === null ? '' : Number(s.values[t].pct!.toFixed(2)), s.reference ? '' : s.values[t].n, s.reference ? '' : s.values[t].of])),
    );

  return (
    <div className="space-y-3" data-testid="taxonomy-charts">
      <ChartFrame
        title="Error-type distribution"
        caption="Share of each type among edges with an error (NONE left out), per source. The hatched bars are the paper's published figures (Figure 2a and the §5.4 event shares), drawn for reference; the solid ones are counted from the runs in your library."
        exportName="taxonomy-distribution"
        csv={csv(distribution)}
        svgRef={distRef}
        testId="chart-distribution"
      >
        <GroupedBars series={distribution} yLabel="share of error edges" testId="distribution-svg" onHover={setDistHover} svgRef={distRef} />
        <Legend series={distribution} />
        <HoverReadout lines={distHover} />
      </ChartFrame>
      <ChartFrame
        title="Resolved in one shot"
        caption="Of the clarifier's questions per type, the share whose revised message passed a second check (NONE). Needs the endpoint: the offline flagger asks nobody, so it has no rate. n/a where nothing was asked."
        exportName="taxonomy-one-shot"
        csv={csv(oneShot)}
        svgRef={shotRef}
        testId="chart-one-shot"
      >
        <GroupedBars series={oneShot} yLabel="resolved in one shot" testId="one-shot-svg" onHover={setShotHover} svgRef={shotRef} />
        <Legend series={oneShot} />
        <HoverReadout lines={shotHover} />
      </ChartFrame>
    </div>
  );
}
