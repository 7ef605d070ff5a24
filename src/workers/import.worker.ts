// The import worker: parsing happens here, off the main thread (SPEC §3). Reached only through ./import-client.ts.
// Each loaded file goes to the page in parts (run-parts.ts, send-parts.ts); when the page names its library database, the runs
// are then written there from here, and the page learns when each file's runs are durable (ADR 0020).
import * as Comlink from 'comlink';
import { deliverEach, failureOf, importFiles, readFileInput, type FileInput, type ImportFailureInfo, type ImportProgress } from './import-files.ts';
import type { FilePart } from './run-parts.ts';
import { sendInParts } from './send-parts.ts';
import { sendTraceParts } from './trace-parts.ts';
import { tracePartRun, type TracePart, type TracePartRun } from '../features/run-view/trace-parts.ts';
import { readSpans, storeRuns, type RunStorage } from './import-storage.ts';
import type { SpanSlice } from './span-slices.ts';
import { countStepFacts, type StepFacts } from '../model/step-facts.ts';
import { loadTokenCounter, setCounterLoader } from '../import/tokens.ts';

// The token counter (o200k: a 5 MB table fetched and read in a few ms, ADR 0070; gpt-tokenizer's encoder, ~100 MB
// and ~0.3–1 s of work, when ADR 0038 was written) loads when the first file asks for an estimate (importFiles), or
// when the worker has waited PRELOAD_IDLE_MS from its start without a file, whichever comes first (ADR 0038): a file
// dropped right after the page opens is not held up while it loads, and a chat log dropped later finds it ready.
const PRELOAD_IDLE_MS = 2500;
// Read from the build's table asset (src/llm/token-table.ts).
setCounterLoader(() => import('../llm/token-table.ts').then((m) => m.loadO200kCounter()));
let started = false;
setTimeout(() => {
  if (!started) void loadTokenCounter().catch(() => {}); // a failed load: the files that need it say so
}, PRELOAD_IDLE_MS);

export interface ImportCallbacks {
  onPart(part: FilePart): Promise<void>;
  onProgress?(p: ImportProgress): void;
  /**
   * The runs of the `file`-th delivered file are durable (`error` unset; `spansApart`: the runs whose spans were
   * written apart, to be read when shown) or could not be written.
   */
  onStored?(file: number, error?: string, spansApart?: string[]): void;
  /** How far the write of the `file`-th delivered file is (storeRuns: its database requests made and done, of `total`). */
  onSaving?(file: number, written: number, total: number): void;
  /** Resolves when the page is idle: the write starts then, so it never competes with the run view's first paint. */
  whenIdle?(): Promise<void>;
  /**
   * The step facts (src/model/step-facts.ts) of each run of the file just handed over, counted here while the page
   * takes its parts: the page lists and opens the run without a pass over its steps. `steps`: each run's step count.
   */
  onFacts?(file: string, steps: number[], facts: StepFacts[]): Promise<void>;
  /**
   * The trace part of the run view of the `run`-th run of the file just handed over (src/workers/trace-parts.ts),
   * computed while the page takes the parts; `steps`: that run's step count and its first and last step ids, by which
   * the page finds the run (undefined `part`: none could be made).
   */
  onTracePart?(file: string, run: number, steps: TracePartRun, part?: TracePart): Promise<void>;
  /**
   * Where to write the runs, asked once they are mapped, before the first part is handed over (when `importFiles` was
   * given no storage): the page answers once its library has loaded (a file opened while it loads is written here
   * too, not by the page's thread). Undefined: the page writes them.
   */
  storage?(): Promise<RunStorage | undefined>;
}

/**
 * What imports left running after their answer (trace parts, writes), until it ends: the page waits for it
 * (`settled`) before it replaces a worker that holds a large import's garbage (import-client.ts, ADR 0077).
 */
const background = new Set<Promise<void>>();

function inBackground(work: Promise<unknown>): void {
  const done = work.then(
    () => {},
    () => {},
  );
  background.add(done);
  void done.then(() => background.delete(done));
}

/** What importFiles does: read the files, map them, hand them over, and write them when the page names its database. */
async function importNow(sources: (FileInput | { name: string; file: Blob })[], callbacks: ImportCallbacks, given?: RunStorage): Promise<ImportFailureInfo[]> {
  // Files (picker, drop) are read here, decoded as they are read: the page never holds their bytes.
  const inputs: FileInput[] = [];
  const unread: ImportFailureInfo[] = [];
  for (const [fileIndex, source] of sources.entries()) {
    if (!('file' in source)) {
      inputs.push(source);
      continue;
    }
    const bytesTotal = source.file.size;
    try {
      inputs.push(
        await readFileInput(source.name, source.file, (phase, bytesRead) =>
          callbacks.onProgress?.({ file: source.name, fileIndex, fileCount: sources.length, phase, bytesRead, bytesTotal }),
        ),
      );
    } catch (error) {
      unread.push(failureOf(source.name, error));
    }
  }
  const result = await importFiles(inputs, callbacks.onProgress);
  result.failures = [...unread, ...result.failures];
  const storage = given ?? (result.loaded.length > 0 ? await callbacks.storage?.() : undefined);
  const delivered: number[] = [];
  const fileCount = result.loaded.length;
  const viewed: Promise<void>[] = [];
  const failures = await deliverEach(result, async (file) => {
    const fileIndex = result.loaded.indexOf(file);
    // Handing over: the worker says how much there is, before the first part; the page counts the parts it takes
    // (a report sent from here after each part would queue behind every part already posted, and arrive at the end).
    const total = file.runs.reduce((n, r) => n + r.steps.length + r.handoffs.length, 0);
    callbacks.onProgress?.({ file: file.file, fileIndex, fileCount, phase: 'handing-over', done: 0, total });
    const handing = sendInParts(file, (part, transfer) => callbacks.onPart(Comlink.transfer(part, transfer)), storage === undefined);
    // Counted while the page takes the parts (posted already, or being posted as the page asks): told before the
    // answer, so the page has them when it lists the runs.
    // They are a shortcut only: a page that cannot take them counts them itself.
    const told = Promise.resolve(
      callbacks.onFacts?.(
        file.file,
        file.runs.map((r) => r.steps.length),
        file.runs.map((r) => countStepFacts(r.steps)),
      ),
    ).catch(() => {});
    await handing;
    await told;
    // Not awaited: computed in turns once the page has taken the file's parts (computed while it takes them, both
    // threads' work competed for the 2 cores: the listing came later and the page's receiving tasks grew past 100 ms);
    // the answer does not wait for it (the write does).
    const onTracePart = callbacks.onTracePart;
    if (onTracePart) viewed.push(sendTraceParts(file.runs, (run, part, transfer) => onTracePart(file.file, run, tracePartRun(file.runs[run].steps), part && Comlink.transfer(part, transfer))));
    delivered.push(fileIndex);
  });
  viewed.forEach(inBackground);
  if (storage) {
    // One file after the other, not awaited: the answer goes back now, the writes report as they commit, and
    // they start once the page is idle (a run opened at once paints first).
    inBackground(delivered.reduce<Promise<void>>(
      (previous, index, position) =>
        previous.then(() =>
          storeRuns(storage, result.loaded[index].runs, callbacks.onSaving && ((written, total) => void callbacks.onSaving?.(position, written, total))).then(
            (spansApart) => callbacks.onStored?.(position, undefined, spansApart),
            (e: unknown) => callbacks.onStored?.(position, e instanceof Error ? `${e.name}: ${e.message}` : String(e)),
          ),
        ),
      Promise.all([callbacks.whenIdle?.(), ...viewed]).then(() => {}, () => {}),
    )); // a report the page can no longer take (it went away) is nobody's to handle: inBackground drops its failure
  }
  return failures;
}

const api = {
  /**
   * Each loaded file goes to `onPart` in parts; the failures are the answer. With `storage`, the runs are written
   * there after the whole batch has been handed over (the page never waits for the write to show them). `bundled`:
   * the studio's own samples, which leave the token counter's idle preload to run (ADR 0109).
   */
  async importFiles(sources: (FileInput | { name: string; file: Blob })[], callbacks: ImportCallbacks, storage?: RunStorage, bundled = false): Promise<ImportFailureInfo[]> {
    // The studio's own samples (a first visit) are not the person's first file: the idle preload still runs after them.
    if (!bundled) started = true;
    return importNow(sources, callbacks, storage);
  },

  /** Resolves once the work the imports left running (trace parts, writes) has ended, theirs and any started meanwhile. */
  async settled(): Promise<void> {
    while (background.size > 0) await Promise.all(background);
  },

  /** A run's stored spans, to `onSlice` in slices (the span tree opened); resolves to how many there were. */
  readSpans(storage: RunStorage, runId: string, onSlice: (slice: SpanSlice) => Promise<void>): Promise<number> {
    return readSpans(storage, runId, (slice, transfer) => onSlice(Comlink.transfer(slice, transfer)));
  },
};

export type ImportWorkerApi = typeof api;

Comlink.expose(api);
