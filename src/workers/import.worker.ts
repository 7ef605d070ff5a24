// The import worker: parsing happens here, off the main thread (SPEC §3). Reached only through ./import-client.ts.
// Each loaded file goes to the page in parts (run-parts.ts); when the page names its library database, the runs
// are then written there from here, and the page learns when each file's runs are durable (ADR 0020).
import * as Comlink from 'comlink';
import { deliverEach, failureOf, importFiles, readFileText, type FileInput, type ImportFailureInfo, type ImportProgress } from './import-files.ts';
import { sendInParts, type FilePart } from './run-parts.ts';
import { readSpans, storeRuns, type RunStorage } from './import-storage.ts';
import type { RunSpan } from '../model/types.ts';

export interface ImportCallbacks {
  onPart(part: FilePart): Promise<void>;
  onProgress?(p: ImportProgress): void;
  /** The runs of the `file`-th delivered file are durable (`error` unset) or could not be written. */
  onStored?(file: number, error?: string): void;
  /** Resolves when the page is idle: the write starts then, so it never competes with the run view's first paint. */
  whenIdle?(): Promise<void>;
}

const api = {
  /**
   * Each loaded file goes to `onPart` in parts; the failures are the answer. With `storage`, the runs are written
   * there after the whole batch has been handed over (the page never waits for the write to show them).
   */
  async importFiles(sources: (FileInput | { name: string; file: Blob })[], callbacks: ImportCallbacks, storage?: RunStorage): Promise<ImportFailureInfo[]> {
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
        const text = await readFileText(source.name, source.file, (bytesRead) =>
          callbacks.onProgress?.({ file: source.name, fileIndex, fileCount: sources.length, phase: 'reading', bytesRead, bytesTotal }),
        );
        inputs.push({ name: source.name, text });
      } catch (error) {
        unread.push(failureOf(source.name, error));
      }
    }
    const result = importFiles(inputs, callbacks.onProgress);
    result.failures = [...unread, ...result.failures];
    const delivered: number[] = [];
    const failures = await deliverEach(result, async (file) => {
      await sendInParts(file, callbacks.onPart, storage === undefined);
      delivered.push(result.loaded.indexOf(file));
    });
    if (storage) {
      // One file after the other, not awaited: the answer goes back now, the writes report as they commit, and
      // they start once the page is idle (a run opened at once paints first).
      void delivered.reduce<Promise<void>>(
        (previous, index, position) =>
          previous.then(() =>
            storeRuns(storage, result.loaded[index].runs).then(
              () => callbacks.onStored?.(position),
              (e: unknown) => callbacks.onStored?.(position, e instanceof Error ? `${e.name}: ${e.message}` : String(e)),
            ),
          ),
        Promise.resolve(callbacks.whenIdle?.()).catch(() => {}),
      );
    }
    return failures;
  },

  /** A run's stored spans, to `onSlice` in slices (the span tree opened); resolves to how many there were. */
  readSpans(storage: RunStorage, runId: string, onSlice: (slice: RunSpan[]) => Promise<void>): Promise<number> {
    return readSpans(storage, runId, onSlice);
  },
};

export type ImportWorkerApi = typeof api;

Comlink.expose(api);
