// The source spans of the step under the playhead (issue 20 item 1: every span visible in the inspector too): the
// step's own span, the spans merged into it (a provider span inside a framework wrapper) and the plain spans nested
// under it, in tree order, each foldable to its status, attributes and events (the span tree's details pane).
import type { Run, Step } from '../../model/types.ts';
import { SpanDetails } from './span-tree.tsx';
import { spansOfStep, useRunSpans } from './span-tree-loader.ts';

/** Spans listed open up to this many; more start folded to their names. */
const OPEN_MAX = 1;
/** At most this many spans are listed (a step with more says how many are left out; the span tree has them all). */
const LIST_MAX = 200;

export function SpansSection({ run, step }: { run: Run; step: Step }) {
  const source = useRunSpans(run);
  const spans = source.spans;
  // Kept apart and not read yet (a large run, its span tree folded): opening this reads them.
  if (spans === undefined && source.stored && step.spanId !== undefined) {
    return (
      <details className="group" data-testid="inspector-spans" onToggle={(e) => e.currentTarget.open && source.load()}>
        <summary className="cursor-pointer text-xs font-semibold tracking-wide text-slate-500 uppercase">Spans</summary>
        <p className="mt-1 text-xs text-slate-500">{source.state === 'failed' ? `The spans could not be read: ${source.problem}` : 'Reading the spans…'}</p>
      </details>
    );
  }
  if (!spans || spans.length === 0) return null;
  const own = spansOfStep(spans, step.id);
  if (own.length === 0) return null;
  const merged = new Set(step.mergedSpanIds ?? []);
  const shown = own.slice(0, LIST_MAX);
  // Indent a span under the listed span it is nested in (tree order: a parent comes before its children).
  const level = new Map<string, number>();
  for (const span of shown) level.set(span.id, span.parentId !== undefined && level.has(span.parentId) ? level.get(span.parentId)! + 1 : 0);
  return (
    <details className="group" data-testid="inspector-spans">
      <summary className="cursor-pointer text-xs font-semibold tracking-wide text-slate-500 uppercase">Spans ({own.length.toLocaleString('en')})</summary>
      <ol className="mt-1 space-y-1">
        {shown.map((span) => (
          <li key={span.id} style={{ marginLeft: Math.min(level.get(span.id) ?? 0, 12) * 10 }}>
            <details className="rounded border border-slate-200" open={own.length <= OPEN_MAX} data-testid="inspector-span" data-span-id={span.id}>
              <summary className="cursor-pointer px-2 py-0.5 font-mono text-[11px] break-words">
                <span className="text-slate-500">{span.id === step.spanId ? 'step span' : merged.has(span.id) ? 'same call' : span.kind ?? 'span'}</span>{' '}
                <span className={span.status === 'error' ? 'text-red-700' : 'text-slate-800'}>{span.name || '(no name)'}</span>
                {span.start !== undefined && span.end !== undefined && <span className="text-slate-400"> · {Math.round(span.end - span.start)} ms</span>}
              </summary>
              <SpanDetails span={span} className="border-t border-slate-200 px-2 py-1" />
            </details>
          </li>
        ))}
      </ol>
      {own.length > shown.length && <p className="mt-1 text-xs text-slate-500">{(own.length - shown.length).toLocaleString('en')} more in the span tree.</p>}
    </details>
  );
}
