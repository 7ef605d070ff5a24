// Every span of the source trace (issue 20), in tree order: collapsible, searchable, virtualised (100k spans keep
// only the visible rows in the DOM), following the playhead (the current step's spans are highlighted and its own
// span scrolled into view). A span opened shows its status, times, attributes and events. A large run's spans are
// read from IndexedDB when the tree is opened (span-tree-loader.ts, ADR 0020).
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { lowerBound } from '../../model/large-arrays.ts';
import { finish, SLICE, type Sliced } from '../../model/slices.ts';
import type { RunSpan, Step } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { useSliced } from '../../ui/use-sliced.ts';
import type { RunView } from './run-view-model.ts';
import { AUTO_LOAD_MAX, ownSpanAt, spanIndex, useRunSpans } from './span-tree-loader.ts';

const NO_SPANS: readonly RunSpan[] = [];
const NO_ROWS: readonly number[] = [];

/**
 * Spans at most this many: a filter or a collapse is worked out within the render (a filter over 100k spans made tasks
 * of 50–72 ms, over 1M of 160–170 ms a key); more, in slices after it, the rows before it shown meanwhile.
 */
export const ROWS_AT_ONCE_MAX = 50_000;

const ROW_HEIGHT = 22;

const KIND_STYLE = new Map<string, string>([
  ['agent', 'bg-violet-100 text-violet-900'],
  ['model', 'bg-sky-100 text-sky-900'],
  ['tool', 'bg-amber-100 text-amber-900'],
  ['step', 'bg-emerald-100 text-emerald-900'],
  ['span', 'bg-slate-100 text-slate-600'],
]);

function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** Whether a span matches the filter: its name, kind, or any attribute key or text value (case-insensitive). */
function matches(span: RunSpan, needle: string): boolean {
  if (span.name.toLowerCase().includes(needle) || span.kind === needle || span.id === needle) return true;
  for (const key in span.attributes) {
    if (key.toLowerCase().includes(needle)) return true;
    const v = span.attributes[key];
    if (typeof v === 'string' && v.length < 10_000 && v.toLowerCase().includes(needle)) return true;
  }
  return false;
}

/**
 * The rows shown: the tree with collapsed spans' descendants left out, or (filtering) the matching spans. Nothing
 * collapsed and no filter, every span: the rows are made without reading the spans (100k of them were a 75 ms pass in
 * the render that first shows the tree).
 */
export function visibleSpanRows(spans: readonly RunSpan[], collapsed: ReadonlySet<string>, filter: string): number[] {
  return finish(visibleSpanRowsSlices(spans, collapsed, filter));
}

/** visibleSpanRows in slices (model/slices.ts): it yields every SLICE spans read. */
export function* visibleSpanRowsSlices(spans: readonly RunSpan[], collapsed: ReadonlySet<string>, filter: string): Sliced<number[]> {
  const rows: number[] = [];
  const needle = filter.trim().toLowerCase();
  if (!needle && collapsed.size === 0) {
    for (let i = 0; i < spans.length; i++) rows.push(i);
    return rows;
  }
  if (needle) {
    for (let i = 0; i < spans.length; i++) {
      if (i % SLICE === SLICE - 1) yield i / spans.length;
      if (matches(spans[i], needle)) rows.push(i);
    }
    return rows;
  }
  let skipDeeperThan = Infinity;
  for (let i = 0; i < spans.length; i++) {
    if (i % SLICE === SLICE - 1) yield i / spans.length;
    const depth = spans[i].depth ?? 0;
    if (depth > skipDeeperThan) continue;
    skipDeeperThan = collapsed.has(spans[i].id) ? depth : Infinity;
    rows.push(i);
  }
  return rows;
}

export function SpanTree({ view }: { view: RunView }) {
  const source = useRunSpans(view.run, true);
  const spans = source.spans ?? NO_SPANS;
  const report = view.run.spanReport;
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const [filter, setFilter] = useState('');
  const deferredFilter = useDeferredValue(filter);
  const [selected, setSelected] = useState<number | undefined>(undefined);
  // Spans kept apart beyond AUTO_LOAD_MAX start folded: opening the tree reads them.
  const [shown, setShown] = useState(() => !source.stored || source.expected <= AUTO_LOAD_MAX);
  const { load } = source;
  useEffect(() => {
    if (shown) load();
  }, [shown, load]);
  // Every span, or a few: within the render. A filter or a collapse over many: in slices, the rows of the last one
  // shown meanwhile (the same spans), and the count says it is filtering.
  const everySpan = deferredFilter.trim() === '' && collapsed.size === 0;
  const built = useSliced(() => visibleSpanRowsSlices(spans, collapsed, deferredFilter), [spans, collapsed, deferredFilter], everySpan || spans.length <= ROWS_AT_ONCE_MAX, spans);
  const rows = built.value ?? NO_ROWS;
  const pending = built.value === undefined || built.stale === true;
  // Built as the spans were read (span-tree-loader.ts), not over 100k spans here.
  const hasChildren = useMemo(() => spanIndex(spans).parents, [spans]);
  const everyRow = rows.length === spans.length;
  // The tree does not read the playhead (a move rendered it, its virtualizer and every row again): each row watches
  // whether it belongs to the current step, and SpanFollower scrolls when the current step's own span changes.
  const moveTo = usePlayhead((s) => s.moveTo);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const toggle = useCallback(
    (id: string) =>
      setCollapsed((c) => {
        const next = new Set(c);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const select = useCallback(
    (i: number, span: RunSpan) => {
      setSelected(i);
      const at = span.stepId !== undefined ? view.positionOf.get(span.stepId) : undefined;
      if (at !== undefined) moveTo(at);
    },
    [view, moveTo],
  );
  if (spans.length === 0 && !source.stored) return null;
  const open = selected !== undefined ? spans[selected] : undefined;
  const filtering = deferredFilter.trim() !== '';
  return (
    <section aria-label="Span tree" data-testid="span-tree" className="rounded border border-slate-200 bg-white p-2">
      <header className="mb-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
        <h3 className="text-sm font-semibold text-slate-800">
          <button type="button" aria-expanded={shown} aria-controls="span-tree-body" onClick={() => setShown(!shown)} className="hover:text-indigo-700">
            {shown ? '▾' : '▸'} Spans
          </button>
        </h3>
        <span data-testid="span-count">
          {source.spans === undefined
            ? `${source.expected.toLocaleString('en')} spans${source.state === 'loading' ? ' (reading…)' : source.state === 'failed' ? ` (could not be read: ${source.problem})` : shown ? '' : ' (read when opened)'}`
            : pending
              ? `${spans.length.toLocaleString('en')} spans (${filtering ? 'filtering' : 'folding'}… ${Math.round(built.progress * 100)}%)`
              : filtering
                ? `${rows.length.toLocaleString('en')} of ${spans.length.toLocaleString('en')} spans match`
                : `${spans.length.toLocaleString('en')} spans`}
          {source.spans !== undefined && report && report.read !== spans.length && ` (${(report.read - spans.length).toLocaleString('en')} dropped, see the Library)`}
        </span>
        {shown && source.spans !== undefined && (
          <input
            type="search"
            aria-label="Filter spans"
            placeholder="filter: name, attribute, value"
            className="ml-auto w-56 rounded border border-slate-300 px-1.5 py-0.5 text-xs"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        )}
      </header>
      <div id="span-tree-body" hidden={!shown}>
        {/* The rows of the last filter, while the new one is worked out (many spans): dimmed, and said to be busy. */}
        <div
          ref={scroller}
          className={`h-64 overflow-y-auto font-mono text-[11px] ${pending && source.spans !== undefined ? 'opacity-50' : ''}`}
          role="tree"
          aria-label="Spans of the trace"
          aria-busy={pending && source.spans !== undefined}
          data-testid="span-rows"
        >
          {filtering && !pending && rows.length === 0 && <p className="p-2 font-sans text-slate-500">No span matches “{deferredFilter.trim()}”.</p>}
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((item) => {
              const i = rows[item.index];
              return (
                <SpanRow
                  key={item.key}
                  view={view}
                  span={spans[i]}
                  index={i}
                  top={item.start}
                  parent={hasChildren[i] === 1}
                  collapsed={collapsed.has(spans[i].id)}
                  selected={selected === i}
                  filtering={filtering}
                  onSelect={select}
                  onToggle={toggle}
                />
              );
            })}
          </div>
        </div>
        {open && <SpanDetails span={open} />}
      </div>
      {shown && <SpanFollower view={view} spans={spans} rows={everyRow ? undefined : rows} virtualizer={virtualizer} />}
    </section>
  );
}

/** How a span relates to the step under the playhead: its own span, one of its spans, or neither. */
function markOf(step: Step | undefined, span: RunSpan): 'step' | 'in-step' | undefined {
  if (step === undefined) return undefined;
  if (span.id === step.spanId) return 'step';
  return span.stepId === step.id ? 'in-step' : undefined;
}

interface SpanRowProps {
  view: RunView;
  span: RunSpan;
  index: number;
  top: number;
  parent: boolean;
  collapsed: boolean;
  selected: boolean;
  filtering: boolean;
  onSelect: (index: number, span: RunSpan) => void;
  onToggle: (id: string) => void;
}

/** One span; renders again on a move only when the move changes its highlight. */
const SpanRow = memo(function SpanRow({ view, span, index, top, parent, collapsed, selected, filtering, onSelect, onToggle }: SpanRowProps) {
  const mark = usePlayhead((s) => markOf(view.steps[s.position], span));
  return (
    <div
      role="treeitem"
      aria-level={(span.depth ?? 0) + 1}
      aria-selected={selected}
      aria-expanded={parent ? !collapsed : undefined}
      data-testid="span-row"
      data-current={mark}
      className={`absolute left-0 flex w-full cursor-pointer items-center gap-1 truncate pr-1 ${mark === 'step' ? 'bg-indigo-100' : mark === 'in-step' ? 'bg-indigo-50' : selected ? 'bg-slate-100' : 'hover:bg-slate-50'}`}
      style={{ top, height: ROW_HEIGHT, paddingLeft: 4 + Math.min(span.depth ?? 0, 40) * 12 }}
      onClick={() => onSelect(index, span)}
    >
      <button
        type="button"
        className="w-3 shrink-0 text-slate-500"
        aria-label={collapsed ? `Expand ${span.name}` : `Collapse ${span.name}`}
        disabled={!parent || filtering}
        onClick={(e) => {
          e.stopPropagation();
          onToggle(span.id);
        }}
      >
        {parent ? (collapsed ? '▸' : '▾') : ''}
      </button>
      <span className={`shrink-0 rounded px-1 ${KIND_STYLE.get(span.kind ?? 'span') ?? ''}`}>{span.kind ?? 'span'}</span>
      <span className={span.status === 'error' ? 'text-red-700' : 'text-slate-800'}>{span.name || '(no name)'}</span>
      {span.start !== undefined && span.end !== undefined && <span className="ml-auto shrink-0 text-slate-400">{Math.round(span.end - span.start)} ms</span>}
    </div>
  );
});

/**
 * Follows the playhead: the current step's own span scrolled into view when it is shown. Renders (nothing) only when
 * the current step changes. Every span a row (`rows` undefined), the row is the place of the step's own span, found
 * among the step's few spans (spanIndex); some left out, it is looked up in a map built once per list of rows. Never
 * a scan of up to 100k rows on every move.
 */
function SpanFollower({ view, spans, rows, virtualizer }: { view: RunView; spans: readonly RunSpan[]; rows: readonly number[] | undefined; virtualizer: Virtualizer<HTMLDivElement, Element> }) {
  const step = usePlayhead((s) => view.steps[s.position]);
  // The step's own span, then its row: the rows shown are places in the list in rising order, so it is looked for by
  // halves (a Map of every row's span id was an 80 ms task when a filter over 1M spans kept 250k of them).
  const at = step?.spanId === undefined ? undefined : ownSpanAt(spans, step);
  const row = at === undefined || rows === undefined ? at : rowOfPlace(rows, at);
  useEffect(() => {
    if (row !== undefined) virtualizer.scrollToIndex(row, { align: 'auto' });
  }, [row, virtualizer]);
  return null;
}

/** The row showing the span at `place`, in rows of rising places; undefined when it is not shown. */
export function rowOfPlace(rows: readonly number[], place: number): number | undefined {
  const row = lowerBound(rows, place);
  return rows[row] === place ? row : undefined;
}

/** A span's status, attributes and events (the span tree's details pane; the inspector's Spans section). */
export function SpanDetails({ span, className = 'mt-2 max-h-64 overflow-y-auto border-t border-slate-200 pt-1' }: { span: RunSpan; className?: string }) {
  const attrs = Object.keys(span.attributes);
  return (
    <div data-testid="span-details" className={`text-xs ${className}`}>
      <p className="font-semibold break-all text-slate-800">
        {span.name} <span className="font-normal text-slate-500">({span.kind ?? 'span'}, id {span.id})</span>
      </p>
      <p className={span.status === 'error' ? 'text-red-700' : 'text-slate-600'}>
        status {span.status}
        {span.statusMessage ? `: ${span.statusMessage}` : ''}
        {span.stepId !== undefined && ` · step ${span.stepId}`}
      </p>
      {attrs.length > 0 && (
        <table className="mt-1 w-full table-fixed">
          <tbody>
            {attrs.map((k) => (
              <tr key={k} className="align-top">
                <td className="w-2/5 truncate pr-2 font-mono text-slate-500" title={k}>
                  {k}
                </td>
                <td className="font-mono break-all whitespace-pre-wrap text-slate-800">{valueText(span.attributes[k]).slice(0, 4000)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {span.events.length > 0 && (
        <ul className="mt-1 list-disc pl-4">
          {span.events.map((e, i) => (
            <li key={i}>
              <span className="font-semibold">{e.name}</span>{' '}
              <span className="font-mono break-all text-slate-700">{Object.keys(e.attributes).length ? valueText(e.attributes).slice(0, 2000) : ''}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
