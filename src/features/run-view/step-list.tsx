// The replay steps as a virtualised list: only the visible rows exist in the DOM, whatever the run's size (a million
// steps included: see ./list-window.ts).
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type PointerEvent, type RefObject } from 'react';
import type { Step } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { agentColors } from '../../ui/agent-colors.ts';
import { rectifierMarks } from './rectifier-marks.ts';
import type { RunView } from './run-view-model.ts';
import { compact, formatCount } from '../../ui/format.ts';
import { listGeometry, poolRows, rowInView, rowTop, scrollTopCentring, visibleRows, windowSlots, type ListGeometry } from './list-window.ts';

const ROW_HEIGHT = 40;

const SUMMARY_MAX = 140;
/** How much of a long text the summary reads first: its first 140 characters after folding white space, nearly always. */
const SUMMARY_HEAD = 4096;

/** One line saying what the step did. */
export function stepSummary(step: Step): string {
  const calls = step.toolCalls?.map((c) => c.name).join(', ');
  const text = calls ? `→ ${calls}` : (step.output ?? step.thought ?? step.observation ?? step.inputText ?? step.error?.message ?? '');
  // A row is rendered on every scroll: fold the white space of the text's head only, not of a 10 MB message.
  if (text.length > SUMMARY_HEAD) {
    const head = text.slice(0, SUMMARY_HEAD).replace(/\s+/g, ' ').trimStart();
    if (head.length > SUMMARY_MAX) return `${head.slice(0, SUMMARY_MAX)}…`;
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX)}…` : line;
}

/**
 * Rows drawn beyond the viewport on each side (80 px of a wheel scroll before the list renders again). Every row of
 * the pool is laid out and painted again on a jump: 4 a side cost 15-20 % more main-thread CPU a jump than 2
 * (bench/profile-view.ts --keys End,Home,e,l,a, 100k steps).
 */
const OVERSCAN = 2;
/** The viewport assumed until the list has been measured (and where there is no layout, as in unit tests). */
const UNMEASURED_VIEWPORT = 20 * ROW_HEIGHT;

interface ScrollState {
  top: number;
  /** The list's height; 0 until measured. */
  height: number;
  /** Whether the list has been measured at all (its height may be 0 when hidden). */
  measured?: boolean;
}

/**
 * The list itself does not follow the playhead (that would re-render it per step): each visible row watches whether
 * it is current, and a follower scrolls when the current row leaves the window. Rows have one height, so the window
 * is arithmetic (./list-window.ts), with the scroll position scaled on runs too tall for the browser to lay out.
 */
export function StepList({ view }: { view: RunView }) {
  const moveTo = usePlayhead((s) => s.moveTo);
  const scroller = useRef<HTMLDivElement>(null);
  const [scroll, setScroll] = useState<ScrollState>({ top: 0, height: 0 });
  const geometry = listGeometry(view.steps.length, ROW_HEIGHT, scroll.height || UNMEASURED_VIEWPORT);
  const { first } = visibleRows(geometry, scroll.top, OVERSCAN);
  const colors = agentColors(view);
  const scrolledTo = useCallback((top: number) => setScroll((s) => (s.top === top ? s : { ...s, top })), []);
  // A scroll position the playhead follower chose: the rows for it are rendered first, then the list is scrolled to it
  // (below), so the browser lays the list out once, rows and scroll together.
  const followedTo = useRef<number | undefined>(undefined);
  const followTo = useCallback((top: number) => {
    followedTo.current = top;
    setScroll((s) => (s.top === top ? s : { ...s, top }));
  }, []);
  useLayoutEffect(() => {
    const top = followedTo.current;
    followedTo.current = undefined;
    if (top !== undefined && scroller.current) scroller.current.scrollTop = top;
  });
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const measure = () => setScroll((s) => (s.measured && s.height === element.clientHeight ? s : { top: element.scrollTop, height: element.clientHeight, measured: true }));
    // Measured in the observer's first callback, which runs once the page is laid out: reading the height here, in
    // the commit that mounts the run view, forced a layout of the whole page inside the opening task.
    if (typeof ResizeObserver === 'undefined') {
      measure();
      return;
    }
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // A fixed pool of rows, one per slot (./list-window.ts windowSlots), always in the same order in the DOM: slot s
  // shows the pool's row whose index is s modulo the slot count. A move or a jump updates the rows' text, attributes
  // and place in place and never removes, creates or reorders a row (keyed by slot in window order, React moved one
  // row per step scrolled and reordered them all on a jump; at the run's end the window held fewer rows).
  // Rows stay positioned, each a paint layer of its own: in the list's normal flow (one paint chunk under a list-tall
  // background, so a scroll changes no chunk's bounds) every move painted all the rows again, Paint 1.7 -> 2.6 ms a
  // press, a cost that pays only once nothing else on the page makes Chromium layerize it again (ADR 0021).
  const slots = windowSlots(geometry, OVERSCAN);
  const { start, end } = poolRows(geometry, scroll.top, first, slots);
  const rows = [];
  for (let slot = 0; slot < slots; slot++) {
    const index = start + ((((slot - start) % slots) + slots) % slots);
    if (index > end) continue;
    rows.push(
      <StepRow key={slot} view={view} index={index} top={rowTop(geometry, scroll.top, index)} color={colors.get(view.steps[index].agentId) ?? '#64748b'} onSelect={moveTo} />,
    );
  }
  return (
    <section aria-label="Steps" className="flex min-h-0 flex-col rounded border border-slate-200 bg-white">
      <h2 className="border-b border-slate-200 px-2 py-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">
        Steps ({formatCount(view.steps.length)})
      </h2>
      <div ref={scroller} data-testid="step-list" className="min-h-0 flex-1 overflow-auto [contain:strict]" tabIndex={-1} onScroll={(e) => scrolledTo(e.currentTarget.scrollTop)}>
        <ol className="relative" style={{ height: geometry.scrollHeight }}>
          {rows}
        </ol>
      </div>
      <FollowPlayhead scroller={scroller} geometry={geometry} scrollTop={scroll.top} measured={scroll.height > 0} ready={scroll.measured === true} onFollow={followTo} />
    </section>
  );
}

interface FollowProps {
  scroller: RefObject<HTMLDivElement | null>;
  geometry: ListGeometry;
  scrollTop: number;
  measured: boolean;
  /** The list has been measured once (or cannot be: no ResizeObserver); following waits for it. */
  ready: boolean;
  /** Render the rows for this scroll position, then scroll there. */
  onFollow: (top: number) => void;
}

function FollowPlayhead({ scroller, geometry, scrollTop, measured, ready, onFollow }: FollowProps) {
  const position = usePlayhead((s) => s.position);
  // The window as last rendered, read by the effect without making it run on every scroll.
  const latest = useRef({ geometry, scrollTop, measured });
  latest.current = { geometry, scrollTop, measured };
  // Follow the playhead only when its row leaves the list's window, then centre it: stepping through a long run
  // scrolls once per screenful rather than on every step. The window comes from the last scroll event and the
  // measured height (no layout read); the rows for the new scroll position render right after the move, in the same
  // task, and the list scrolls once they are in the DOM: writing scrollTop here, before them, made the browser lay
  // the page out twice per jump (once for that write, once more for the new rows).
  // Until the list is measured (the observer's first callback, after layout) there is nothing to follow with: the
  // effect runs again once it is, so opening a run reads no layout.
  // A layout effect, not a passive one: a state update inside a passive effect is rendered later, in a scheduler
  // task of its own (default priority), which on a jump ran after the frame that showed the move — that frame showed
  // the list's old rows (before, with scrollTop already written: an empty stretch of the list). From a layout effect
  // the rows for the new scroll position render in the key's own task, before the frame.
  const canFollow = ready || typeof ResizeObserver === 'undefined';
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element || !canFollow) return;
    let { geometry: g, scrollTop: top } = latest.current;
    if (!latest.current.measured) {
      g = listGeometry(g.count, g.row, element.clientHeight || g.viewport);
      top = element.scrollTop;
    }
    if (rowInView(g, top, position)) return;
    // Whole pixels: the browser keeps scrollTop in whole pixels here, and the scroll event it then sends would
    // otherwise report a different position and render every row once more (half a pixel lower).
    const next = Math.round(scrollTopCentring(g, position));
    if (next === latest.current.scrollTop) element.scrollTop = next; // rendered for it already: only the scroll
    else onFollow(next);
  }, [scroller, position, onFollow, canFollow]);
  return null;
}

/**
 * One row. Every row paints a background over its whole box (white unless current or hovered): a row that gained a
 * background when it became current grew the bounds of what it paints, and that alone makes Chromium redo the whole
 * page's layerization on a move (bench/profile-view.ts with every other moving part hidden: Layerize 1.09 → 0.45 ms a
 * press). The inspector's changing content, the timeline's playhead and the graph's highlight still do (ADR 0021).
 */
const StepRow = memo(function StepRow(props: { view: RunView; index: number; top: number; color: string; onSelect: (index: number) => void }) {
  const { view, index, top, color, onSelect } = props;
  const current = usePlayhead((s) => s.position === index);
  const step = view.steps[index];
  const agent = view.index.agentById.get(step.agentId)?.name ?? step.agentId;
  const tokens = view.tokens.input[index] + view.tokens.output[index];
  const marks = rectifierMarks(view);
  const showName = (e: PointerEvent<HTMLLIElement>) => {
    const row = e.currentTarget;
    if (!step.name) row.removeAttribute('title');
    else if (row.title !== step.name) row.title = step.name;
  };
  return (
    <li
      data-step-id={step.id}
      data-position={index}
      aria-current={current ? 'step' : undefined}
      data-current={current ? 'true' : undefined}
      onClick={() => onSelect(index)}
      // The step's name as a tooltip, set while the pointer is on the row: as a rendered attribute it changed on every
      // row at each jump, and Tailwind's preflight has a [title] rule, so Chromium restyled every row (ADR 0053: a
      // jump's style 3.4 -> 1.7 ms without it). Refreshed as the pointer moves, for a row that a key moved under it.
      onPointerEnter={showName}
      onPointerMove={showName}
      onPointerLeave={(e) => e.currentTarget.removeAttribute('title')}
      className={`absolute inset-x-0 flex cursor-pointer items-start gap-2 border-b border-slate-100 px-2 py-1 text-xs ${
        current ? 'bg-indigo-100 ring-1 ring-indigo-400 ring-inset' : 'bg-white hover:bg-slate-50'
      }`}
      style={{ top, height: ROW_HEIGHT }}
    >
      <span className="w-9 shrink-0 pt-px text-right text-slate-400 tabular-nums">{index + 1}</span>
      <span className="mt-1 h-6 w-1 shrink-0 rounded-sm" style={{ background: color }} aria-hidden />
      <span className="min-w-0 flex-1">
        <span className="flex items-center gap-1.5">
          <span className="truncate font-medium text-slate-800">{agent}</span>
          <span className="shrink-0 text-slate-500">{step.kind === 'tool' && step.name ? `tool ${step.name}` : step.kind}</span>
          {view.errorAt[index] === 1 && <span className="shrink-0 rounded bg-red-100 px-1 text-[10px] text-red-800">error</span>}
          {view.loopAt[index] >= 0 && <span className="shrink-0 rounded bg-amber-100 px-1 text-[10px] text-amber-900">loop</span>}
          {view.annotationsAt.has(index) && <span className="shrink-0 rounded bg-violet-100 px-1 text-[10px] text-violet-800">label</span>}
          {view.interventionsAt.has(index) && <span className="shrink-0 rounded bg-emerald-100 px-1 text-[10px] text-emerald-800">intervention</span>}
          {marks.pruned.has(index) && (
            <span data-testid="step-pruned" title={marks.fallback ? 'Rejected by the rectifier, restored by the global fallback' : 'Rejected by the rectifier: hidden from the agents after it'} className="shrink-0 rounded bg-red-600 px-1 text-[10px] text-white">
              {marks.fallback ? 'rejected · restored' : 'pruned'}
            </span>
          )}
          {marks.restart?.position === index && (
            <span data-testid="step-restart" title={marks.restart.reason} className="shrink-0 rounded bg-sky-100 px-1 text-[10px] text-sky-900">
              restart · unaudited
            </span>
          )}
          {marks.rewritten.has(index) && <span data-testid="step-rectified" className="shrink-0 rounded bg-amber-100 px-1 text-[10px] text-amber-900">rectified</span>}
          {tokens > 0 && <span className="ml-auto shrink-0 text-slate-400 tabular-nums">{compact(tokens)}</span>}
        </span>
        <span className={`block truncate text-slate-600 ${marks.pruned.has(index) && !marks.fallback ? 'line-through decoration-red-500' : ''}`}>{stepSummary(step) || <span className="text-slate-400">{step.name ?? '—'}</span>}</span>
      </span>
    </li>
  );
});
