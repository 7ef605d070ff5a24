// The main thread's side of the import worker: read files (with byte progress), hand the bytes over as transferable
// buffers, and get plain results back, each file in parts (no one long task to receive a large run). With `storage`
// the worker also writes the runs to the library's database; `storing` says when each file's runs are durable.
// Cancelling terminates the worker, the only way to stop a synchronous parse; the next import starts a fresh one.
// The first worker is created when the page is idle after its first paint (ADR 0022), so a dropped file finds it
// started; after a cancel the next one is created by the next import (or span read) that needs it. A worker that has
// imported a large file is replaced by a fresh one once its work has ended (ADR 0077): it would otherwise keep what
// that import left behind (hundreds of MB for a run of a million steps) until its next import.
import * as Comlink from 'comlink';
import type { ImportBatchResult as LoadedBatch, ImportProgress } from './import-files.ts';
import { FileAssembler, partRows, type FilePart } from './run-parts.ts';
import { deliverTracePart, expectTracePart, isTracePartRun, type TracePart, type TracePartRun } from '../features/run-view/trace-parts.ts';
import type { LoadedFile } from '../import/index.ts';
import type { RunSpan } from '../model/types.ts';
import { rememberStepFacts, type StepFacts } from '../model/step-facts.ts';
import type { ImportCallbacks, ImportWorkerApi } from './import.worker.ts';
import type { RunStorage } from './import-storage.ts';
import { SpanSliceTaker, type SpanSlice } from './span-slices.ts';

export type { ImportFailureInfo, ImportProgress } from './import-files.ts';
export type { RunStorage } from './import-storage.ts';

/**
 * What the worker wrote, per loaded file: `durable` settles when that file's runs are in the database, to the ids of
 * the runs whose spans were written apart.
 */
export interface StoringFile {
  file: LoadedFile;
  durable: Promise<string[]>;
}

export interface ImportBatchResult extends LoadedBatch {
  /** With `storage`: the files whose runs the worker is writing (not the page). */
  storing?: StoringFile[];
}

/** A file to import: a browser File (picker, drop) or bytes already in hand (paste, fetch). */
export type ImportSource = File | { name: string; bytes: ArrayBuffer };

export interface ImportOptions {
  onProgress?: (p: ImportProgress) => void;
  signal?: AbortSignal;
  /**
   * The library database the worker writes the runs into (the page then does not); a function is asked once the runs
   * are mapped, before they are handed over (the page's library may still be loading when the import starts).
   */
  storage?: RunStorage | (() => Promise<RunStorage | undefined>);
  /** How far the worker's write of the `file`-th loaded file is (its database requests done, of how many). */
  onSaving?: (file: number, written: number, total: number) => void;
  /**
   * The studio's bundled samples: the worker still loads the token counter once idle (ADR 0038), as it does before a
   * person's first file (ADR 0109).
   */
  bundled?: boolean;
}

let worker: Worker | undefined;
let remote: Comlink.Remote<ImportWorkerApi> | undefined;
/** Writes the worker has not reported yet: a worker that stops (cancel, crash) fails them rather than leave them open. */
const unsettled = new Set<(error: Error) => void>();

/**
 * Files of this many bytes (together, in one import) or more leave the worker holding what their import made: it is
 * replaced once that import's work has ended and no other call is under way (ADR 0077). A smaller import's leftovers
 * are collected by the worker's next work; a fresh worker costs 50–300 ms of its own start-up.
 */
export const RECYCLE_BYTES = 32 * 1024 * 1024;
/** So do this many rows (steps and handoffs) handed over from one file, whatever its bytes (a gzip file, say). */
export const RECYCLE_ROWS = 100_000;

/** Each worker made gets the next number: a call started on one that has since gone does not count for the next. */
let generation = 0;
/** Calls of the current worker under way: imports until their background work has ended, span reads. */
let busy = 0;
/** Whether the current worker has done a large import (RECYCLE_BYTES, RECYCLE_ROWS): it is replaced once `busy` is 0. */
let spent = false;

function connect(): Comlink.Remote<ImportWorkerApi> {
  if (!remote) {
    generation++;
    busy = 0;
    spent = false;
    worker = new Worker(new URL('./import.worker.ts', import.meta.url), { type: 'module', name: 'import' });
    worker.addEventListener('error', (e) => failUnsettled(new Error(e.message || 'the import worker stopped unexpectedly')));
    remote = Comlink.wrap<ImportWorkerApi>(worker);
  }
  return remote;
}

/** A call on the current worker begins; the function returned says it has ended (once; nothing for a worker gone). */
function begin(): () => void {
  const of = generation;
  busy++;
  let ended = false;
  return () => {
    if (ended || of !== generation) return;
    ended = true;
    busy--;
    if (busy === 0 && spent) recycle();
  };
}

/** Replaces the worker by a fresh one (made when the page is idle): the old one's heap goes with it, no collection needed. */
function recycle(): void {
  worker?.terminate();
  worker = undefined;
  remote = undefined;
  startImportWorkerWhenIdle();
}

function failUnsettled(error: Error): void {
  for (const fail of unsettled) fail(error);
  unsettled.clear();
}

function disconnect(): void {
  worker?.terminate();
  worker = undefined;
  remote = undefined;
  generation++; // the calls under way on it end with it
  failUnsettled(new Error('the import worker was stopped before the runs were written'));
}

export class ImportCancelled extends Error {
  constructor() {
    super('import cancelled');
    this.name = 'ImportCancelled';
  }
}

/**
 * A run's spans stored apart (ADR 0020), read by the import worker and received in slices, so that neither reading
 * nor receiving them is one long task on the page. Undefined when none are stored. Step spans come back compacted
 * (their attributes are the step's `raw`): `restore` gives each span back its attributes.
 */
export async function readSpansInWorker(storage: RunStorage, runId: string, restore: (span: RunSpan) => RunSpan = (s) => s): Promise<RunSpan[] | undefined> {
  const api = connect();
  const end = begin();
  const taker = new SpanSliceTaker(runId, restore);
  const count = await api.readSpans(
    storage,
    runId,
    // Each slice is made and restored as it arrives: the work is spread over the slices' tasks.
    Comlink.proxy(async (slice: SpanSlice) => taker.take(slice)),
  ).finally(end);
  return count === 0 ? undefined : taker.spans;
}

/**
 * The step facts the worker counted for the file it has just handed over (ImportCallbacks.onFacts): they come after
 * that file's parts, on the same channel, so the file taken last is theirs when its name and its runs' step counts
 * match; otherwise (that file could not be taken) they are dropped, and the page counts for itself. Returns whether
 * they were taken.
 */
export function takeStepFacts(loaded: readonly LoadedFile[], name: string, steps: readonly number[], facts: readonly StepFacts[]): boolean {
  const file = loaded[loaded.length - 1];
  if (!file || file.file !== name || file.runs.length !== steps.length || facts.length !== steps.length) return false;
  if (file.runs.some((r, i) => r.steps.length !== steps[i] || facts[i].counted !== steps[i])) return false;
  file.runs.forEach((run, i) => rememberStepFacts(run, facts[i]));
  return true;
}

/** Hand-over progress is shown at most this often. */
const HAND_OVER_PROGRESS_EVERY_MS = 100;

/** Longest wait for an idle moment before the worker writes anyway. */
const IDLE_WAIT_MS = 2000;

/** After the next frame, once the page has nothing else to do (or IDLE_WAIT_MS at the latest). */
function whenIdle(): Promise<void> {
  return new Promise((resolve) => {
    const idle = () => (typeof requestIdleCallback === 'function' ? requestIdleCallback(() => resolve(), { timeout: IDLE_WAIT_MS }) : setTimeout(resolve, 0));
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(idle, 0));
    else idle();
  });
}

/** Import files in the worker. Rejects with ImportCancelled when the signal aborts; per-file errors are in the result. */
export async function importInWorker(sources: ImportSource[], { onProgress, signal, storage: given, onSaving, bundled = false }: ImportOptions = {}): Promise<ImportBatchResult> {
  if (signal?.aborted) throw new ImportCancelled();
  const fileCount = sources.length;
  // Files go to the worker as they are (a handle, not their bytes): it reads and decodes them itself. A file too big
  // to hold as one string is read there as a stream when it is JSON Lines, else refused after a look at its head.
  const inputs: ({ name: string; bytes: ArrayBuffer } | { name: string; file: File })[] = [];
  for (const [fileIndex, source] of sources.entries()) {
    if (source instanceof File) {
      onProgress?.({ file: source.name, fileIndex, fileCount, phase: 'reading', bytesRead: 0, bytesTotal: source.size });
      inputs.push({ name: source.name, file: source });
    } else {
      inputs.push(source);
    }
  }
  const api = connect();
  const of = generation;
  const end = begin();
  if (sources.reduce((n, s) => n + (s instanceof File ? s.size : s.bytes.byteLength), 0) >= RECYCLE_BYTES) spent = true;
  // Known at once, or when the worker asks (before its first part).
  let storage = typeof given === 'function' ? undefined : given;
  const loaded: LoadedFile[] = [];
  const assembler = new FileAssembler();
  // One promise per delivered file, settled by the worker's onStored (in delivery order).
  const durable: { promise: Promise<string[]>; settle(error?: string, spansApart?: string[]): void }[] = [];
  // The hand-over in progress, as the worker announced it: the parts taken here advance it (at most every 100 ms).
  let handing: ImportProgress | undefined;
  let handingReported = 0;
  const callbacks: ImportCallbacks = {
    async onPart(part: FilePart) {
      const rows = partRows(part);
      if (handing && rows > 0) {
        handing = { ...handing, done: (handing.done ?? 0) + rows };
        const now = Date.now();
        if (now - handingReported >= HAND_OVER_PROGRESS_EVERY_MS) {
          handingReported = now;
          onProgress?.(handing);
        }
      }
      const file = assembler.take(part);
      if (!file) return;
      for (const run of file.runs) expectTracePart(run.steps);
      loaded.push(file);
      if (!storage) return;
      let settle!: (error?: string, spansApart?: string[]) => void;
      const promise = new Promise<string[]>((resolve, reject) => {
        const fail = (e: Error) => reject(e);
        unsettled.add(fail);
        settle = (error, spansApart) => {
          unsettled.delete(fail);
          if (error === undefined) resolve(spansApart ?? []);
          else reject(new Error(error));
        };
      });
      promise.catch(() => {}); // reported through `storing`; a batch nobody reads must not raise an unhandled rejection
      durable.push({ promise, settle });
    },
    onProgress(p: ImportProgress) {
      handing = p.phase === 'handing-over' ? p : undefined;
      if (handing && (handing.total ?? 0) >= RECYCLE_ROWS && of === generation) spent = true;
      onProgress?.(p);
    },
    onStored(file: number, error?: string, spansApart?: string[]) {
      durable[file]?.settle(error, spansApart);
    },
    onSaving(file: number, written: number, total: number) {
      onSaving?.(file, written, total);
    },
    async onFacts(name: string, steps: number[], facts: StepFacts[]) {
      takeStepFacts(loaded, name, steps, facts);
    },
    async onTracePart(name: string, run: number, named: TracePartRun, part?: TracePart) {
      // The file taken last with that name whose run is the one named (the parts come after the file's own parts).
      for (let i = loaded.length - 1; i >= 0; i--) {
        const steps = loaded[i].file === name ? loaded[i].runs[run]?.steps : undefined;
        if (steps && isTracePartRun(steps, named)) return deliverTracePart(steps, part);
      }
    },
    whenIdle,
    // Always there: through Comlink's proxy, a method the page lacks would be a call that fails.
    async storage() {
      if (typeof given === 'function') storage = await given();
      return storage;
    },
  };
  const buffers = inputs.flatMap((i) => ('bytes' in i ? [i.bytes] : []));
  const imported = api.importFiles(Comlink.transfer(inputs, buffers), Comlink.proxy(callbacks), typeof given === 'function' ? undefined : given, bundled);
  const work = imported.then((failures): ImportBatchResult => {
    const result: ImportBatchResult = { loaded, failures };
    if (storage) result.storing = loaded.map((file, i) => ({ file, durable: durable[i].promise }));
    return result;
  });
  const running = worker!;
  return new Promise<ImportBatchResult>((resolve, reject) => {
    const onAbort = () => {
      disconnect();
      reject(new ImportCancelled());
    };
    // A worker that fails to load or dies (out of memory) never answers: fail the call instead of hanging.
    const onError = (e: ErrorEvent) => {
      disconnect();
      reject(new Error(e.message || 'the import worker stopped unexpectedly'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    running.addEventListener('error', onError, { once: true });
    work.then(resolve, reject).finally(() => {
      signal?.removeEventListener('abort', onAbort);
      running.removeEventListener('error', onError);
      // Its trace parts and writes go on after the answer; a worker stopped meanwhile is a generation gone (end: nothing).
      void api.settled().then(end, end);
    });
  });
}

/**
 * Creates the worker once the page is idle after its first paint (at most IDLE_WAIT_MS later): its module takes
 * 50–300 ms to evaluate, and a file dropped later would wait for it. Not in a page without workers (tests). Called by
 * main.tsx once the app renders (not on import: a page refusing to render inside a frame starts nothing, and a module
 * without side effects keeps the first-paint chunks as they were).
 */
export function startImportWorkerWhenIdle(): void {
  if (typeof Worker !== 'function' || typeof document === 'undefined') return;
  void whenIdle().then(() => {
    connect();
  });
}

