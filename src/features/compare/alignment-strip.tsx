// The alignment at a glance: run A's steps on the top track, run B's on the bottom one, each at its own scale,
// and a connector for every matched pair. Crossing-free by construction (an LCS keeps order). Click to move there.
import { scaleLinear } from 'd3';
import { useLayoutEffect, useMemo, useRef, type ReactElement } from 'react';
import type { Alignment, CompareRun } from './compare-model.ts';
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
    const xa = scaleLinear().domain([0, Math.max(1, a.steps.length - 1)]).range([40, W - 10]);
    const xb = scaleLinear().domain([0, Math.max(1, b.steps.length - 1)]).range([40, W - 10]);
    const rows = alignment.rows;
    let matched = 0;
    for (let i = 0; i < rows.length; i++) if (rows[i].matched) matched++;
    const stride = Math.max(1, Math.ceil(matched / MAX_CONNECTORS));
    const connectors: ReactElement[] = [];
    for (let i = 0, k = 0; i < rows.length; i++) {
      const r = rows[i];
      if (!r.matched || k++ % stride !== 0) continue;
      connectors.push(
        <line key={i} x1={xa(r.a!)} y1={TOP + 2} x2={xb(r.b!)} y2={BOTTOM - 2} stroke="#94a3b8" strokeWidth={1} onClick={() => onRowNow.current(i)} style={{ cursor: 'pointer' }} data-testid="connector">
          <title>{`A step ${r.a! + 1} ↔ B step ${r.b! + 1}`}</title>
        </line>,
      );
    }
    return { xa, xb, connectors };
  }, [a, b, alignment]);
  const current = alignment.rows[row];
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
        {alignment.matched.toLocaleString('en')} matched of {a.steps.length.toLocaleString('en')} / {b.steps.length.toLocaleString('en')} steps
      </text>
    </svg>
  );
}
