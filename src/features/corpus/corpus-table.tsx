// The runs of the corpus as a virtualised, sortable table: only the rows in view are in the DOM, so 10k runs scroll
// as smoothly as 10. A row opens its run; two ticked rows open side by side in the compare view.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { groupKey, hasTokenCount, NO_TOKEN_COUNT, type RunMetrics } from '../../model/statistics.ts';
import { Badge, OutcomeBadge, SimulatedBadge } from '../../ui/badge.tsx';
import { tokens } from '../../ui/chart/chart-style.ts';
import type { CorpusQuery, SortKey } from './corpus-filter.ts';

const ROW_HEIGHT = 34;
const COLUMNS = '28px minmax(12rem,2fr) minmax(10rem,2fr) 7rem 4rem 6rem 6rem 6rem 4rem 6rem 6rem 5rem';

interface Column {
  key: SortKey | null;
  label: string;
  numeric?: boolean;
  title?: string;
}

export function CorpusTable({
  runs,
  query,
  onSort,
  selected,
  onToggle,
  onOpen,
}: {
  runs: RunMetrics[];
  query: CorpusQuery;
  onSort(key: SortKey): void;
  selected: string[];
  onToggle(id: string): void;
  onOpen(id: string): void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: runs.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const groupColumn = query.groupBy !== 'dataset' && query.groupBy !== 'level';
  const columns: Column[] = [
    { key: null, label: '' },
    { key: 'title', label: 'Run' },
    { key: 'task', label: 'Task' },
    { key: groupColumn ? 'group' : 'dataset', label: groupColumn ? query.groupBy : 'Dataset' },
    { key: 'level', label: 'Level' },
    { key: 'arm', label: 'Arm' },
    { key: 'outcome', label: 'Outcome' },
    { key: 'steps', label: 'Steps', numeric: true },
    { key: 'interventions', label: 'Int.', numeric: true, title: 'Interventions recorded on the run' },
    { key: 'tokens', label: 'Tokens', numeric: true, title: "Sum of the run's own model-call tokens" },
    { key: 'overhead', label: 'Overhead', numeric: true, title: 'Tokens the supervisor (any engine) spent on the run' },
    { key: null, label: 'Net', numeric: true },
  ];
  const ariaSort = (key: SortKey | null) => (key && query.sort === key ? (query.descending ? 'descending' : 'ascending') : undefined);
  return (
    <div role="table" aria-label="Runs of the corpus" aria-rowcount={runs.length + 1} className="rounded border border-slate-200 bg-white text-sm" data-testid="corpus-table">
      <div role="rowgroup">
        <div role="row" className="grid border-b border-slate-200 text-xs text-slate-500" style={{ gridTemplateColumns: COLUMNS }}>
          {columns.map((c, i) => (
            <div key={i} role="columnheader" aria-sort={ariaSort(c.key)} className={`px-2 py-1.5 font-medium ${c.numeric ? 'text-right' : ''}`} title={c.title}>
              {c.key ? (
                <button type="button" className="uppercase hover:text-indigo-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500" onClick={() => onSort(c.key!)}>
                  {c.label}
                  {query.sort === c.key ? (query.descending ? ' ▼' : ' ▲') : ''}
                </button>
              ) : (
                <span className="uppercase">{c.label}</span>
              )}
            </div>
          ))}
        </div>
      </div>
      <div ref={scroller} className="max-h-[420px] overflow-auto" role="rowgroup">
        {runs.length === 0 && <p className="p-3 text-sm text-slate-500">No run matches the filters.</p>}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const r = runs[item.index];
            const checked = selected.includes(r.id);
            return (
              <div
                key={r.id}
                role="row"
                aria-rowindex={item.index + 2}
                data-testid="corpus-row"
                data-run-id={r.id}
                className={`absolute left-0 grid w-full items-center border-b border-slate-100 hover:bg-slate-50 ${checked ? 'bg-indigo-50' : ''}`}
                style={{ gridTemplateColumns: COLUMNS, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
              >
                <div role="cell" className="px-2">
                  <input type="checkbox" checked={checked} onChange={() => onToggle(r.id)} aria-label={`Select ${r.title || r.id} to compare`} />
                </div>
                <div role="cell" className="flex min-w-0 items-center gap-1 px-2">
                  <button type="button" className="truncate text-left font-medium text-indigo-700 hover:underline" onClick={() => onOpen(r.id)} title={r.title || r.id}>
                    {r.title || r.id}
                  </button>
                  {r.simulated && <SimulatedBadge />}
                  {r.shadowOf && (
                    <Badge tone="warning" title="Counterfactual: the supervisor replayed offline on the recorded run; tokens are an estimate, the outcome is unknown">
                      estimate
                    </Badge>
                  )}
                </div>
                <div role="cell" className="truncate px-2 text-slate-700" title={r.task}>{r.task || '—'}</div>
                <div role="cell" className="truncate px-2 text-slate-700">{groupColumn ? groupKey(r, query.groupBy) : (r.tags.dataset ?? '—')}</div>
                <div role="cell" className="px-2 text-slate-700">{r.tags.level ?? '—'}</div>
                <div role="cell" className="px-2 text-slate-700" data-testid="corpus-arm">{r.arm ?? r.tags.arm ?? 'other'}</div>
                <div role="cell" className="px-2"><OutcomeBadge outcome={r.outcome} /></div>
                <div role="cell" className="px-2 text-right tabular-nums">{tokens(r.steps)}</div>
                <div role="cell" className="px-2 text-right tabular-nums">{tokens(r.interventions)}</div>
                {!hasTokenCount(r) ? (
                  // A benchmark's result line recorded no model calls: its 0 tokens would read as a measurement.
                  <>
                    <div role="cell" className="px-2 text-right text-slate-400" data-testid="corpus-tokens" data-none="" title={NO_TOKEN_COUNT}>—</div>
                    <div role="cell" className="px-2 text-right text-slate-400" title={NO_TOKEN_COUNT}>—</div>
                    <div role="cell" className="px-2 text-right text-slate-400" title={NO_TOKEN_COUNT}>—</div>
                  </>
                ) : (
                  <>
                    <div role="cell" className="px-2 text-right tabular-nums" data-testid="corpus-tokens" title={r.tokensEstimated ? 'some counted by a tokenizer' : undefined}>
                      {r.tokensEstimated ? '≈' : ''}{tokens(r.tokens)}
                    </div>
                    <div role="cell" className="px-2 text-right tabular-nums">{tokens(r.overhead)}</div>
                    {/* The net holds the run's own tokens: estimated when they are. */}
                    <div role="cell" className="px-2 text-right tabular-nums" data-testid="corpus-net" title={r.tokensEstimated ? 'some counted by a tokenizer' : undefined}>
                      {r.tokensEstimated ? '≈' : ''}{tokens(r.tokens + r.overhead)}
                    </div>
                  </>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
