// Raw vs purified (or corrected, or annotated) observation as one inline diff. Built with the `diff` package and
// rendered as React text spans: trace text is never parsed as HTML.
import { diffLines, diffWordsWithSpace } from 'diff';
import { useMemo, useState } from 'react';

export interface DiffSegment {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** Word diff while it is cheap, line diff (with a time limit) for long observations such as whole web pages. */
const WORD_DIFF_LIMIT = 20_000;

export function observationDiff(before: string, after: string): DiffSegment[] {
  if (before === after) return [{ kind: 'same', text: before }];
  const changes = before.length + after.length <= WORD_DIFF_LIMIT ? diffWordsWithSpace(before, after) : diffLines(before, after, { timeout: 500 });
  // With a timeout the line diff gives up and returns undefined: show everything removed, then everything added.
  if (!changes) return [{ kind: 'removed', text: before }, { kind: 'added', text: after }];
  const out: DiffSegment[] = [];
  for (const c of changes) {
    if (c.value === '') continue;
    const kind = c.added ? 'added' : c.removed ? 'removed' : 'same';
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += c.value;
    else out.push({ kind, text: c.value });
  }
  return out;
}

export function diffStats(segments: readonly DiffSegment[]): { removed: number; added: number; kept: number } {
  const s = { removed: 0, added: 0, kept: 0 };
  for (const seg of segments) s[seg.kind === 'same' ? 'kept' : seg.kind] += seg.text.length;
  return s;
}

/** Cut the diff after `limit` characters of shown text (a whole web page is too much to lay out at once). */
export function truncateSegments(segments: readonly DiffSegment[], limit: number): { shown: DiffSegment[]; cut: boolean } {
  const shown: DiffSegment[] = [];
  let left = limit;
  for (const seg of segments) {
    if (left <= 0) return { shown, cut: true };
    if (seg.text.length <= left) shown.push(seg);
    else {
      shown.push({ kind: seg.kind, text: seg.text.slice(0, left) });
      return { shown, cut: true };
    }
    left -= seg.text.length;
  }
  return { shown, cut: false };
}

const SEGMENT_CLASS: Record<DiffSegment['kind'], string> = {
  same: 'text-slate-700',
  removed: 'bg-red-100 text-red-900 line-through decoration-red-400',
  added: 'bg-emerald-100 text-emerald-900',
};

export function ObservationDiff({ before, after, afterLabel = 'purified', limit = 4000 }: { before: string; after: string; afterLabel?: string; limit?: number }) {
  const segments = useMemo(() => observationDiff(before, after), [before, after]);
  const stats = useMemo(() => diffStats(segments), [segments]);
  const [all, setAll] = useState(false);
  const { shown, cut } = useMemo(() => (all ? { shown: segments, cut: false } : truncateSegments(segments, limit)), [segments, all, limit]);
  return (
    <div data-testid="observation-diff">
      <p className="mb-1 flex flex-wrap gap-x-3 text-[11px] text-slate-600">
        <span>
          {before === '' ? 'the step had no observation' : `raw ${before.length.toLocaleString('en')}`} → {afterLabel} {after.length.toLocaleString('en')} characters
        </span>
        <span className="text-red-800">− {stats.removed.toLocaleString('en')} removed</span>
        <span className="text-emerald-800">+ {stats.added.toLocaleString('en')} added</span>
      </p>
      <pre className="max-h-80 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs leading-snug break-words whitespace-pre-wrap">
        {shown.map((seg, i) => (
          <span key={i} data-diff={seg.kind} className={SEGMENT_CLASS[seg.kind]}>
            {seg.text}
          </span>
        ))}
        {cut && '…'}
      </pre>
      {(cut || all) && (
        <button type="button" className="mt-1 text-xs text-indigo-700 hover:underline" onClick={() => setAll(!all)}>
          {all ? 'show less' : 'show the whole diff'}
        </button>
      )}
    </div>
  );
}
