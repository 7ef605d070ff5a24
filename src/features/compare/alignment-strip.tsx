// The alignment at a glance: run A's steps on the top track, run B's on the bottom one, each at its own scale,
// and a connector for every matched pair. Crossing-free by construction (an LCS keeps order). Click to move there.
import { scaleLinear } from 'd3';
import { useLayoutEffect, useMemo, useRef, type ReactElement } from 'react';
import { rowAt, type Alignment, type CompareRun } from './compare-model.ts';
import { AXIS, FONT, RUN_COLOR } from './compare-colors.ts';

const W = 900;
const H = 86;
const TOP = 20;
const BOTTOM = 66;
const MAX_CONNECTORS = 1500;

export function AlignmentStrip({ a, b, alignment, row, onRow }: { a: CompareRun; b: CompareRun; alignment: Alignment; row: number; onRow(row: number): void }) {
  // A click reads the latest callback; the connectors themselves are made once per pair, not at each move of the
  // playhead (at a million rows, a pass that made an array per row: part of a ~150 ms task at each key press).
  const onRowNow = useRef(onRow);
  useLayoutEffect(() => {
    onRowNow.current = onRow;
  });
  const { xa, xb, connectors } = useMemo(() => {
    const xa = scaleLinear().domain([0, Math.max(1, a.units.length - 1)]).range([40, W - 10]);
    const xb = scaleLinear().domain([0, Math.max(1, b.units.length - 1)]).range([40, W - 10]);
    const rows = alignment.rows;
    const stride = Math.max(1, Math.ceil(alignment.matched / MAX_CONNECTORS));
    const connectors: ReactElement[] = [];
    for (let i = 0, k = 0; i < rows.length; i++) {
      if (rows.matched[i] !== 1 || k++ % stride !== 0) continue;
      const ra = rows.a[i];
      const rb = rows.b[i];
      connectors.push(
        <line key={i} x1={xa(ra)} y1={TOP + 2} x2={xb(rb)} y2={BOTTOM - 2} stroke="#94a3b8" strokeWidth={1} onClick={() => onRowNow.current(i)} style={{ cursor: 'pointer' }} data-testid="connector">
          <title>{`A step ${ra + 1} ↔ B step ${rb + 1}`}</title>
        </line>,
      );
    }
    return { xa, xb, connectors };
  }, [a, b, alignment]);
  const current = rowAt(alignment.rows, row);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-label={`Alignment: ${alignment.matched} matched steps`} fontFamily={FONT} data-testid="alignment-strip">
      <text x={4} y={TOP + 4} fontSize={12} fontWeight={600} fill={RUN_COLOR.a}>A</text>
      <text x={4} y={BOTTOM + 4} fontSize={12} fontWeight={600} fill={RUN_COLOR.b}>B</text>
      <line x1={40} x2={W - 10} y1={TOP} y2={TOP} stroke={RUN_COLOR.a} strokeWidth={3} />
      <line x1={40} x2={W - 10} y1={BOTTOM} y2={BOTTOM} stroke={RUN_COLOR.b} strokeWidth={3} />
      {connectors}
      {current && current.a !== null && <circle cx={xa(current.a)} cy={TOP} r={5} fill={RUN_COLOR.a} stroke="#fff" />}
      {current && current.b !== null && <circle cx={xb(current.b)} cy={BOTTOM} r={5} fill={RUN_COLOR.b} stroke="#fff" />}
      {current?.matched && <line x1={xa(current.a!)} y1={TOP} x2={xb(current.b!)} y2={BOTTOM} stroke="#0f172a" strokeWidth={2} />}
      <text x={W - 10} y={H - 2} textAnchor="end" fontSize={10} fill={AXIS}>
        {alignment.matched.toLocaleString('en')} matched of {a.units.length.toLocaleString('en')} / {b.units.length.toLocaleString('en')} steps
      </text>
    </svg>
  );
}
