// The alignment at a glance: run A's steps on the top track, run B's on the bottom one, each at its own scale,
// and a connector for every matched pair. Crossing-free by construction (an LCS keeps order). Click to move there.
import { scaleLinear } from 'd3';
import type { Alignment, CompareRun } from './compare-model.ts';
import { AXIS, FONT, RUN_COLOR } from './compare-colors.ts';

const W = 900;
const H = 86;
const TOP = 20;
const BOTTOM = 66;
const MAX_CONNECTORS = 1500;

export function AlignmentStrip({ a, b, alignment, row, onRow }: { a: CompareRun; b: CompareRun; alignment: Alignment; row: number; onRow(row: number): void }) {
  const xa = scaleLinear().domain([0, Math.max(1, a.steps.length - 1)]).range([40, W - 10]);
  const xb = scaleLinear().domain([0, Math.max(1, b.steps.length - 1)]).range([40, W - 10]);
  const matchedRows = alignment.rows.flatMap((r, i) => (r.matched ? [i] : []));
  const stride = Math.max(1, Math.ceil(matchedRows.length / MAX_CONNECTORS));
  const current = alignment.rows[row];
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-label={`Alignment: ${alignment.matched} matched steps`} fontFamily={FONT} data-testid="alignment-strip">
      <text x={4} y={TOP + 4} fontSize={12} fontWeight={600} fill={RUN_COLOR.a}>A</text>
      <text x={4} y={BOTTOM + 4} fontSize={12} fontWeight={600} fill={RUN_COLOR.b}>B</text>
      <line x1={40} x2={W - 10} y1={TOP} y2={TOP} stroke={RUN_COLOR.a} strokeWidth={3} />
      <line x1={40} x2={W - 10} y1={BOTTOM} y2={BOTTOM} stroke={RUN_COLOR.b} strokeWidth={3} />
      {matchedRows.filter((_, k) => k % stride === 0).map((i) => {
        const r = alignment.rows[i];
        return (
          <line key={i} x1={xa(r.a!)} y1={TOP + 2} x2={xb(r.b!)} y2={BOTTOM - 2} stroke="#94a3b8" strokeWidth={1} onClick={() => onRow(i)} style={{ cursor: 'pointer' }} data-testid="connector">
            <title>{`A step ${r.a! + 1} ↔ B step ${r.b! + 1}`}</title>
          </line>
        );
      })}
      {current && current.a !== null && <circle cx={xa(current.a)} cy={TOP} r={5} fill={RUN_COLOR.a} stroke="#fff" />}
      {current && current.b !== null && <circle cx={xb(current.b)} cy={BOTTOM} r={5} fill={RUN_COLOR.b} stroke="#fff" />}
      {current?.matched && <line x1={xa(current.a!)} y1={TOP} x2={xb(current.b!)} y2={BOTTOM} stroke="#0f172a" strokeWidth={2} />}
      <text x={W - 10} y={H - 2} textAnchor="end" fontSize={10} fill={AXIS}>
        {alignment.matched.toLocaleString('en')} matched of {a.steps.length.toLocaleString('en')} / {b.steps.length.toLocaleString('en')} steps
      </text>
    </svg>
  );
}
