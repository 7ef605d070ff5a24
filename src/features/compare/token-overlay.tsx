// Cumulative tokens of both runs over the aligned rows, one playhead line, intervention markers on each curve.
// Clicking the chart moves the playhead. The x axis is the alignment row, so matched steps sit at the same x.
import { line, scaleLinear } from 'd3';
import { useMemo, useState } from 'react';
import { interventionCount, sideAt, type Alignment, type CompareRun } from './compare-model.ts';
import { AXIS, count, FONT, GRID, INTERVENTION_COLOR, RUN_COLOR } from './compare-colors.ts';
import { compact } from '../../ui/format.ts';
import { useElementWidth } from '../../ui/use-element-width.ts';

/**
 * The chart is drawn at the width of its panel, in pixels (text stays 11–12 px at any width); before the panel is
 * measured, and never narrower than, MIN_WIDTH. Drawn in a 900-wide viewBox scaled to the panel and capped at 1,100 px,
 * it left a third of a 1920-wide panel empty and grew its text with the page.
 */
const MIN_WIDTH = 480;
const H = 240;
const M = { top: 14, right: 20, bottom: 36, left: 64 };

export function TokenOverlay({ a, b, alignment, row, onRow }: { a: CompareRun; b: CompareRun; alignment: Alignment; row: number; onRow(row: number): void }) {
  const [hover, setHover] = useState<number | null>(null);
  const [box, measured] = useElementWidth<HTMLDivElement>();
  const W = Math.max(MIN_WIDTH, measured);
  const rows = alignment.rows;
  const n = rows.length;
  // What does not move with the playhead or the pointer, worked out once per pair (the curves once per width too, and
  // not before the panel is measured): at a million rows the two curves and the markers were passes over every row at
  // each key press and each pointer move (tasks of ~150 ms).
  const markers = useMemo(() => {
    const markersOf = (side: 'a' | 'b', run: CompareRun) => {
      const out: { row: number; cumulative: number; count: number; step: number }[] = [];
      if (run.interventions.size === 0) return out;
      const column = rows[side];
      for (let i = 0; i < n; i++) {
        const p = column[i];
        const count = p >= 0 ? interventionCount(run, p) : 0;
        if (count > 0) out.push({ row: i, cumulative: run.cumulative[p], count, step: p });
      }
      return out;
    };
    return { a: markersOf('a', a), b: markersOf('b', b) };
  }, [a, b, rows, n]);
  const { x, y, paths } = useMemo(() => {
    const x = scaleLinear().domain([0, Math.max(1, n - 1)]).range([M.left, W - M.right]);
    const y = scaleLinear().domain([0, Math.max(1, a.total, b.total)]).nice().range([H - M.bottom, M.top]);
    if (measured === 0) return { x, y, paths: { a: '', b: '' } };
    // Cumulative of each side at each row (a side in a gap holds its previous value), sampled to ≤ 1 point per pixel.
    const stride = Math.max(1, Math.ceil(n / (W - M.left - M.right)));
    const series = (side: 'a' | 'b', run: CompareRun) => {
      const points: [number, number][] = [];
      let last = 0;
      const column = rows[side];
      for (let r = 0; r < n; r++) {
        const p = column[r];
        if (p >= 0) last = run.cumulative[p];
        if (r % stride === 0 || r === n - 1) points.push([r, last]);
      }
      return line<[number, number]>().x((d) => x(d[0])).y((d) => y(d[1]))(points) ?? '';
    };
    return { x, y, paths: { a: series('a', a), b: series('b', b) } };
  }, [a, b, rows, n, W, measured]);
  // The markers as elements, made once too (a supervised run can have thousands).
  const markerPaths = useMemo(
    () =>
      measured === 0 ? [] : (['a', 'b'] as const).map((side) =>
        markers[side].map((m) => (
          <path key={`${side}${m.row}`} d={`M${x(m.row) - 5},${y(m.cumulative) - 11} h10 l-5,8 z`} fill={INTERVENTION_COLOR} stroke={RUN_COLOR[side]} data-testid="intervention-marker">
            <title>{`${side.toUpperCase()} step ${m.step + 1}: ${m.count} intervention${m.count === 1 ? '' : 's'}`}</title>
          </path>
        )),
      ),
    [markers, x, y, measured],
  );
  const rowFromEvent = (e: React.MouseEvent<SVGRectElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const vx = M.left + ((e.clientX - box.left) / box.width) * (W - M.left - M.right);
    return Math.max(0, Math.min(n - 1, Math.round(x.invert(vx))));
  };
  const readoutRow = hover ?? row;
  const pa = sideAt(rows, readoutRow, 'a');
  const pb = sideAt(rows, readoutRow, 'b');
  const ca = pa === null ? 0 : a.cumulative[pa];
  const cb = pb === null ? 0 : b.cumulative[pb];
  return (
    <section className="rounded border border-slate-200 bg-white" aria-label="Cumulative tokens" data-testid="token-overlay">
      <header className="flex flex-wrap items-center gap-3 border-b border-slate-200 px-3 py-1.5 text-xs">
        <h3 className="text-sm font-semibold text-slate-800">Cumulative tokens</h3>
        <span className="flex items-center gap-1"><span className="inline-block h-0.5 w-5" style={{ background: RUN_COLOR.a }} /> A</span>
        {/* Dashed as its curve is: the two runs apart without their colours too. */}
        <span className="flex items-center gap-1"><span className="inline-block w-5 border-t-2 border-dashed" style={{ borderColor: RUN_COLOR.b }} data-testid="overlay-legend-b" /> B</span>
        <span className="flex items-center gap-1"><span style={{ color: INTERVENTION_COLOR }}>▼</span> intervention</span>
        <span className="ml-auto tabular-nums text-slate-700" data-testid="overlay-readout">
          row {readoutRow + 1}: A {count(ca)} · B {count(cb)} tokens · B − A {cb - ca >= 0 ? '+' : '−'}{count(Math.abs(cb - ca))}
        </span>
      </header>
      <div ref={box} className="overflow-hidden">
      <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} className="block" role="img" aria-label="Cumulative tokens of run A and run B by aligned step" fontFamily={FONT}>
        {y.ticks(5).map((t) => (
          <g key={t}>
            <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} stroke={GRID} />
            {/* Compact (120k, 1.2M): six-digit counts in full ran into the axis title beside them. */}
            <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" fontSize={11} fill={AXIS} data-testid="overlay-y-tick">{compact(t)}</text>
          </g>
        ))}
        {/* Ticks on the rows' own numbers (1-based): 20,000, not 20001. */}
        {x.copy().domain(x.domain().map((d) => d + 1)).ticks(8).filter((t) => Number.isInteger(t)).map((t) => (
          // A label at the right end ends there: centred, "1,000,000" ran past the chart's edge and was cut.
          <text key={t} x={x(t - 1)} y={H - M.bottom + 14} textAnchor={x(t - 1) > W - M.right - 30 ? 'end' : 'middle'} fontSize={11} fill={AXIS} data-testid="overlay-x-tick">{count(t)}</text>
        ))}
        <text x={(M.left + W - M.right) / 2} y={H - 6} textAnchor="middle" fontSize={12} fill={AXIS}>
          Aligned step ({alignment.mode === 'lcs' ? 'matched steps share a row' : 'step index'})
        </text>
        <text transform={`translate(14 ${(M.top + H - M.bottom) / 2}) rotate(-90)`} textAnchor="middle" fontSize={12} fill={AXIS} data-testid="overlay-y-title">Tokens (cumulative)</text>
        <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} stroke={AXIS} />
        <path d={paths.a} fill="none" stroke={RUN_COLOR.a} strokeWidth={2} />
        <path d={paths.b} fill="none" stroke={RUN_COLOR.b} strokeWidth={2} strokeDasharray="6 3" />
        {markerPaths}
        <line x1={x(row)} x2={x(row)} y1={M.top} y2={H - M.bottom} stroke="#0f172a" strokeWidth={1.5} data-testid="overlay-playhead" />
        <rect
          x={M.left}
          y={M.top}
          width={W - M.left - M.right}
          height={H - M.top - M.bottom}
          fill="transparent"
          style={{ cursor: 'pointer' }}
          onMouseMove={(e) => setHover(rowFromEvent(e))}
          onMouseLeave={() => setHover(null)}
          onClick={(e) => onRow(rowFromEvent(e))}
          data-export="skip"
        />
      </svg>
      </div>
    </section>
  );
}
