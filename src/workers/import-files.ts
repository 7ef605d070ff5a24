// What the import worker does, as a pure function so it can be tested without a Worker (jsdom has none).
// Files opened together are imported one by one; annotation files (TRAIL annotations, AgentRx ground truth) are
// attached to the runs of the same batch here, and the library attaches what is left to runs it already holds.
// Everything returned is plain data: it crosses the worker boundary by structured clone, one file at a time, so a
// file whose result cannot be cloned fails alone (see deliverEach). A large run crosses in parts (its shell, then its
// steps in slices), each a short task on the page; its source spans stay with the worker's IndexedDB write (ADR 0020).
import { detectOrImportText, detectParsed, ImportError, importDetected, jsonLinesReaderFor, type DetectedInput, type ImportedFile, type LoadedFile } from '../import/index.ts';
import { attachAnnotationSets, type AnnotationSet } from '../model/annotations.ts';
import { mapTicks, stepTicks } from '../model/run-builder.ts';
import { decodeBytes, DecodedPastLimitError, MAX_FILE_BYTES, startsPlainUtf8, TraceDecoder, type ParsedInput } from '../import/parse-input.ts';
import { documentKind, GZIP_JSON_LINES_NAME, JSON_LINES_NAME, readGzipJsonLines, readJsonLines, startsJsonLines } from '../import/jsonl-stream.ts';
import { isGzipStart, pastWholeLimit } from '../import/gunzip.ts';
import { isBusMessage } from '../import/formats/bus-messages.ts';
import { loadTokenCounter, tokenCounterLoaded, tokenEstimatesRefused } from '../import/tokens.ts';

/**
 * A file's bytes, its text when the worker has read and decoded it already (readFileText), or its parsed values when
 * it was read as a stream of JSON Lines (readFileInput).
 */
export type FileInput = { name: string; bytes: ArrayBuffer | Uint8Array } | { name: string; text: string } | { name: string; parsed: ParsedInput };

/** Bytes looked at to tell JSON Lines (read as a stream) from one JSON document (read whole). */
const HEAD_BYTES = 1 << 20;

const megabytes = (n: number) => `${Math.round(n / 1048576).toLocaleString('en')} MB`;

/**
 * A File read for import: JSON Lines (UTF-8, plain or gzip-compressed) as a stream, line by line, so that its text
 * is never one string and a file past the longest string V8 can hold still opens (jsonl-stream.ts); so is one UTF-8
 * JSON document larger than `maxWholeBytes`: an OTLP/JSON export a batch of its spans at a time
 * (otlp-document-stream.ts), any other parsed into its value in pieces (json-value-stream.ts); anything else read
 * whole (UTF-8 by Blob.text(), else decoded by readFileText), refused before a byte is read when it is larger than one
 * string may be. `onProgress` gets the bytes read (undefined: not counted) and the phase ('reading', or 'parsing' for
 * JSON Lines, parsed as they are read).
 */
export async function readFileInput(
  name: string,
  file: Blob,
  onProgress?: (phase: 'reading' | 'parsing', bytesRead: number | undefined) => void,
  /** Larger files are not read whole (tests make it small). */
  maxWholeBytes = MAX_FILE_BYTES,
): Promise<FileInput> {
  const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  // Read as a stream, the bytes are parsed as they are read: the bar says so. Only a message-bus log is named by its
  // text's hash: the text is hashed for that one.
  const streamed = { hashWhen: isBusMessage, onRead: onProgress && ((bytes: number) => onProgress('parsing', bytes)), progressEveryMs: READ_PROGRESS_EVERY_MS, lineReader: jsonLinesReaderFor, readAgain: () => file.stream() };
  const gzipOptions = { ...streamed, namedJsonLines: GZIP_JSON_LINES_NAME.test(name) };
  // The file's own bytes from an offset: read into one buffer, and read on from where a stalled read stood (ADR 0100).
  const reopenAt = (offset: number) => file.slice(offset).stream();
  if (startsJsonLines(head, JSON_LINES_NAME.test(name))) {
    const parsed = await readJsonLines(name, file.stream(), { ...streamed, reopenAt });
    return { name, parsed };
  }
  if (isGzipStart(head)) {
    // gzip-compressed JSON Lines too, decoded as read (the bar counts the compressed bytes); anything else inside is
    // read whole below, from the start again.
    // One JSON document that decodes to more than the limit (the gzip trailer's size of its last member says so, or the
    // compressed size is past it already) is read as a stream too (ADR 0080, 0081); a smaller one is read whole, as
    // when it is not compressed (and read again as a stream if it decodes past the limit after all: below).
    const last4 = new Uint8Array(await file.slice(Math.max(0, file.size - 4)).arrayBuffer());
    const documentWhen = pastWholeLimit(file.size, maxWholeBytes, last4) ? documentKind : undefined;
    const parsed = await readGzipJsonLines(name, file.stream(), { ...gzipOptions, documentWhen });
    if (parsed) return { name, parsed };
  }
  const document = file.size > maxWholeBytes ? documentKind(head) : undefined;
  if (document) {
    // One JSON document too large to read whole, parsed as the text is decoded: an OTLP/JSON export's spans in small
    // exports (ADR 0080), any other document into its value (ADR 0081).
    const parsed = await readJsonLines(name, file.stream(), { ...streamed, document, reopenAt });
    return { name, parsed };
  }
  if (file.size > maxWholeBytes) {
    throw new ImportError(
      name,
      'unknown',
      '',
      `file is ${megabytes(file.size)}; the limit is ${megabytes(maxWholeBytes)} for a file read whole, and only UTF-8 JSON (JSON Lines, or one document starting with { or [), plain or gzip-compressed, is read as a stream past it (a browser holds at most about 512 MB of text in one string). Save the trace as UTF-8 JSON or JSON Lines.`,
    );
  }
  if (startsPlainUtf8(head)) {
    // UTF-8 text is read by the browser in one call: 2× faster than decoding the stream's chunks and joining them
    // (78 MB: 260–290 ms vs 450–660 ms in a worker), at the cost of no count of bytes read meanwhile (the bar is
    // indeterminate). A NUL means binary data: read again as a stream, which says at which byte.
    onProgress?.('reading', undefined);
    const text = await file.text();
    if (text.indexOf('\0') === -1) return { name, text };
  }
  try {
    return { name, text: await readFileText(name, file, onProgress && ((bytes) => onProgress('reading', bytes)), maxWholeBytes) };
  } catch (e) {
    if (!(e instanceof DecodedPastLimitError)) throw e;
    // gzip of several members, the last one small: its trailer said it fits. Read again as a stream, as a trailer
    // that said so would have had it read; refused as before when it holds no JSON document.
    const parsed = await readGzipJsonLines(name, file.stream(), { ...gzipOptions, documentWhen: documentKind });
    if (!parsed) throw e;
    return { name, parsed };
  }
}

/** Reading progress is reported at most this often (a large file arrives in thousands of chunks). */
const READ_PROGRESS_EVERY_MS = 100;

/**
 * A File read and decoded in one pass, chunk by chunk as it is read (so decoding overlaps the disk, and the file's
 * bytes are never held whole). Throws ImportError for what decodeBytes refuses (binary data, over the limit).
 */
export async function readFileText(name: string, file: Blob, onRead?: (bytesRead: number) => void, maxBytes = MAX_FILE_BYTES): Promise<string> {
  const decoder = new TraceDecoder(name, { maxBytes });
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

/**
 * What an import is doing, in order: reading the file (and for JSON Lines parsing it as it is read), decoding bytes
 * in hand, parsing, loading the token counter (a file that estimates its tokens, when not loaded yet), mapping it into runs, attaching annotations, handing the runs to the page, saving them.
 */
export type ImportPhase = 'reading' | 'decoding' | 'parsing' | 'counter' | 'mapping' | 'attaching' | 'handing-over' | 'saving';

export interface ImportProgress {
  file: string;
  /** 0-based position of the file in the batch. */
  fileIndex: number;
  fileCount: number;
  phase: ImportPhase;
  bytesRead?: number;
  bytesTotal?: number;
  /** `parsing` of a text read already (a JSON array of OTLP documents, a document at a time): its bytes are the text's. */
  ofText?: true;
  /** `saving` of one file: `done` and `total` count its database requests (storeRuns), not files. */
  ofWrites?: true;
  /** Work of the phase done and in all (steps handed over, files saved); no `total`: not known (an indeterminate bar). */
  done?: number;
  total?: number;
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

/**
 * Import the files one by one. The token counter is loaded by the first file that needs it (ADR 0038): before mapping
 * a format that always estimates (chat logs, message buses), and for one that estimates only what a file left out
 * (spans without usage) once an estimate was refused, the file then mapped again. A file whose usage is recorded never
 * waits for it. In Node the counter is always loaded.
 */
export async function importFiles(
  inputs: FileInput[],
  onProgress?: (p: ImportProgress) => void,
  loadCounter: () => Promise<void> = loadTokenCounter,
): Promise<ImportBatchResult> {
  const loaded: LoadedFile[] = [];
  const failures: ImportFailureInfo[] = [];
  const fileCount = inputs.length;
  for (const [fileIndex, input] of inputs.entries()) {
    const bytes = 'bytes' in input ? (input.bytes instanceof Uint8Array ? input.bytes : new Uint8Array(input.bytes)) : undefined;
    const size = bytes?.length;
    const report = (phase: ImportPhase) => onProgress?.({ file: input.name, fileIndex, fileCount, phase, bytesRead: size, bytesTotal: size });
    // While an importer maps (one synchronous pass), the steps it has built so far, at most every 100 ms.
    // An importer that counts its work first (OTLP spans, chat messages) says how far it is of a total: the bar is
    // determinate from then on, and the steps counted by RunBuilder no longer report.
    let reported = 0;
    let counted = false;
    stepTicks.onTick = (done) => {
      const now = Date.now();
      if (counted || now - reported < READ_PROGRESS_EVERY_MS) return;
      reported = now;
      onProgress?.({ file: input.name, fileIndex, fileCount, phase: 'mapping', done });
    };
    mapTicks.onTick = (done, total) => {
      counted = true;
      const now = Date.now();
      if (now - reported < READ_PROGRESS_EVERY_MS) return;
      reported = now;
      onProgress?.({ file: input.name, fileIndex, fileCount, phase: 'mapping', done, total });
    };
    try {
      const refused = tokenEstimatesRefused();
      let detected: DetectedInput | undefined;
      /** A JSON array of OTLP documents, imported one document at a time as it was parsed (ADR 0047), and its text. */
      let early: { result: ImportedFile; text: string } | undefined;
      if ('parsed' in input) {
        detected = detectParsed(input.name, input.parsed);
      } else {
        let text: string;
        if (bytes) {
          report('decoding');
          text = decodeBytes(input.name, bytes);
        } else text = (input as { text: string }).text;
        report('parsing');
        // The text goes once parsed (unless the importer reads it): the mapping then runs without the file's text held
        // beside its parsed values (74 MB for the 1M-message chat log). A JSON array of OTLP documents is imported as
        // it is parsed, a document at a time: the row says how far into the text (its "MB" are the text's).
        const read = detectOrImportText(input.name, text, {
          dropText: true,
          onDocument: (end, all) => {
            // Every document read: the runs are built from their spans now.
            if (all) return report('mapping');
            const now = Date.now();
            if (now - reported < READ_PROGRESS_EVERY_MS) return;
            reported = now;
            onProgress?.({ file: input.name, fileIndex, fileCount, phase: 'parsing', bytesRead: end, bytesTotal: text.length, ofText: true });
          },
        });
        if ('importer' in read) detected = read;
        else early = { result: read, text };
        text = '';
        if ('text' in input) input.text = '';
      }
      const importerId = detected?.importer.id ?? 'otlp';
      const loadOrFail = async () => {
        try {
          // The row says so (ADR 0070: a fetch and a read of a few ms in a worker, so no percentage to give).
          onProgress?.({ file: input.name, fileIndex, fileCount, phase: 'counter' });
          await loadCounter();
        } catch (e) {
          const why = e instanceof Error ? e.message : String(e);
          throw new ImportError(input.name, importerId, '', `its token counts must be estimated, and the token counter could not be loaded: ${why}`);
        }
      };
      if (detected?.importer.estimatesTokens && !tokenCounterLoaded()) await loadOrFail();
      let result: ImportedFile | undefined = early?.result;
      let failure: unknown;
      if (detected) {
        report('mapping');
        try {
          result = importDetected(detected);
        } catch (e) {
          failure = e;
        }
      }
      if (tokenEstimatesRefused() !== refused) {
        // An estimate was asked for and refused (whatever the importer made of that): load the counter and map the
        // file again from its parsed input (importers never change it), or its text. What was mapped before is
        // thrown away.
        await loadOrFail();
        counted = false;
        report('mapping');
        failure = undefined;
        const again = detected ?? detectOrImportText(input.name, early!.text, { dropText: true });
        result = 'importer' in again ? importDetected(again) : again;
      }
      early = undefined;
      if (result === undefined) throw failure;
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
    } finally {
      stepTicks.onTick = undefined;
      mapTicks.onTick = undefined;
      // The parsed values (or text) are not needed once the runs are built: the caller's list no longer holds them
      // through the hand-over and the write (a million steps' parsed JSON is hundreds of MB).
      if ('parsed' in input) (input as { parsed: ParsedInput | undefined }).parsed = undefined;
      else if ('text' in input) input.text = '';
    }
  }
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
