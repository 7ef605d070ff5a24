// The saved library's load, shown while it takes time (ADR 0075): after a reload, a library with a large run is read
// and checked for seconds, and an empty list or a bare "Loading…" meanwhile looked like a library lost.
import { usePersistence, type LoadProgress } from '../../store/library-db.ts';
import { formatCount } from '../../ui/format.ts';
import { useLater } from '../../ui/use-later.ts';

/** What the saved library's load is doing, for its progress bar: "reading its runs: 12 of 50 parts". */
export function describeLoad(loading: LoadProgress): string {
  return loading.phase === 'reading'
    ? `reading its runs: ${formatCount(loading.done)} of ${formatCount(loading.total)} parts`
    : `checking its runs: ${Math.floor((100 * loading.done) / Math.max(1, loading.total))}%`;
}

function LoadBar({ loading }: { loading: LoadProgress }) {
  const detail = describeLoad(loading);
  return (
    <>
      <span>Loading the saved library, {detail}…</span>
      <progress className="studio-progress h-2 w-32 shrink-0" aria-label="Loading the saved library" aria-valuetext={detail} max={1} value={loading.total > 0 ? Math.min(1, loading.done / loading.total) : 0} />
    </>
  );
}

/**
 * What a view that needs the library shows until it is loaded (a reload on a run's link): how far the load is, once
 * it has said (`fallback` before that).
 */
export function LibraryLoading({ fallback = 'Loading the library…' }: { fallback?: string }) {
  const loading = usePersistence((s) => (s.status === 'loading' ? s.loading : undefined));
  if (!loading) return <>{fallback}</>;
  return (
    <span className="flex items-center gap-2" data-testid="library-loading" data-phase={loading.phase}>
      <LoadBar loading={loading} />
    </span>
  );
}


/** A library load shorter than this shows no box where the list will be: the box would only flash. */
const LOAD_BOX_DELAY_MS = 300;
/** Steps to check from which a load is long enough to show its box at once (a run of that size takes a second or more). */
const LOAD_BOX_AT_ONCE_STEPS = 10_000;

/**
 * Whether the Library shows the load's progress in place of its list: once the load has lasted LOAD_BOX_DELAY_MS, or
 * at once when it has many steps to check.
 */
export function useLoadBoxShown(): boolean {
  const loading = usePersistence((s) => (s.status === 'loading' ? s.loading : undefined));
  const late = useLater(LOAD_BOX_DELAY_MS, 'library-load');
  return late || (loading?.phase === 'checking' && loading.total >= LOAD_BOX_AT_ONCE_STEPS);
}
