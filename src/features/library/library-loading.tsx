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

/**
 * A library load shorter than this shows no box where the list will be: the box would only flash. A load with a run
 * of a million steps lasts seconds, most of it reading (its check takes a fraction of a second since ADR 0076), so
 * every long load passes this delay.
 */
const LOAD_BOX_DELAY_MS = 300;

/** Whether the Library shows the load's progress in place of its list: once the load has lasted LOAD_BOX_DELAY_MS. */
export function useLoadBoxShown(): boolean {
  return useLater(LOAD_BOX_DELAY_MS, 'library-load');
}
