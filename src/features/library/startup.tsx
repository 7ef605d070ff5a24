// What a link asks to open before it shows anything (`?samples=1`, `?src=<url>`), whichever view it names: the
// sources are fetched and opened from the frame, so `?samples=1&view=compare&a=…&b=…` finds its runs in a fresh
// browser. Views ask `useOpeningLinked()` before saying a run is missing.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { create } from 'zustand';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { FetchCancelled, fetchSource, isForeignUrl, openSources, originOf, useImportJobs, type FetchProgress } from './open-files.ts';
import { loadSamples, takeFirstVisit } from './samples.ts';

/** Sources being fetched for the link (before their import job starts). */
const useLinkedFetches = create<{ pending: number }>(() => ({ pending: 0 }));

async function tracked<T>(work: Promise<T>): Promise<T> {
  useLinkedFetches.setState((s) => ({ pending: s.pending + 1 }));
  try {
    return await work;
  } finally {
    useLinkedFetches.setState((s) => ({ pending: s.pending - 1 }));
  }
}

/** True while what the link names (samples, `?src=`) or any other import is still being opened. */
export function useOpeningLinked(): boolean {
  const fetching = useLinkedFetches((s) => s.pending > 0);
  const importing = useImportJobs((s) => s.jobs.length > 0);
  return fetching || importing;
}

/** The bundled samples, from the "Load samples" button: tracked like a link's, so views wait for them. */
export function loadSamplesTracked(): Promise<void> {
  return tracked(loadSamples());
}

/** The `?src=` fetch in progress, for its progress bar. One link names one source. */
const useSourceFetch = create<{ url?: string; progress?: FetchProgress }>(() => ({}));
/** Stops for the fetches in progress, by URL (the reader's Cancel). */
const stops = new Map<string, AbortController>();
/** Foreign origins the reader agreed to load from in this page's life. */
const allowedUrls = new Set<string>();

function fetchWithStop(url: string, querySignal: AbortSignal) {
  const stop = new AbortController();
  stops.set(url, stop);
  const signal = AbortSignal.any([querySignal, stop.signal]);
  useSourceFetch.setState({ url, progress: undefined });
  return tracked(fetchSource(url, { signal, onProgress: (progress) => useSourceFetch.setState({ url, progress }) })).finally(() => {
    if (stops.get(url) === stop) stops.delete(url);
    useSourceFetch.setState((s) => (s.url === url ? { url: undefined, progress: undefined } : s));
  });
}

const mb = (n: number) => `${(n / 1048576).toFixed(n < 10 * 1048576 ? 1 : 0)} MB`;

function SourceProgress({ url }: { url: string }) {
  const progress = useSourceFetch((s) => (s.url === url ? s.progress : undefined));
  const total = progress?.total;
  const received = progress?.received ?? 0;
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm text-slate-600" data-testid="src-progress">
      <span role="status">
        Fetching {url}… {total !== undefined ? `${mb(Math.min(received, total))} of ${mb(total)}` : `${mb(received)}`}
      </span>
      {/* Without Content-Length the bar cannot know its end: indeterminate. */}
      <progress className="studio-progress h-2 w-48" aria-label={`Fetching ${url}`} max={total ?? undefined} value={total !== undefined ? Math.min(received, total) : undefined} />
      <Button size="sm" variant="ghost" onClick={() => stops.get(url)?.abort()}>
        Cancel
      </Button>
    </div>
  );
}

/** Asked before a link makes the studio fetch from another host (issue 17, item 6). */
function ConfirmForeign({ url, onLoad }: { url: string; onLoad: () => void }) {
  const setParams = useUrl((s) => s.setParams);
  return (
    <div role="alertdialog" aria-label="Load a trace from another site?" data-testid="src-confirm" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
      <p className="font-semibold">Load a trace from {originOf(url)}?</p>
      <p className="mt-0.5 break-all">
        The link asks to fetch <span className="font-mono">{url}</span>. It is fetched from that host and stored in this browser.
      </p>
      <div className="mt-2 flex gap-2">
        <Button size="sm" variant="primary" onClick={onLoad}>
          Load it
        </Button>
        <Button size="sm" onClick={() => setParams({ src: undefined })}>
          Don’t load
        </Button>
      </div>
    </div>
  );
}

/** `?src=<url>`: fetched once per URL (TanStack Query keeps it), then opened like any file. */
function SourceFromUrl({ url }: { url: string }) {
  const [allowed, setAllowed] = useState(() => !isForeignUrl(url) || allowedUrls.has(url));
  const query = useQuery({
    queryKey: ['src', url],
    queryFn: ({ signal }) => fetchWithStop(url, signal),
    enabled: allowed,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  const opened = useRef<unknown>(undefined);
  useEffect(() => {
    if (!query.data || opened.current === query.data) return;
    opened.current = query.data;
    // The worker takes ownership of the bytes it is given; the cached copy stays usable.
    void openSources([{ name: query.data.name, bytes: query.data.bytes.slice(0) }]);
  }, [query.data]);
  if (!allowed) {
    return (
      <ConfirmForeign
        url={url}
        onLoad={() => {
          allowedUrls.add(url);
          setAllowed(true);
        }}
      />
    );
  }
  if (query.isPending || query.isFetching) return <SourceProgress url={url} />;
  if (query.isError) {
    const cancelled = query.error instanceof FetchCancelled;
    return (
      <ErrorBanner tone={cancelled ? 'warning' : 'error'} title={cancelled ? `Stopped fetching ${url}` : `Could not fetch ${url}`}>
        <span>{query.error.message}</span>{' '}
        <Button size="sm" variant="ghost" onClick={() => void query.refetch()}>
          {cancelled ? 'Fetch again' : 'Try again'}
        </Button>
      </ErrorBanner>
    );
  }
  return null;
}

/** Samples on `?samples=1`, and on the very first visit when the library is empty. */
function useSamplesOnStart(setSampleError: (e: string | undefined) => void) {
  const hydrated = useLibrary((s) => s.hydrated);
  const asked = useUrl((s) => s.params.samples === '1');
  const started = useRef(false);
  useEffect(() => {
    if (!hydrated || started.current) return;
    started.current = true;
    const firstVisit = takeFirstVisit();
    const empty = useLibrary.getState().files.length === 0;
    if (asked || (firstVisit && empty)) {
      loadSamplesTracked().catch((e: unknown) => setSampleError(e instanceof Error ? e.message : String(e)));
    }
  }, [hydrated, asked, setSampleError]);
}

/** Mounted once by the frame, above every view. */
export function LinkedSources() {
  const src = useUrl((s) => s.params.src);
  const [sampleError, setSampleError] = useState<string>();
  useSamplesOnStart(setSampleError);
  if (!src && !sampleError) return null;
  return (
    <div className="flex flex-col gap-1 border-b border-slate-200 bg-white px-4 py-1" data-testid="linked-sources">
      {src && <SourceFromUrl url={src} />}
      {sampleError && (
        <ErrorBanner title="Could not load the bundled samples" onDismiss={() => setSampleError(undefined)}>
          {sampleError}
        </ErrorBanner>
      )}
    </div>
  );
}
