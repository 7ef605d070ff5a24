// The replay steps as a virtualised list: only the visible rows exist in the DOM, whatever the run's size.
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import type { Step } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { agentColors } from '../../ui/agent-colors.ts';
import { rectifierMarks } from './rectifier-marks.ts';
import type { RunView } from './run-view-model.ts';
import { compact } from '../../ui/format.ts';

const ROW_HEIGHT = 40;
/**
 * Rows are keyed by slot (index modulo a number larger than any window), not by step: after a long jump React
 * updates the rows' text in place instead of unmounting and creating every one.
 */
const ROW_SLOTS = 256;

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
 * The list itself does not follow the playhead (that would re-render it per step): each visible row watches whether
 * it is current, and a follower scrolls when the current row leaves the window.
 */
export function StepList({ view }: { view: RunView }) {
  const moveTo = usePlayhead((s) => s.moveTo);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: view.steps.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 4,
  });
  const colors = agentColors(view);
  return (
    <section aria-label="Steps" className="flex min-h-0 flex-col rounded border border-slate-200 bg-white">
      <h2 className="border-b border-slate-200 px-2 py-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">
        Steps ({view.steps.length.toLocaleString()})
      </h2>
      <div ref={scroller} data-testid="step-list" className="min-h-0 flex-1 overflow-auto [contain:strict]" tabIndex={-1}>
        <ol className="relative" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => (
            <StepRow
              key={item.index % ROW_SLOTS}
              view={view}
              index={item.index}
              top={item.start}
              color={colors.get(view.steps[item.index].agentId) ?? '#64748b'}
              onSelect={moveTo}
            />
          ))}
        </ol>
      </div>
      <FollowPlayhead virtualizer={virtualizer} />
    </section>
  );
}

function FollowPlayhead({ virtualizer }: { virtualizer: Virtualizer<HTMLDivElement, Element> }) {
  const position = usePlayhead((s) => s.position);
  // Follow the playhead only when its row leaves the list's window, then centre it: stepping through a long run
  // scrolls once per screenful rather than on every step. Rows have one fixed height, so the offset is arithmetic:
  // the virtualizer's cached offsets say whether to scroll, and a plain scrollTop write does it (no layout reads).
  useEffect(() => {
    const element = virtualizer.scrollElement;
    const top = position * ROW_HEIGHT;
    const offset = virtualizer.scrollOffset ?? 0;
    const height = virtualizer.scrollRect?.height ?? 0;
    if (!element || height === 0) {
      virtualizer.scrollToIndex(position, { align: 'center' });
    } else if (top < offset || top + ROW_HEIGHT > offset + height) {
      element.scrollTop = Math.max(0, top - (height - ROW_HEIGHT) / 2);
    }
  }, [virtualizer, position]);
  return null;
}

const StepRow = memo(function StepRow(props: { view: RunView; index: number; top: number; color: string; onSelect: (index: number) => void }) {
  const { view, index, top, color, onSelect } = props;
  const current = usePlayhead((s) => s.position === index);
  const step = view.steps[index];
  const agent = view.index.agentById.get(step.agentId)?.name ?? step.agentId;
  const tokens = view.tokens.input[index] + view.tokens.output[index];
  const marks = rectifierMarks(view);
  return (
    <li
      data-step-id={step.id}
      data-position={index}
      aria-current={current ? 'step' : undefined}
      data-current={current ? 'true' : undefined}
      onClick={() => onSelect(index)}
      title={step.name}
      className={`absolute inset-x-0 flex cursor-pointer items-start gap-2 border-b border-slate-100 px-2 py-1 text-xs ${
        current ? 'bg-indigo-100 ring-1 ring-indigo-400 ring-inset' : 'hover:bg-slate-50'
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
