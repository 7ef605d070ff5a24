// Every run of every open file in one table (SPEC §4 Library): search, filters, sort by any column, multi-select
// (compare two, export, remove with undo). Rows are virtualised above a few hundred, so 10,000 runs stay fluent.
import { useVirtualizer, type Rect, type Virtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/shallow';
import type { Run } from '../../model/types.ts';
import { hasTokenCount, NO_TOKEN_COUNT } from '../../model/statistics.ts';
import { useLibrary, type RemovedRuns } from '../../store/library.ts';
import { usePersistence } from '../../store/library-db.ts';
import { useUrl } from '../../store/url.ts';
import { Badge, EstimatedBadge, OutcomeBadge, SimulatedBadge } from '../../ui/badge.tsx';
import { EstimateBadge } from '../compare/shadow-compare.tsx';
import { Button } from '../../ui/button.tsx';
import { compact, formatCount, formatDuration } from '../../ui/format.ts';
import { callsOfRuns, exportOtlpFile, exportSessionFile, safeFileName } from './download.ts';
import { buildRows, queryRows, type LibraryRow, type Origin, type RowQuery, type SortKey } from './library-rows.ts';
import { prefetchRunPage } from '../run-view/run-page-view.ts';

const ROW_HEIGHT = 40;
/** Up to this many rows are all in the page (find-in-page works); above it only those in view are. */
export const ALL_ROWS_MAX = 200;
/**
 * A table that is all in the page mounts this many rows in its first render (the view shows ~15), then as many again
 * in each following task until every row is in: 200 rows at once (an import of 200 runs listing them) was one task of
 * 300 ms and more on this project's 2-core machine (React making ~8,000 elements, then their style, layout and paint).
 */
export const ROWS_PER_STAGE = 25;

/**
 * The scroller's size for the virtualizer, from a ResizeObserver only (it reports after the frame's layout). The
 * library's default reads the element's clientHeight when the table mounts, which forces a layout of the whole page
 * inside React's commit: ~120 ms with 200 runs listed. Until the first report the virtualizer keeps its initialRect.
 */
export function observeScrollerSize(instance: Virtualizer<HTMLDivElement, Element>, cb: (rect: Rect) => void): (() => void) | undefined {
  const element = instance.scrollElement;
  if (!element || typeof ResizeObserver !== 'function') return undefined;
  const observer = new ResizeObserver((entries) => {
    const box = entries[entries.length - 1].contentRect;
    cb({ width: Math.round(box.width), height: Math.round(box.height) });
  });
  observer.observe(element);
  return () => observer.disconnect();
}
// The columns as a class, not an inline style: an inline grid template is parsed again for every row (React sets it
// element by element), 30 ms of a 40-row stage in a profile on the 2-core machine.
// Steps fit 9,999,999; tokens an estimate of millions with its badge. The run's title gives the width back.
const COLUMNS = 'grid-cols-[28px_minmax(120px,1.2fr)_minmax(156px,2.4fr)_110px_90px_minmax(80px,1fr)_80px_132px_72px_76px_58px_58px_80px_96px]';

interface Column {
  key: SortKey;
  label: string;
  numeric?: boolean;
  title?: string;
}

const HEADERS: Column[] = [
  { key: 'file', label: 'File', title: 'The file the run came from, with its folder' },
  { key: 'run', label: 'Run' },
  { key: 'format', label: 'Format' },
  { key: 'dataset', label: 'Dataset' },
  { key: 'agents', label: 'Agents' },
  { key: 'steps', label: 'Steps', numeric: true, title: 'Steps as `inspect` counts them' },
  { key: 'tokens', label: 'Tokens', numeric: true },
  { key: 'duration', label: 'Duration', numeric: true },
  { key: 'outcome', label: 'Outcome' },
  { key: 'scores', label: 'Scores', numeric: true, title: 'Run scores (TRAIL, Langfuse, a benchmark result line …)' },
  { key: 'labels', label: 'Labels', numeric: true, title: 'Error labels and other annotations' },
  { key: 'origin', label: 'Origin', title: 'Simulated by this project, or recorded from a real system' },
];

function splitPath(name: string): { dir: string; base: string } {
  const at = name.lastIndexOf('/');
  return at < 0 ? { dir: '', base: name } : { dir: name.slice(0, at + 1), base: name.slice(at + 1) };
}

function exportRuns(runs: Run[], title: string, fileName: string): Promise<void> {
  return exportSessionFile(runs, callsOfRuns(runs, useLibrary.getState().llmCalls), fileName, title);
}

export function LibraryTable({ onRemoved, query, setQuery }: { onRemoved(removed: RemovedRuns): void; query: RowQuery; setQuery(q: RowQuery): void }) {
  const { files, runs } = useLibrary(useShallow((s) => ({ files: s.files, runs: s.runs })));
  const navigate = useUrl((s) => s.navigate);
  const rows = useMemo(() => buildRows(files, runs), [files, runs]);
  const anyRun = rows.length > 0;
  useEffect(() => {
    if (anyRun) prefetchRunPage();
  }, [anyRun]);
  const deferred = useDeferredValue(query);
  const shown = useMemo(() => queryRows(rows, deferred), [rows, deferred]);
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const live = useMemo(() => new Set(rows.map((r) => r.run.id)), [rows]);
  const chosen = [...selected].filter((id) => live.has(id));
  const formats = useMemo(() => [...new Set(files.map((f) => f.formatLabel))].sort(), [files]);
  const fileName = query.fileId ? files.find((f) => f.id === query.fileId)?.name : undefined;

  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const allShownChosen = shown.length > 0 && shown.every((r) => selected.has(r.run.id));
  const toggleAll = () => setSelected(allShownChosen ? new Set() : new Set(shown.map((r) => r.run.id)));
  const sortBy = (key: SortKey) => setQuery({ ...query, sort: key, descending: query.sort === key ? !query.descending : false });
  const chosenRuns = () => chosen.flatMap((id) => (Object.hasOwn(runs, id) ? [runs[id]] : []));
  const filtered = query.search !== '' || query.format !== '' || query.outcome !== '' || query.origin !== 'all' || query.fileId !== '';

  return (
    <section aria-label="Runs" className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <input
          type="search"
          value={query.search}
          onChange={(e) => setQuery({ ...query, search: e.target.value })}
          placeholder="Search titles, tasks, ids, files…"
          aria-label="Search runs"
          className="w-72 rounded border border-slate-300 px-2 py-1"
          data-testid="library-search"
        />
        <select aria-label="Format" value={query.format} onChange={(e) => setQuery({ ...query, format: e.target.value })} className="max-w-[16rem] rounded border border-slate-300 bg-white px-1.5 py-1">
          <option value="">All formats</option>
          {formats.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
        <select aria-label="Outcome" value={query.outcome} onChange={(e) => setQuery({ ...query, outcome: e.target.value })} className="rounded border border-slate-300 bg-white px-1.5 py-1">
          <option value="">Any outcome</option>
          <option value="success">success</option>
          <option value="failure">failure</option>
          <option value="unknown">unknown</option>
        </select>
        <select aria-label="Origin" value={query.origin} onChange={(e) => setQuery({ ...query, origin: e.target.value as Origin })} className="rounded border border-slate-300 bg-white px-1.5 py-1">
          <option value="all">Simulated and recorded</option>
          <option value="recorded">Recorded only</option>
          <option value="simulated">Simulated only</option>
        </select>
        {fileName !== undefined && (
          <Badge tone="info">
            file {fileName}{' '}
            <button type="button" className="ml-1 underline" onClick={() => setQuery({ ...query, fileId: '' })} aria-label="Show the runs of every file">
              ×
            </button>
          </Badge>
        )}
        {filtered && (
          <Button size="sm" variant="ghost" onClick={() => setQuery({ ...query, search: '', format: '', outcome: '', origin: 'all', fileId: '' })}>
            Clear filters
          </Button>
        )}
        <span className="text-slate-600" data-testid="library-shown" role="status">
          {shown.length === rows.length ? `${formatCount(rows.length)} ${rows.length === 1 ? 'run' : 'runs'}` : `${formatCount(shown.length)} of ${formatCount(rows.length)} ${rows.length === 1 ? 'run' : 'runs'}`}
        </span>
      </div>
      {chosen.length > 0 && (
        <div className="flex flex-wrap items-center gap-2 rounded border border-indigo-200 bg-indigo-50 px-3 py-1.5 text-sm" data-testid="selection-bar">
          <span>
            {chosen.length} selected
          </span>
          <Button
            size="sm"
            variant="primary"
            disabled={chosen.length !== 2}
            title={chosen.length === 2 ? 'Open the two runs side by side' : 'Select exactly two runs to compare them'}
            onClick={() => navigate('compare', { a: chosen[0], b: chosen[1] })}
          >
            Open in Compare
          </Button>
          {chosen.length !== 2 && <span className="text-xs text-slate-600">Compare needs exactly two runs.</span>}
          <Button size="sm" onClick={() => void exportRuns(chosenRuns(), `${chosen.length} runs`, 'selection.session.json')}>
            Export selected
          </Button>
          <Button
            size="sm"
            variant="danger"
            onClick={() => {
              onRemoved(useLibrary.getState().removeRuns(chosen));
              setSelected(new Set());
            }}
          >
            Remove selected
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setSelected(new Set())}>
            Clear selection
          </Button>
        </div>
      )}
      <RowGrid rows={shown} sort={query.sort} descending={query.descending} onSort={sortBy} selected={selected} onToggle={toggle} allChosen={allShownChosen} onToggleAll={toggleAll} />
    </section>
  );
}

function RowGrid({
  rows,
  sort,
  descending,
  onSort,
  selected,
  onToggle,
  allChosen,
  onToggleAll,
}: {
  rows: LibraryRow[];
  sort: SortKey;
  descending: boolean;
  onSort(key: SortKey): void;
  selected: ReadonlySet<string>;
  onToggle(id: string): void;
  allChosen: boolean;
  onToggleAll(): void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = rows.length > ALL_ROWS_MAX;
  const virtualizer = useVirtualizer({
    count: virtual ? rows.length : 0,
    // Not virtual (all rows in the page): the virtualizer observes nothing.
    enabled: virtual,
    getScrollElement: () => scroller.current,
    observeElementRect: observeScrollerSize,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    initialRect: { width: 1200, height: 600 },
  });
  const navigate = useUrl((s) => s.navigate);
  const onOpen = useCallback((id: string) => navigate('run', { run: id }), [navigate]);
  // All in the page: mounted in stages (ROWS_PER_STAGE a task), never fewer than before (a filter that shows fewer
  // rows, then more again, does not stage them anew).
  const [mounted, setMounted] = useState(ROWS_PER_STAGE);
  const staging = !virtual && mounted < rows.length;
  useEffect(() => {
    if (!staging) return;
    const next = setTimeout(() => setMounted((m) => m + ROWS_PER_STAGE), 0);
    return () => clearTimeout(next);
  }, [staging, mounted]);
  const items = virtual
    ? virtualizer.getVirtualItems().map((v) => ({ index: v.index, start: v.start }))
    : rows.slice(0, Math.min(rows.length, mounted)).map((_, index) => ({ index, start: 0 }));
  return (
    <div role="table" aria-label="Runs of every open file" aria-rowcount={rows.length + 1} className="overflow-x-auto rounded border border-slate-200 bg-white text-sm" data-testid="library-table">
      {/* Fits a 1280-wide window; narrower ones scroll sideways. */}
      <div className="min-w-[1232px]">
        <div role="rowgroup">
          <div role="row" className={`grid border-b border-slate-200 text-xs text-slate-500 ${COLUMNS}`}>
            <div role="columnheader" className="flex items-center px-2">
              <input type="checkbox" checked={allChosen} onChange={onToggleAll} aria-label="Select every run shown" />
            </div>
            {HEADERS.map((c) => (
              <div key={c.key} role="columnheader" aria-sort={sort === c.key ? (descending ? 'descending' : 'ascending') : undefined} className={`px-2 py-1.5 font-medium ${c.numeric ? 'text-right' : ''}`} title={c.title}>
                <button type="button" className="uppercase hover:text-indigo-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500" onClick={() => onSort(c.key)}>
                  {c.label}
                  {sort === c.key ? (descending ? ' ▼' : ' ▲') : ''}
                </button>
              </div>
            ))}
            <div role="columnheader" className="px-2 py-1.5">
              <span className="sr-only">Actions</span>
            </div>
          </div>
        </div>
        <div ref={scroller} className="max-h-[65vh] overflow-y-auto" role="rowgroup">
          {rows.length === 0 && <p className="p-3 text-sm text-slate-500">No run matches the search and filters.</p>}
          <div style={virtual ? { height: virtualizer.getTotalSize(), position: 'relative' } : undefined}>
            {items.map(({ index, start }) => {
              const r = rows[index];
              return (
                <Row key={r.run.id} row={r} index={index} virtual={virtual} start={start} checked={selected.has(r.run.id)} onToggle={onToggle} onOpen={onOpen} />
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}

/**
 * A row that is all in the page (not virtualised) is laid out and painted only when near the view
 * (`content-visibility: auto`, its size meanwhile ROW_HEIGHT): it stays in the DOM for find-in-page and assistive
 * technology. A class, not an inline style (parsed once). Memoised: a stage of the mount renders only its new rows.
 */
const ALL_IN_PAGE_ROW = 'min-h-[40px] [content-visibility:auto] [contain-intrinsic-size:auto_40px]';

const Row = memo(function Row({
  row,
  index,
  virtual,
  start,
  checked,
  onToggle,
  onOpen,
}: {
  row: LibraryRow;
  index: number;
  virtual: boolean;
  start: number;
  checked: boolean;
  onToggle(id: string): void;
  onOpen(id: string): void;
}) {
  const style = virtual ? { position: 'absolute' as const, left: 0, width: '100%', height: ROW_HEIGHT, transform: `translateY(${start}px)` } : undefined;
  const { run, file, summary: s } = row;
  const { dir, base } = splitPath(file.name);
  const exportOtlp = () => exportOtlpFile([run], `${safeFileName(run.id)}.otlp.json`);
  // Opened, not yet durable: the import worker is still writing it to IndexedDB (ADR 0020).
  const saving = usePersistence((p) => p.savingRuns.has(run.id));
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      data-testid="run-row"
      data-run-id={run.id}
      data-file={file.name}
      className={`grid items-center border-b border-slate-100 hover:bg-slate-50 ${COLUMNS} ${virtual ? '' : ALL_IN_PAGE_ROW} ${checked ? 'bg-indigo-50' : ''}`}
      style={style}
    >
      <div role="cell" className="px-2">
        <input type="checkbox" checked={checked} onChange={() => onToggle(run.id)} aria-label={`Select ${row.title}`} />
      </div>
      <div role="cell" className="min-w-0 px-2 font-mono text-xs leading-tight" title={file.name} data-testid="run-file">
        <div className="truncate text-slate-800">{base}</div>
        {/* The folder path, its end kept in view (the part that tells hand-crafted/3.json from algorithm-generated/3.json). */}
        {dir && (
          <div className="truncate text-[11px] text-slate-400 [direction:rtl] text-left">
            <bdi>{dir}</bdi>
          </div>
        )}
      </div>
      <div role="cell" className="flex min-w-0 items-center gap-1 px-2">
        <button
          type="button"
          onClick={() => onOpen(run.id)}
          title={run.task ? `${row.title}\n\n${run.task.slice(0, 400)}` : row.title}
          className="truncate text-left font-medium text-indigo-700 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
        >
          {row.title}
        </button>
        {run.tags.arm && <Badge tone="info">{run.tags.arm}</Badge>}
        {run.interventions.length > 0 && <Badge tone="info">{run.interventions.length} int.</Badge>}
        {saving && (
          <span data-testid="run-saving" title="Open already; being saved in this browser" className="shrink-0 rounded bg-amber-50 px-1 text-[10px] text-amber-800">
            saving…
          </span>
        )}
      </div>
      <div role="cell" className="min-w-0 px-2 text-xs leading-tight text-slate-700" title={run.framework ? `${file.formatLabel} · ${run.framework}` : file.formatLabel}>
        <div className="truncate">
          {file.formatLabel}
          {file.live && (
            <span data-testid="live-badge" className={`ml-1 rounded px-1 text-[10px] ${file.live.state === 'receiving' ? 'bg-emerald-100 text-emerald-800' : 'bg-slate-100 text-slate-700'}`}>
              {file.live.state === 'receiving' ? 'live' : 'done'}
            </span>
          )}
        </div>
        {run.framework && <div className="truncate text-[11px] text-slate-500">{run.framework}</div>}
      </div>
      <div role="cell" className="truncate px-2 text-slate-700">
        {run.tags.dataset ?? '—'}
        {run.tags.level ? ` L${run.tags.level}` : ''}
      </div>
      <div role="cell" className="truncate px-2 text-xs text-slate-700" data-testid="run-agents" title={s.agents.map((a) => a.name).join(', ')}>
        {s.agents.map((a) => a.name).join(', ') || '—'}
      </div>
      <div role="cell" className="px-2 text-right tabular-nums" data-testid="run-steps">
        {formatCount(s.steps)}
      </div>
      {hasTokenCount({ steps: s.steps }) ? (
        <div
          role="cell"
          className="flex min-w-0 items-center justify-end gap-1 overflow-hidden px-2 text-right tabular-nums"
          data-testid="run-tokens"
          title={`${s.tokens.estimated ? 'About ' : ''}${formatCount(s.tokens.total)} tokens`}
        >
          {s.tokens.estimated ? '≈' : ''}
          {/* Millions as 74.1M (the exact count in the title): in full, an estimate of millions and its badge were cut. */}
          {s.tokens.total >= 1_000_000 ? compact(s.tokens.total) : formatCount(s.tokens.total)}
          {s.tokens.estimated && <EstimatedBadge />}
        </div>
      ) : (
        <div role="cell" className="px-2 text-right text-slate-400" data-testid="run-tokens" data-none="" title={NO_TOKEN_COUNT}>
          —
        </div>
      )}
      <div role="cell" className="whitespace-nowrap px-2 text-right tabular-nums text-slate-700">
        {row.duration !== undefined ? formatDuration(row.duration) : '—'}
      </div>
      <div role="cell" className="px-2">
        <OutcomeBadge outcome={s.outcome} />
      </div>
      <div role="cell" className="px-2 text-right tabular-nums" data-testid="run-scores">
        {formatCount(row.scores)}
      </div>
      <div role="cell" className="px-2 text-right tabular-nums" data-testid="run-annotations">
        {formatCount(row.labels)}
      </div>
      <div role="cell" className="px-2">
        {run.simulated ? <SimulatedBadge /> : run.derived ? <EstimateBadge run={run} /> : <span className="text-xs text-slate-600">recorded</span>}
        {run.orphanSpans > 0 && (
          <span className="ml-1 text-xs font-semibold text-amber-700" title="Spans whose parent is missing from the file">
            {run.orphanSpans} orphan
          </span>
        )}
      </div>
      <div role="cell" className="flex justify-end px-1">
        <Button size="sm" variant="ghost" onClick={() => void exportRuns([run], run.title, `${safeFileName(run.id)}.session.json`)} aria-label={`Export run ${row.title} as a session`} title="Native session: lossless">
          Export
        </Button>
        <Button size="sm" variant="ghost" onClick={() => void exportOtlp()} aria-label={`Export run ${row.title} as OTLP/JSON`} title="OTLP/JSON for other trace tools; interventions as evaluation events">
          OTLP
        </Button>
      </div>
    </div>
  );
});
