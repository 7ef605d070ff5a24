// Opening files from any entry point (picker, drop, paste, `?src=`, samples): import in the worker, add the results
// to the library, report failures. The import in progress (for the progress bar and Cancel) lives here.
import { create } from 'zustand';
import { MAX_FILE_BYTES, TRACE_FILE_NAME } from '../../import/parse-input.ts';
import { useLibrary } from '../../store/library.ts';
import { expectStoredRuns, flushLibrary, runStorageTargetOnceLoaded } from '../../store/library-db.ts';
import { ImportCancelled, importInWorker, type ImportBatchResult, type ImportProgress, type ImportSource } from '../../workers/import-client.ts';
import { plural } from '../../ui/format.ts';

export interface ImportJob {
  id: number;
  label: string;
  progress?: ImportProgress;
  cancel(): void;
}

interface ImportJobs {
  jobs: ImportJob[];
  /** A short account of the last finished import, announced to screen readers. */
  lastResult?: string;
}

export const useImportJobs = create<ImportJobs>(() => ({ jobs: [] }));

let nextJobId = 1;

export type Importer = typeof importInWorker;

/** Add a batch result to the library; returns a one-line account of it. */
export function addBatchToLibrary(result: ImportBatchResult): string {
  const library = useLibrary.getState();
  // Runs the worker writes itself: registered before they enter the library, so this page never writes them too.
  for (const { file, durable } of result.storing ?? []) void expectStoredRuns(file.runs, durable);
  let runs = 0;
  for (const loaded of result.loaded) {
    library.addLoaded(loaded);
    runs += loaded.runs.length;
  }
  for (const failure of result.failures) library.addFailure(failure);
  if (runs === 1) prepareAhead(result.loaded.find((f) => f.runs.length === 1)!.runs[0].id);
  const parts = [`Opened ${plural(result.loaded.length, 'file', 'files')}`, plural(runs, 'run', 'runs')];
  if (result.failures.length > 0) parts.push(`${result.failures.length} not ${result.failures.length === 1 ? 'a trace' : 'traces'} (see below)`);
  return parts.join(' · ');
}

/**
 * The view of the run a file just brought is built when the page is next idle, before anyone opens it: a file of one
 * run is most often opened next, and its view (an index of its steps, the worker's trace part put together, the
 * timeline's geometry: 100–150 ms of slices at 100k steps, more at 1M) is then ready at the click (ADR 0078). Not for
 * a file of many runs: which one is opened is anyone's guess, and each view holds memory of its own.
 */
function prepareAhead(runId: string): void {
  const start = () =>
    void import('../run-view/run-view-loader.ts')
      .then(({ prepareRunViewAhead }) => {
        const runs = useLibrary.getState().runs;
        if (Object.hasOwn(runs, runId)) prepareRunViewAhead(runs[runId]);
      })
      .catch(() => {}); // the view is then built when the run is opened, as before
  if (typeof requestIdleCallback === 'function') requestIdleCallback(start, { timeout: 1000 });
  else setTimeout(start, 0);
}

/**
 * Import and add to the library. Never throws: failures are in the library's `failures`, a cancel leaves the library
 * as it was. Resolves to the batch result, or undefined when cancelled.
 */
export async function openSources(sources: ImportSource[], label?: string, importer: Importer = importInWorker): Promise<ImportBatchResult | undefined> {
  if (sources.length === 0) return undefined;
  const controller = new AbortController();
  const id = nextJobId++;
  const job: ImportJob = {
    id,
    label: label ?? (sources.length === 1 ? sources[0].name : `${sources.length} files`),
    cancel: () => controller.abort(),
  };
  const update = (patch: Partial<ImportJob>) =>
    useImportJobs.setState((s) => ({ jobs: s.jobs.map((j) => (j.id === id ? { ...j, ...patch } : j)) }));
  useImportJobs.setState((s) => ({ jobs: [...s.jobs, job] }));
  // The write of a single file reports how far it is (the worker's database requests done): shown once the row says
  // it is saving, its latest figure kept until then.
  let writes: { written: number; total: number } | undefined;
  let showWrites: (() => void) | undefined;
  const onSaving = (_file: number, written: number, total: number) => {
    writes = { written, total };
    showWrites?.();
  };
  try {
    const result = await importer(sources, { signal: controller.signal, onProgress: (progress) => update({ progress }), storage: () => runStorageTargetOnceLoaded(), onSaving });
    const account = addBatchToLibrary(result);
    // Done means stored: the import is reported finished (its progress row gone, the account shown) only once the
    // library's IndexedDB write has committed, so a reload right after it cannot lose the files. The runs are in the
    // library meanwhile (each row says it is saving) and open at once: the write is the worker's, not this page's.
    if (result.loaded.length > 0) {
      const last = result.loaded[result.loaded.length - 1];
      const file = result.loaded.length === 1 ? last.file : `${result.loaded.length} files`;
      // Several files: how many the worker has written (a bar); one: how many of its database requests are done (a
      // bar; an indeterminate one before the write starts and once they are all done, until it is durable).
      const storing = result.storing ?? [];
      let done = 0;
      const saving = () => {
        const counted = storing.length > 1 ? { done, total: storing.length } : writes && writes.written < writes.total ? { done: writes.written, total: writes.total, ofWrites: true as const } : {};
        update({ progress: { file, fileIndex: 0, fileCount: 1, phase: 'saving', ...counted } });
      };
      if (storing.length === 1) showWrites = saving;
      saving();
      for (const { durable } of storing) durable.then(() => ((done += 1), saving()), () => {});
    }
    await flushLibrary();
    useImportJobs.setState({ lastResult: account });
    return result;
  } catch (error) {
    if (error instanceof ImportCancelled) {
      useImportJobs.setState({ lastResult: `Cancelled opening ${job.label}` });
      return undefined;
    }
    // The worker itself failed (it could not start, or crashed): still a readable message, never a crash.
    const detail = error instanceof Error ? error.message : String(error);
    for (const s of sources) useLibrary.getState().addFailure({ file: s.name, format: 'unknown', location: '', detail: `the import worker failed: ${detail}` });
    return undefined;
  } finally {
    useImportJobs.setState((s) => ({ jobs: s.jobs.filter((j) => j.id !== id) }));
  }
}

/** Text typed or pasted by the user, imported like a file of that name. */
export function textSource(text: string, name = 'pasted.json'): ImportSource {
  const bytes = new TextEncoder().encode(text);
  return { name, bytes: bytes.buffer };
}

/** The file name a URL's content is shown under: its last path segment. */
export function nameFromUrl(url: string): string {
  try {
    const { pathname, hostname } = new URL(url, location.href);
    const last = decodeURIComponent(pathname.split('/').filter(Boolean).pop() ?? '');
    return last || hostname || url;
  } catch {
    return url;
  }
}

export class FetchProblem extends Error {
  constructor(
    readonly url: string,
    detail: string,
  ) {
    super(detail);
    this.name = 'FetchProblem';
  }
}

/** The reader stopped a fetch (its Cancel button); not a failure of the server. */
export class FetchCancelled extends Error {
  constructor(readonly url: string) {
    super('stopped before the end: nothing was opened');
    this.name = 'FetchCancelled';
  }
}

export interface FetchProgress {
  /** Bytes read so far. */
  received: number;
  /** What the server's Content-Length announced, when it did. */
  total?: number;
}

export interface FetchOptions {
  signal?: AbortSignal;
  onProgress?: (p: FetchProgress) => void;
  /** Bytes allowed; MAX_FILE_BYTES unless given. A gzip body's decoded bytes are limited again by the import. */
  maxBytes?: number;
}

const formatMb = (bytes: number) => (bytes >= 1048576 ? `${Math.round(bytes / 1048576).toLocaleString('en')} MB` : `${bytes.toLocaleString('en')} bytes`);

/** Progress is reported at most this often (a large body arrives in thousands of chunks). */
const PROGRESS_EVERY_MS = 100;

/**
 * Fetch a URL's bytes as a stream (issue 17, item 6): a Content-Length over the limit is refused before a byte is read,
 * a body that grows past it is stopped there, progress is reported as it arrives and `signal` stops it at once. An
 * HTTP error or a refused request (network, CORS, CSP) becomes a FetchProblem; a stop by `signal`, FetchCancelled.
 */
export async function fetchSource(url: string, { signal, onProgress, maxBytes = MAX_FILE_BYTES }: FetchOptions = {}): Promise<{ name: string; bytes: ArrayBuffer }> {
  const cancelled = () => signal?.aborted === true;
  let response: Response;
  try {
    response = await fetch(url, { signal, credentials: 'same-origin' });
  } catch (e) {
    if (cancelled()) throw new FetchCancelled(url);
    const why = e instanceof Error ? e.message : String(e);
    throw new FetchProblem(url, `the request failed (${why}); the server may be down, or the address may not allow loading from this page (CORS or the Content-Security-Policy)`);
  }
  if (!response.ok) throw new FetchProblem(url, `the server answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  const announced = response.headers.get('Content-Length');
  const total = announced !== null && /^\d+$/.test(announced.trim()) ? Number(announced) : undefined;
  if (total !== undefined && total > maxBytes) {
    void response.body?.cancel().catch(() => {});
    throw new FetchProblem(url, `the server announces ${formatMb(total)}; the limit is ${formatMb(maxBytes)}, so nothing was read`);
  }
  onProgress?.({ received: 0, total });
  const body = response.body;
  if (!body) return { name: nameFromUrl(url), bytes: new ArrayBuffer(0) };
  const reader = body.getReader();
  // A stop ends the read in progress at once, whether or not the fetch ties its signal to the body.
  const onStop = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', onStop, { once: true });
  // Written into one buffer as it arrives: sized by Content-Length when announced, grown by doubling otherwise (or when
  // the body is longer than announced, as a transport-compressed one is), so the body is never held twice over.
  let buffer = new Uint8Array(total ?? 1 << 20);
  let received = 0;
  let reported = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.length;
      // Counted as it arrives (a body without Content-Length, or one longer than it said): never held past the limit.
      if (received > maxBytes) {
        void reader.cancel().catch(() => {});
        throw new FetchProblem(url, `the body is larger than the ${formatMb(maxBytes)} limit; stopped reading there`);
      }
      if (received > buffer.length) {
        const grown = new Uint8Array(Math.min(maxBytes, Math.max(received, buffer.length * 2)));
        grown.set(buffer.subarray(0, received - value.length));
        buffer = grown;
      }
      buffer.set(value, received - value.length);
      const now = Date.now();
      if (onProgress && now - reported >= PROGRESS_EVERY_MS) {
        reported = now;
        onProgress({ received, total });
      }
    }
  } catch (e) {
    if (cancelled()) throw new FetchCancelled(url);
    if (e instanceof FetchProblem) throw e;
    throw new FetchProblem(url, `the body stopped arriving (${e instanceof Error ? e.message : String(e)})`);
  } finally {
    signal?.removeEventListener('abort', onStop);
  }
  if (cancelled()) throw new FetchCancelled(url);
  onProgress?.({ received, total });
  const bytes = received === buffer.length ? buffer.buffer : buffer.slice(0, received).buffer;
  return { name: nameFromUrl(url), bytes };
}

/** True when `url` is served by another origin than the studio's own (a relative URL is the studio's). */
export function isForeignUrl(url: string, here: string = location.href): boolean {
  try {
    return new URL(url, here).origin !== new URL(here).origin;
  } catch {
    return true;
  }
}

/** The origin a foreign URL would be fetched from, as shown to the reader. */
export function originOf(url: string, here: string = location.href): string {
  try {
    const u = new URL(url, here);
    return u.origin === 'null' ? `${u.protocol} address` : u.origin;
  } catch {
    return url;
  }
}

/** Of the files in a picked folder (all of its subfolders too), those a trace can be in; the rest are named. */
export function traceFilesOf(files: File[]): { traces: File[]; skipped: string[] } {
  const path = (f: File) => f.webkitRelativePath || f.name;
  const traces = files.filter((f) => TRACE_FILE_NAME.test(f.name));
  const skipped = files.filter((f) => !TRACE_FILE_NAME.test(f.name)).map(path);
  // Stable order (by path inside the folder), so a corpus opens the same way every time.
  traces.sort((a, b) => (path(a) < path(b) ? -1 : path(a) > path(b) ? 1 : 0));
  return { traces, skipped };
}
