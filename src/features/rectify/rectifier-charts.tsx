// The rectifier's corpus charts (AgentDropoutV2 Figures 3 and 4), drawn as SVG with d3 scales: per dataset, the share
// of audited messages that passed at the 1st / 2nd / 3rd … attempt or were rejected; and the pairwise Jaccard overlap of
// the datasets' ten most often retrieved indicators.
import { scaleBand, scaleLinear } from 'd3';
import type { OverlapMatrix, RoundDistribution } from '../../engine/rectifier/index.ts';
import { ChartFrame, HoverReadout, useHover, useSvgRef } from '../../ui/chart/chart-frame.tsx';
import { AXIS, FONT } from '../../ui/chart/chart-style.ts';
import { maxOf } from '../../model/large-arrays.ts';

const PASS_COLORS = ['#1a9850', '#91cf60', '#d9ef8b', '#fee08b', '#fdae61'];
const REJECT_COLOR = '#d73027';
const ordinal = (k: number) => `${k}${k === 1 ? 'st' : k === 2 ? 'nd' : k === 3 ? 'rd' : 'th'}`;

export function roundsCsv(rounds: readonly RoundDistribution[]): string {
  const k = maxOf(rounds.map((r) => r.passAt.length), 0);
  const head = ['dataset', 'messages', ...Array.from({ length: k }, (_, i) => `pass_at_${i + 1}`), 'rejected'];
  return [head.join(','), ...rounds.map((r) => [JSON.stringify(r.dataset), r.messages, ...Array.from({ length: k }, (_, i) => r.passAt[i] ?? 0), r.rejected].join(','))].join('\n') + '\n';
}

export function RoundDistributionChart({ rounds }: { rounds: readonly RoundDistribution[] }) {
  const svgRef = useSvgRef();
  const [hover, setHover] = useHover();
  const k = maxOf(rounds.map((r) => r.passAt.length), 1);
  const categories = [...Array.from({ length: k }, (_, i) => ({ label: `Pass @ ${ordinal(i + 1)}`, color: PASS_COLORS[Math.min(i, PASS_COLORS.length - 1)] })), { label: 'Rejected', color: REJECT_COLOR }];
  const width = 640;
  const left = 140;
  const rowH = 26;
  const top = 34;
  const height = top + rounds.length * rowH + 28;
  const x = scaleLinear().domain([0, 1]).range([left, width - 16]);
  const y = scaleBand<string>().domain(rounds.map((r) => r.dataset)).range([top, top + rounds.length * rowH]).padding(0.2);
  return (
    <ChartFrame
      title="Rectification rounds"
      caption="Share of audited agent messages per dataset that passed at the k-th attempt or were rejected after T_max (AgentDropoutV2 Figure 3)."
      exportName="rectification-rounds"
      csv={() => roundsCsv(rounds)}
      svgRef={svgRef}
      testId="round-distribution"
    >
      <svg ref={svgRef} width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Rectification rounds per dataset" fontFamily={FONT} fontSize={11}>
        {categories.map((c, i) => (
          <g key={c.label} transform={`translate(${left + i * 100},8)`}>
            <rect width={10} height={10} fill={c.color} />
            <text x={14} y={9} fill={AXIS}>
              {c.label}
            </text>
          </g>
        ))}
        {rounds.map((r) => {
          const values = [...Array.from({ length: k }, (_, i) => r.passAt[i] ?? 0), r.rejected];
          let acc = 0;
          return (
            <g key={r.dataset} data-testid="round-row" data-dataset={r.dataset}>
              <text x={left - 6} y={(y(r.dataset) ?? 0) + y.bandwidth() / 2 + 4} textAnchor="end" fill={AXIS}>
                {r.dataset.length > 20 ? `${r.dataset.slice(0, 19)}…` : r.dataset} ({r.messages})
              </text>
              {values.map((v, i) => {
                const x0 = x(acc / r.messages);
                acc += v;
                const w = x(acc / r.messages) - x0;
                if (v === 0) return null;
                const pct = (100 * v) / r.messages;
                return (
                  <rect
                    key={i}
                    data-testid="round-segment"
                    data-category={categories[i].label}
                    data-count={v}
                    x={x0}
                    y={y(r.dataset)}
                    width={Math.max(0, w)}
                    height={y.bandwidth()}
                    fill={categories[i].color}
                    onMouseEnter={() => setHover([`${r.dataset}: ${categories[i].label}`, `${v} of ${r.messages} messages (${pct.toFixed(1)}%)`])}
                    onMouseLeave={() => setHover(null)}
                  >
                    <title>{`${categories[i].label}: ${v} (${pct.toFixed(1)}%)`}</title>
                  </rect>
                );
              })}
            </g>
          );
        })}
        <g transform={`translate(0,${top + rounds.length * rowH + 4})`}>
          {[0, 0.25, 0.5, 0.75, 1].map((t) => (
            <text key={t} x={x(t)} y={12} textAnchor="middle" fill={AXIS}>
              {t * 100}%
            </text>
          ))}
        </g>
      </svg>
      <HoverReadout lines={hover} />
    </ChartFrame>
  );
}

export function overlapCsv(m: OverlapMatrix): string {
  return [['dataset', ...m.datasets.map((d) => JSON.stringify(d))].join(','), ...m.datasets.map((d, i) => [JSON.stringify(d), ...m.values[i].map((v) => v.toFixed(4))].join(','))].join('\n') + '\n';
}

export function OverlapHeatmap({ overlap, top }: { overlap: OverlapMatrix; top: readonly { dataset: string; indicators: { name: string; count: number }[] }[] }) {
  const svgRef = useSvgRef();
  const [hover, setHover] = useHover();
  const n = overlap.datasets.length;
  const cell = Math.max(28, Math.min(60, Math.floor(420 / Math.max(1, n))));
  const left = 140;
  const topPad = 110;
  const width = left + n * cell + 20;
  const height = topPad + n * cell + 10;
  const color = scaleLinear<string>().domain([0, 1]).range(['#f8fafc', '#3730a3']);
  return (
    <ChartFrame
      title="Indicator overlap"
      caption="Jaccard similarity between the sets of the ten most often retrieved indicators of each dataset (AgentDropoutV2 Figure 4)."
      exportName="indicator-overlap"
      csv={() => overlapCsv(overlap)}
      svgRef={svgRef}
      testId="overlap-heatmap"
    >
      <svg ref={svgRef} width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Indicator overlap heatmap" fontFamily={FONT} fontSize={11}>
        {overlap.datasets.map((d, i) => (
          <g key={d}>
            <text x={left - 6} y={topPad + i * cell + cell / 2 + 4} textAnchor="end" fill={AXIS}>
              {d.length > 20 ? `${d.slice(0, 19)}…` : d}
            </text>
            <text transform={`translate(${left + i * cell + cell / 2 + 4},${topPad - 6}) rotate(-45)`} fill={AXIS}>
              {d.length > 20 ? `${d.slice(0, 19)}…` : d}
            </text>
          </g>
        ))}
        {overlap.values.map((row, i) =>
          row.map((v, j) => (
            <g key={`${i}-${j}`}>
              <rect
                data-testid="overlap-cell"
                data-value={v.toFixed(4)}
                x={left + j * cell}
                y={topPad + i * cell}
                width={cell - 1}
                height={cell - 1}
                fill={color(v)}
                onMouseEnter={() => {
                  const a = new Set(top[i]?.indicators.map((x) => x.name));
                  const shared = (top[j]?.indicators ?? []).filter((x) => a.has(x.name)).map((x) => x.name);
                  setHover([`${overlap.datasets[i]} × ${overlap.datasets[j]}: Jaccard ${v.toFixed(2)}`, shared.length ? `shared: ${shared.join(', ')}` : 'no shared indicator']);
                }}
                onMouseLeave={() => setHover(null)}
              />
              <text x={left + j * cell + cell / 2} y={topPad + i * cell + cell / 2 + 4} textAnchor="middle" fill={v > 0.5 ? '#fff' : '#0f172a'} pointerEvents="none">
                {v.toFixed(2)}
              </text>
            </g>
          )),
        )}
      </svg>
      <HoverReadout lines={hover} />
    </ChartFrame>
  );
}
