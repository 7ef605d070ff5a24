// What the import worker does, as a pure function so it can be tested without a Worker (jsdom has none).
// Files opened together are imported one by one; annotation files (TRAIL annotations, AgentRx ground truth) are
// attached to the runs of the same batch here, and the library attaches what is left to runs it already holds.
// Everything returned is plain data: it crosses the worker boundary by structured clone, one file at a time, so a
// file whose result cannot be cloned fails alone (see deliverEach). A large run crosses in parts (its shell, then its
// steps in slices), each a short task on the page; its source spans stay with the worker's IndexedDB write (ADR 0020).
import { ImportError, importText, type LoadedFile } from '../import/index.ts';
import { attachAnnotationSets, type AnnotationSet } from '../model/annotations.ts';
import { decodeBytes, TraceDecoder } from '../import/parse-input.ts';

/** A file's bytes, or its text when the worker has read and decoded it already (readFileText). */
export type FileInput = { name: string; bytes: ArrayBuffer | Uint8Array } | { name: string; text: string };

/** Reading progress is reported at most this often (a large file arrives in thousands of chunks). */
const READ_PROGRESS_EVERY_MS = 100;

/**
 * A File read and decoded in one pass, chunk by chunk as it is read (so decoding overlaps the disk, and the file's
 * bytes are never held whole). Throws ImportError for what decodeBytes refuses (binary data, over the limit).
 */
export async function readFileText(name: string, file: Blob, onRead?: (bytesRead: number) => void): Promise<string> {
  const decoder = new TraceDecoder(name);
  const reader = file.stream().getReader();
  let read = 0;
  let reported = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      decoder.push(value);
      read += value.length;
      const now = Date.now();
      if (onRead && now - reported >= READ_PROGRESS_EVERY_MS) {
        reported = now;
        onRead(read);
      }
    }
  } catch (e) {
    void reader.cancel().catch(() => {});
    decoder.checkPushed();
    throw e;
  }
  onRead?.(read);
  return decoder.finish();
}

export type ImportPhase = 'reading' | 'decoding' | 'parsing' | 'attaching' | 'saving';

export interface ImportProgress {
  file: string;
  /** 0-based position of the file in the batch. */
  fileIndex: number;
  fileCount: number;
  phase: ImportPhase;
  bytesRead?: number;
  bytesTotal?: number;
}

/** A failed file: the file, the format tried, where in the file, and what is wrong (SPEC §3). */
export interface ImportFailureInfo {
  file: string;
  format: string;
  location: string;
  detail: string;
}

export interface ImportBatchResult {
  loaded: LoadedFile[];
  failures: ImportFailureInfo[];
}

export function failureOf(file: string, error: unknown): ImportFailureInfo {
  if (error instanceof ImportError) {
    return { file: error.file, format: error.format, location: error.location, detail: error.detail };
  }
  // Importers are meant to throw ImportError only; anything else is still reported, never thrown at the page.
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { file, format: 'unknown', location: '', detail: `unexpected failure: ${detail}` };
}

export function importFiles(inputs: FileInput[], onProgress?: (p: ImportProgress) => void): ImportBatchResult {
  const loaded: LoadedFile[] = [];
  const failures: ImportFailureInfo[] = [];
  const fileCount = inputs.length;
  inputs.forEach((input, fileIndex) => {
    const bytes = 'bytes' in input ? (input.bytes instanceof Uint8Array ? input.bytes : new Uint8Array(input.bytes)) : undefined;
    const size = bytes?.length;
    const report = (phase: ImportPhase) => onProgress?.({ file: input.name, fileIndex, fileCount, phase, bytesRead: size, bytesTotal: size });
    try {
      let text: string;
      if (bytes) {
        report('decoding');
        text = decodeBytes(input.name, bytes);
      } else text = (input as { text: string }).text;
      report('parsing');
      const result = importText(input.name, text);
      const file: LoadedFile = {
        file: input.name,
        format: result.format,
        formatLabel: result.formatLabel,
        runs: result.runs,
        warnings: result.warnings,
        annotationSets: result.annotationSets,
      };
      if (result.llmCalls && result.llmCalls.length > 0) file.llmCalls = result.llmCalls;
      if (result.engineSettings && Object.keys(result.engineSettings).length > 0) file.engineSettings = result.engineSettings;
      loaded.push(file);
    } catch (error) {
      failures.push(failureOf(input.name, error));
    }
  });
  const sets: AnnotationSet[] = loaded.flatMap((f) => f.annotationSets ?? []);
  if (sets.length > 0) {
    onProgress?.({ file: '', fileIndex: fileCount - 1, fileCount, phase: 'attaching' });
    attachAnnotationSets(
      loaded.flatMap((f) => f.runs),
      sets,
    );
  }
  return { loaded, failures };
}

/**
 * Hand each loaded file to `send` on its own (the worker posts it to the page); a file that `send` cannot take — its
 * result does not survive structured cloning — becomes that file's failure instead of failing the whole batch.
 * Returns all the batch's failures.
 */
export async function deliverEach(result: ImportBatchResult, send: (file: LoadedFile) => Promise<void>): Promise<ImportFailureInfo[]> {
  const failures = [...result.failures];
  for (const file of result.loaded) {
    try {
      await send(file);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      failures.push({ file: file.file, format: file.format, location: '', detail: `its contents could not be passed to the page: ${detail}` });
    }
  }
  return failures;
}
