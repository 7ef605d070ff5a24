// Agent selection by stage and layer: columns are stages, rows are (layer, agent) pairs, the colour is the recorded
// selection probability or, for derived stages, the observed frequency (labelled as such). Instantiated agents carry a
// dot; the current stage's column is outlined. Clicking a column moves the playhead to that stage.
import { interpolateBlues, scaleSequential } from 'd3';
import { memo } from 'react';
import type { StageViewModel } from './stage-view-model.ts';

const CELL_W = 34;
const CELL_H = 18;
const LABEL_W = 150;
const TOP = 22;

/** Memoised: the playhead moves every step, the stage only at its borders. */
export const SelectionHeatmap = memo(function SelectionHeatmap({ model, current, onPick }: { model: StageViewModel; current: number; onPick: (column: number) => void }) {
  const { matrix, columns, agentName } = model;
  // Rows: per layer, the agents that appear in it in any stage.
  const rows: { layer: number; agent: number }[] = [];
  for (let l = 0; l < matrix.layers; l++)
    for (let a = 0; a < matrix.agents.length; a++) if (matrix.value.some((st) => !Number.isNaN(st[l][a]))) rows.push({ layer: l, agent: a });
  const color = scaleSequential(interpolateBlues).domain([0, 1]);
  const width = LABEL_W + columns.length * CELL_W + 4;
  const height = TOP + rows.length * CELL_H + 4;
  const label = matrix.measure === 'probability' ? 'selection probability (recorded)' : 'observed share of turns (frequency, not a probability)';

  return (
    <section data-testid="selection-heatmap" data-measure={matrix.measure} className="rounded border border-slate-200 bg-white p-3">
      <header className="mb-1 flex flex-wrap items-baseline gap-x-3">
        <h3 className="text-sm font-semibold text-slate-900">Agent selection by stage and layer</h3>
        <p className="text-xs text-slate-600">colour: {label}; dot: instantiated</p>
      </header>
      {rows.length === 0 ? (
        <p className="text-xs text-slate-500">No stage lists any agent.</p>
      ) : (
        <div className="overflow-x-auto">
          <svg role="img" aria-label={`Heatmap of ${label}`} width={width} height={height}>
            {columns.map((st, c) => (
              <g key={st.id} data-testid="heatmap-column" data-stage={st.id} data-current={c === current || undefined} className="cursor-pointer" onClick={() => onPick(c)}>
                <text x={LABEL_W + c * CELL_W + CELL_W / 2} y={14} textAnchor="middle" className={`text-[10px] ${c === current ? 'fill-indigo-700 font-semibold' : 'fill-slate-500'}`}>
                  {st.closing ? 'end' : `S${c + 1}`}
                </text>
                {rows.map((r, i) => {
                  const v = matrix.value[c][r.layer][r.agent];
                  const x = LABEL_W + c * CELL_W;
                  const y = TOP + i * CELL_H;
                  return (
                    <g key={i}>
                      <title>{`${st.closing ? 'closing state' : `stage ${c + 1}`}, layer ${r.layer + 1}, ${agentName(matrix.agents[r.agent])}: ${Number.isNaN(v) ? 'not listed' : v.toFixed(2)}`}</title>
                      <rect x={x + 1} y={y + 1} width={CELL_W - 2} height={CELL_H - 2} fill={Number.isNaN(v) ? '#f8fafc' : color(v)} stroke="#e2e8f0" />
                      {matrix.selected[c][r.layer][r.agent] && <circle cx={x + CELL_W / 2} cy={y + CELL_H / 2} r={2.5} fill={!Number.isNaN(v) && v > 0.55 ? 'white' : '#1e293b'} />}
                    </g>
                  );
                })}
                {c === current && <rect x={LABEL_W + c * CELL_W} y={TOP - 2} width={CELL_W} height={rows.length * CELL_H + 4} fill="none" stroke="#4f46e5" strokeWidth={2} />}
              </g>
            ))}
            {rows.map((r, i) => (
              <text key={i} x={LABEL_W - 6} y={TOP + i * CELL_H + 12.5} textAnchor="end" className="fill-slate-700 text-[10px]">
                {`L${r.layer + 1} · ${clip(agentName(matrix.agents[r.agent]), 20)}`}
              </text>
            ))}
          </svg>
        </div>
      )}
    </section>
  );
});

const clip = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
