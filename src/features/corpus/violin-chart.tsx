// Split violins of tokens per run by group, baseline on the left half and supervised on the right (the supervisor
// paper's Figure 3a). Densities share one width scale across the chart, so a tall thin half is a spread-out arm and
// a short wide one a concentrated arm. Median solid, quartiles dashed, drawn across the half at their height.
import { area, curveMonotoneY, scaleBand, scaleLinear, scaleLog } from 'd3';
import { ARMS, type Arm, type CorpusStatistics, type ViolinShape } from '../../model/statistics.ts';
import { toCsv } from '../../export/csv.ts';
import { ARM_COLOR, ARM_LABEL, AXIS, FONT, GRID, groupLabel, tokens, tokenTick } from '../../ui/chart/chart-style.ts';
import { ChartFrame, HoverReadout, useHover, useSvgRef } from '../../ui/chart/chart-frame.tsx';

const W = 760;
const H = 340;
const M = { top: 28, right: 16, bottom: 52, left: 72 };

/** Density at `y` by linear interpolation on the violin's grid (0 outside it). */
function densityAt(v: ViolinShape, y: number): number {
  const { grid, density } = v;
  if (density.length === 0 || y < grid[0] || y > grid[grid.length - 1]) return 0;
  let i = 1;
  while (i < grid.length - 1 && grid[i] < y) i++;
  const t = (y - grid[i - 1]) / (grid[i] - grid[i - 1] || 1);
  return density[i - 1] + t * (density[i] - density[i - 1]);
}

export function violinCsv(stats: CorpusStatistics): string {
  const rows: (string | number)[][] = [];
  for (const g of stats.groups)
    for (const arm of ARMS) {
      const v = g[arm].violin;
      if (!v) continue;
      const summary = [g.group, arm, v.n, v.min, v.q1, v.median, v.q3, v.max, v.mean, v.bandwidth, v.logScale ? 'log10_tokens' : 'tokens'];
      if (v.density.length === 0) rows.push([...summary, v.median, '']);
      v.density.forEach((d, i) => rows.push([...summary, v.grid[i], d]));
    }
  return toCsv(
    [stats.groupBy, 'arm', 'runs', 'min_tokens', 'q1_tokens', 'median_tokens', 'q3_tokens', 'max_tokens', 'mean_tokens', 'kde_bandwidth', 'kde_scale', 'tokens_at', 'density'],
    rows,
  );
}

/** Ticks for a log axis: 1, 2, 5 × powers of ten over up to three decades, powers of ten alone over more. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  const steps = Math.log10(hi / lo) > 3 ? [1] : [1, 2, 5];
  for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p++)
    for (const m of steps) {
      const t = m * 10 ** p;
      if (t >= lo && t <= hi) ticks.push(t);
    }
  return ticks;
}

/** `armLabels` renames the arms (the two-arm corpus says which is measured and which estimated). */
export function ViolinChart({ stats, onLogScale, armLabels }: { stats: CorpusStatistics; onLogScale(log: boolean): void; armLabels?: Partial<Record<Arm, string>> }) {
  const labels = { ...ARM_LABEL, ...armLabels };
  const svgRef = useSvgRef();
  const [hover, setHover] = useHover();
  const groups = stats.groups.filter((g) => g.baseline.n + g.supervised.n > 0);
  const x = scaleBand<string>().domain(groups.map((g) => g.group)).range([M.left, W - M.right]).paddingInner(0.2).paddingOuter(0.1);
  let maxTokens = 0;
  let minTokens = Infinity;
  let maxDensity = 0;
  let logScale = false;
  for (const g of groups)
    for (const arm of ARMS) {
      const v = g[arm].violin;
      if (!v) continue;
      maxTokens = Math.max(maxTokens, v.max);
      minTokens = Math.min(minTokens, v.min);
      logScale ||= v.logScale;
      for (const d of v.density) maxDensity = Math.max(maxDensity, d);
    }
  const range = [H - M.bottom, M.top];
  const logY = scaleLog().domain([Math.max(1, minTokens === Infinity ? 1 : minTokens), Math.max(10, maxTokens)]).nice().range(range);
  const linearY = scaleLinear().domain([0, maxTokens || 1]).nice().range(range);
  const y = (t: number) => (logScale ? logY(Math.max(t, 1)) : linearY(t));
  const ticks = logScale ? logTicks(logY.domain()[0], logY.domain()[1]) : linearY.ticks(6);
  const halfWidth = Math.min(x.bandwidth() / 2, 90);
  const width = scaleLinear().domain([0, maxDensity || 1]).range([0, halfWidth]);

  const readout = (group: string, arm: Arm, v: ViolinShape) => [
    `${groupLabel(stats.groupBy, group)} · ${labels[arm]} · ${v.n} run${v.n === 1 ? '' : 's'}`,
    `median ${tokens(v.median)} tokens · Q1 ${tokens(v.q1)} · Q3 ${tokens(v.q3)} · mean ${tokens(v.mean)}`,
    `min ${tokens(v.min)} · max ${tokens(v.max)}${
      !Number.isFinite(v.bandwidth) ? '' : v.logScale ? ` · KDE bandwidth ${v.bandwidth.toFixed(3)} log10 units` : ` · KDE bandwidth ${tokens(v.bandwidth)} tokens`
    }`,
  ];

  return (
    <ChartFrame
      title="Tokens per run"
      testId="violin-chart"
      exportName={`violins-tokens-by-${stats.groupBy}`}
      svgRef={svgRef}
      csv={() => violinCsv(stats)}
      controls={
        <label className="flex items-center gap-1 text-xs text-slate-600">
          <input type="checkbox" checked={logScale} onChange={(e) => onLogScale(e.target.checked)} />
          log scale
        </label>
      }
      caption={
        <>
          Split violins of each run's own tokens (Gaussian KDE{logScale ? ' of log10 tokens' : ''}, Silverman bandwidth, cut at the
          observed range), baseline left, supervised right; solid line median, dashed lines quartiles (type 7). Grouped by{' '}
          <b>{stats.groupBy}</b>.
        </>
      }
    >
      <svg ref={svgRef} viewBox={`0 0 ${W} ${H}`} className="h-auto w-full max-w-[760px]" role="img" aria-label={`Violin plot of tokens per run by ${stats.groupBy}`} fontFamily={FONT}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} stroke={GRID} />
            <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" fontSize={11} fill={AXIS}>
              {tokenTick(t)}
            </text>
          </g>
        ))}
        <text transform={`translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)`} textAnchor="middle" fontSize={12} fill={AXIS}>
          Tokens per run (K = thousand){logScale ? ', log scale' : ''}
        </text>
        <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} stroke={AXIS} />
        {groups.map((g) => {
          const cx = x(g.group)! + x.bandwidth() / 2;
          return (
            <g key={g.group} data-testid="violin-group" data-group={g.group}>
              <text x={cx} y={H - M.bottom + 16} textAnchor="middle" fontSize={12} fill="#0f172a">
                {groupLabel(stats.groupBy, g.group)}
              </text>
              <text x={cx} y={H - M.bottom + 31} textAnchor="middle" fontSize={10} fill={AXIS}>
                n = {g.baseline.n} / {g.supervised.n}
              </text>
              {ARMS.map((arm) => {
                const v = g[arm].violin;
                if (!v) return null;
                const side = arm === 'baseline' ? -1 : 1;
                const color = ARM_COLOR[arm];
                const mark = (value: number, dashed: boolean) => {
                  const w = Math.max(width(densityAt(v, value)), 6);
                  return <line x1={cx} x2={cx + side * w} y1={y(value)} y2={y(value)} stroke="#0f172a" strokeWidth={dashed ? 1 : 2} strokeDasharray={dashed ? '4 3' : undefined} />;
                };
                const shape =
                  v.density.length > 0
                    ? area<number>()
                        .y((_, i) => y(v.grid[i]))
                        .x0(cx)
                        .x1((d) => cx + side * width(d))
                        .curve(curveMonotoneY)(v.density)
                    : null;
                return (
                  <g
                    key={arm}
                    data-testid="violin-half"
                    data-arm={arm}
                    onMouseEnter={() => setHover(readout(g.group, arm, v))}
                    onMouseLeave={() => setHover(null)}
                    style={{ cursor: 'crosshair' }}
                  >
                    <title>{readout(g.group, arm, v).join('\n')}</title>
                    {shape ? (
                      <path d={shape} fill={color} fillOpacity={0.45} stroke={color} strokeWidth={1.5} />
                    ) : (
                      <circle cx={cx + side * 6} cy={y(v.median)} r={4} fill={color} />
                    )}
                    {v.density.length > 0 && mark(v.q1, true)}
                    {v.density.length > 0 && mark(v.q3, true)}
                    {mark(v.median, false)}
                  </g>
                );
              })}
              <line x1={cx} x2={cx} y1={M.top} y2={H - M.bottom} stroke={AXIS} strokeWidth={0.5} />
            </g>
          );
        })}
        <g transform={`translate(${M.left + 8} 10)`} fontSize={11} fill="#0f172a">
          {ARMS.map((arm, i) => (
            <g key={arm} transform={`translate(${i * (armLabels ? 210 : 110)} 0)`}>
              <rect width={12} height={12} y={-1} fill={ARM_COLOR[arm]} fillOpacity={0.45} stroke={ARM_COLOR[arm]} />
              <text x={16} y={9}>
                {labels[arm]} {arm === 'baseline' ? '(left)' : '(right)'}
              </text>
            </g>
          ))}
          <g transform={`translate(${armLabels ? 430 : 250} 0)`}>
            <line x1={0} x2={16} y1={5} y2={5} stroke="#0f172a" strokeWidth={2} />
            <text x={20} y={9}>median</text>
            <line x1={74} x2={90} y1={5} y2={5} stroke="#0f172a" strokeDasharray="4 3" />
            <text x={94} y={9}>quartiles</text>
          </g>
        </g>
      </svg>
      <HoverReadout lines={hover} />
    </ChartFrame>
  );
}
