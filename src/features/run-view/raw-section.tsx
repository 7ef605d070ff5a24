// The inspector's "Raw attributes" of a step: the source attributes and fields its importer did not map. A step of a
// run whose spans are stored apart carries only the few keys the page reads; the rest is its span's attributes, kept
// with the spans in IndexedDB (ADR 0026), and read with them when this section is opened (as the Spans section is).
import { useEffect, useState } from 'react';
import { RAW_KEYS_ON_PAGE } from '../../model/session-spans.ts';
import type { Run, Step } from '../../model/types.ts';
import { usePersistence } from '../../store/library-db.ts';
import { stepRawOf, useRunSpans } from './span-tree-loader.ts';
import { TraceText } from './trace-text.tsx';
import { safeStringify } from '../../ui/format.ts';

export function RawSection({ run, step }: { run: Run; step: Step }) {
  const source = useRunSpans(run);
  const saving = usePersistence((p) => run.spans === undefined && p.savingRuns.has(run.id));
  const [open, setOpen] = useState(false);
  // Its raw may be with its span: stored apart (read when opened), or being saved by the import worker. A raw with a
  // key the page does not keep (an older library's run, a raw that is not its span's attributes) is whole already.
  const apart = run.spans === undefined && step.spanId !== undefined && (source.stored || saving) && !keepsMore(step.raw);
  const inHand = source.spans !== undefined || source.state === 'loaded';
  const { load } = source;
  useEffect(() => {
    if (open && apart && !inHand) load();
  }, [open, apart, inHand, load]);
  let raw = step.raw;
  if (apart && inHand && source.spans && step.spanId !== undefined) raw = stepRawOf(source.spans, step) ?? step.raw;
  const waiting = apart && !inHand;
  if (!waiting && (!raw || Object.keys(raw).length === 0)) return null;
  return (
    <details className="group" data-testid="inspector-raw" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-xs font-semibold tracking-wide text-slate-500 uppercase">Raw attributes</summary>
      <div className="mt-1">
        {!waiting ? (
          <TraceText text={safeStringify(raw)} limit={4000} />
        ) : (
          <p className="text-xs text-slate-500">
            {source.state === 'failed'
              ? `The raw attributes could not be read: ${source.problem}`
              : source.stored
                ? 'Reading the raw attributes…'
                : 'The raw attributes are read from the library once the run is saved.'}
          </p>
        )}
      </div>
    </details>
  );
}

function keepsMore(raw: Record<string, unknown> | undefined): boolean {
  if (raw === undefined) return false;
  for (const key of Object.keys(raw)) if (!RAW_KEYS_ON_PAGE.includes(key)) return true;
  return false;
}

