// Both runs' steps in aligned rows (virtualised): A on the left, B on the right, a connector between matched steps,
// a gap where one run has a step the other lacks. The playhead row is highlighted and kept in view.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { compareStep, rowAt, type Alignment, type CompareRun, type CompareStep } from './compare-model.ts';
import { count, INTERVENTION_COLOR, RUN_COLOR } from './compare-colors.ts';

const ROW = 30;

function Cell({ step, side }: { step: CompareStep | null; side: 'a' | 'b' }) {
  if (!step) return <div className="px-2 text-xs text-slate-400 italic">— no step —</div>;
  return (
    <div className="flex min-w-0 items-center gap-2 px-2 text-xs">
      <span className="w-10 shrink-0 text-right tabular-nums text-slate-500">#{step.position + 1}</span>
      <span className="shrink-0 font-medium" style={{ color: RUN_COLOR[side] }}>{step.agentName}</span>
      <span className="min-w-0 truncate text-slate-700" title={step.action}>{step.action}</span>
      {step.step.error && <span className="shrink-0 rounded bg-red-50 px-1 text-red-700">error</span>}
      {step.interventions.length > 0 && (
        <span className="shrink-0" style={{ color: INTERVENTION_COLOR }} title={`${step.interventions.length} intervention(s)`}>▼{step.interventions.length}</span>
      )}
      <span className="ml-auto shrink-0 tabular-nums text-slate-600">{count(step.tokens)}</span>
    </div>
  );
}

export function AlignedList({ a, b, alignment, row, onRow }: { a: CompareRun; b: CompareRun; alignment: Alignment; row: number; onRow(row: number): void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: alignment.rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 10 });
  useEffect(() => {
    virtualizer.scrollToIndex(row, { align: 'auto' });
  }, [row, virtualizer]);
  return (
    <div className="rounded border border-slate-200 bg-white" data-testid="aligned-list">
      <div className="grid grid-cols-[1fr_48px_1fr] border-b border-slate-200 text-xs font-semibold text-slate-600">
        <div className="px-2 py-1" style={{ color: RUN_COLOR.a }}>A · step · agent · action · tokens</div>
        <div />
        <div className="px-2 py-1" style={{ color: RUN_COLOR.b }}>B · step · agent · action · tokens</div>
      </div>
      <div ref={scroller} className="max-h-[360px] overflow-auto" role="listbox" aria-label="Aligned steps" aria-activedescendant={`compare-row-${row}`}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            // The row's two cells are made here, for the rows on screen only (model/compare-model.ts keeps columns).
            const r = rowAt(alignment.rows, item.index)!;
            const current = item.index === row;
            return (
              <div
                key={item.index}
                id={`compare-row-${item.index}`}
                role="option"
                aria-selected={current}
                data-testid="aligned-row"
                data-matched={r.matched}
                onClick={() => onRow(item.index)}
                className={`absolute left-0 grid w-full cursor-pointer grid-cols-[1fr_48px_1fr] items-center border-b border-slate-100 ${current ? 'bg-amber-50 ring-1 ring-amber-300 ring-inset' : 'hover:bg-slate-50'}`}
                style={{ height: ROW, transform: `translateY(${item.start}px)` }}
              >
                <Cell step={r.a === null ? null : compareStep(a, r.a)} side="a" />
                <svg viewBox="0 0 48 30" className="h-full w-12" aria-hidden>
                  {r.matched ? (
                    <line x1={0} x2={48} y1={15} y2={15} stroke="#0f172a" strokeWidth={2} />
                  ) : r.a !== null && r.b !== null ? (
                    <line x1={0} x2={48} y1={15} y2={15} stroke="#cbd5e1" strokeDasharray="3 3" />
                  ) : null}
                </svg>
                <Cell step={r.b === null ? null : compareStep(b, r.b)} side="b" />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
