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
import { fetchSource, openSources, useImportJobs } from './open-files.ts';
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

/** `?src=<url>`: fetched once per URL (TanStack Query keeps it), then opened like any file. */
function SourceFromUrl({ url }: { url: string }) {
  const query = useQuery({
    queryKey: ['src', url],
    queryFn: ({ signal }) => tracked(fetchSource(url, signal)),
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
  if (query.isPending) return <p className="text-sm text-slate-600">Fetching {url}…</p>;
  if (query.isError) {
    return (
      <ErrorBanner title={`Could not fetch ${url}`}>
        <span>{query.error.message}</span>{' '}
        <Button size="sm" variant="ghost" onClick={() => void query.refetch()}>
          Try again
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
