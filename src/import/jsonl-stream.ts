// JSON Lines read as a stream (issue 14 goal 2): the bytes are decoded chunk by chunk, cut into lines and each line
// parsed on its own, so the file's text is never one string. A file longer than V8's longest string (2^29 − 24
// characters, ~512 MB) can be read this way, where the whole-text path (parse-input.ts) must refuse it. The result is
// the `jsonl` ParsedInput that parseText gives for the same text, with the same errors and locations, except that
// it holds no text: `textHash` is the hash of the text (hashText), for the one importer that names its run by it.
import { ImportError, syntaxDetail } from './errors.ts';
import { checkJsonDepth } from './json-depth.ts';
import type { ParsedInput } from './parse-input.ts';
import { TextHash } from '../model/hash.ts';
import { GunzipError, GunzipStream } from './gunzip.ts';
import { OtlpDocumentStream, startsOtlpDocument, type DocumentPiece } from './otlp-document-stream.ts';
import { JsonValueStream } from './json-value-stream.ts';
import { startsPlainUtf8 } from './parse-input.ts';

/** V8's longest string, in UTF-16 code units: a file whose text is longer can only be read as a stream. */
export const MAX_STRING_CHARS = 2 ** 29 - 24;

/**
 * A JSON Lines input read as a stream: no text; the text's hash instead (see hashText), when it was asked for. One
 * value alone is a `json` input, as parseText makes it.
 */
export type StreamedJsonLines = ParsedInput & { textHash?: string };

/** The hash of a JSON Lines input's text (hashText of it), whether it was read whole or as a stream. */
export function textHashOf(doc: ParsedInput): string | undefined {
  const hash = (doc as { textHash?: unknown }).textHash;
  return typeof hash === 'string' ? hash : undefined;
}

/** Where on its line a parse error is, as parseText says it: `line L, column C`, or `line L` when JSON.parse does not say. */
function locationOf(err: unknown, line: string, number: number): string {
  const msg = err instanceof Error ? err.message : String(err);
  const pos = /position (\d+)/.exec(msg);
  if (pos) return `line ${number}, column ${Number(pos[1]) + 1}`;
  const lc = /line \d+ column (\d+)/.exec(msg);
  if (lc) return `line ${number}, column ${lc[1]}`;
  if (/end of (JSON )?input|Unterminated/i.test(msg)) return `line ${number}, column ${line.length + 1} (end of the line)`;
  return `line ${number}`;
}

/**
 * Reads each line's value as it is parsed, so that the parsed input need not hold it (an importer's first pass made
 * while the file is read: formats/otlp.ts OtlpLinesReader). It pushes onto `values` what the parsed input holds for
 * the line: the value itself, or a stand-in once it has read it (the importer then takes what it read instead).
 */
export interface JsonLinesReader {
  /**
   * `lines.checkDepth(value)` refuses the line when it nests too deeply (checkJsonDepth, with the line's number): the
   * reader calls it for every value unless it checks the depth itself as it reads the value, and then calls it where
   * its own check finds the value too deep (so that the error, its JSON path included, is the same).
   */
  push(value: unknown, values: unknown[], lines: LineDepthCheck): void;
  /**
   * After the last line: true when the reader gave up values for a reading the import will not use (the file turned
   * out to be something else). The parsed input is then incomplete: the file must be read again without a reader.
   */
  spoiled(values: unknown[]): boolean;
  /** How to name the line at `index` (0-based) in what it reports (by default `line N`). */
  nameLines?(name: (index: number) => string): void;
}

/** The whole-value depth check of the line being pushed (JsonLinesReader.push). */
export interface LineDepthCheck {
  checkDepth(value: unknown): void;
}

/**
 * Decoded text in, one parsed value per non-blank line out. A leading byte order mark is dropped (as parseText does);
 * a line is parsed when its newline arrives, the last one at finish().
 */
export class JsonLinesParser implements LineDepthCheck {
  readonly values: unknown[] = [];
  private hash: TextHash | undefined;
  /** Text seen before the first value decided whether to hash (it is hashed then, in order). */
  private pending: string[] | undefined = [];
  private carry = '';
  private line = 0;
  private started = false;
  /** How a line is named in errors (1-based; `line N` unless the lines stand for something else: documentSink). */
  lineName = (line: number): string => `line ${line}`;

  /**
   * `hashWhen(first value)`: whether to hash the text (a pass over every character, so only for the importer whose
   * run id is that hash: the message-bus log). Always without it.
   */
  constructor(
    private readonly file: string,
    private readonly hashWhen: (first: unknown) => boolean = () => true,
    private readonly reader?: JsonLinesReader,
  ) {}

  /** Whether the reader gave up values it should not have (see JsonLinesReader.spoiled): read the file again without it. */
  get spoiled(): boolean {
    return this.reader !== undefined && this.reader.spoiled(this.values);
  }

  /** Lines read so far (blank ones included). */
  get lines(): number {
    return this.line;
  }

  push(text: string): void {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.hash) this.hash.update(text);
    else if (this.pending) this.pending.push(text);
    let from = 0;
    let nl = text.indexOf('\n');
    if (nl === -1) {
      this.carry = this.carry === '' ? text : this.carry + text;
      return;
    }
    this.take(this.carry === '' ? text.slice(0, nl) : this.carry + text.slice(0, nl));
    this.carry = '';
    from = nl + 1;
    while ((nl = text.indexOf('\n', from)) !== -1) {
      this.take(text.slice(from, nl));
      from = nl + 1;
    }
    this.carry = text.slice(from);
  }

  /** A value parsed elsewhere, taken as the next line's (a small export of an OTLP document's spans: documentSink). */
  takeValue(value: unknown): void {
    this.line++;
    this.takeParsed(value);
  }

  private take(line: string): void {
    this.line++;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new ImportError(this.file, 'jsonl', locationOf(e, line, this.line), syntaxDetail(e));
    }
    this.takeParsed(value);
  }

  private takeParsed(value: unknown): void {
    // A reader checks the depth of the lines it reads as it reads them (the OTLP reader, ADR 0040): one walk fewer.
    if (this.reader) this.reader.push(value, this.values, this);
    else {
      this.checkDepth(value);
      this.values.push(value);
    }
    if (this.pending) this.decideHash(value);
  }

  /** LineDepthCheck: refuses the line being read when `value` (its value) nests too deeply. */
  checkDepth(value: unknown): void {
    checkJsonDepth(this.file, value, `${this.lineName(this.line)}: `);
  }

  private decideHash(first: unknown): void {
    const pending = this.pending!;
    this.pending = undefined;
    if (!this.hashWhen(first)) return;
    this.hash = new TextHash();
    for (const text of pending) this.hash.update(text);
  }

  finish(): StreamedJsonLines {
    if (this.carry !== '') this.take(this.carry);
    this.carry = '';
    if (this.values.length === 0) throw new ImportError(this.file, 'unknown', '', 'the file is empty');
    const doc: StreamedJsonLines = this.values.length === 1 ? { kind: 'json', value: this.values[0], text: '' } : { kind: 'jsonl', values: this.values, text: '' };
    if (this.hash) doc.textHash = this.hash.digest();
    return doc;
  }
}

/**
 * Whether a file whose first bytes are `head` is JSON Lines that can be read as a stream: UTF-8 (no UTF-16 byte order
 * mark or zero bytes, not gzip), its first non-blank line a JSON object or array on its own, and more than blank text
 * after it. A first line longer than `head` cannot be looked at: then `namedJsonLines` (a `.jsonl`/`.ndjson` name)
 * decides. Otherwise the whole-text path decides (one JSON document, UTF-16, gzip, or a broken file).
 */
export function startsJsonLines(head: Uint8Array, namedJsonLines = false): boolean {
  if (head.length < 2) return false;
  if (head[0] === 0x1f && head[1] === 0x8b) return false; // gzip
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return false; // UTF-16
  const firstNewline = head.indexOf(10);
  if (head.subarray(0, Math.min(head.length, firstNewline === -1 ? 4096 : firstNewline + 4096)).indexOf(0) !== -1) return false; // UTF-16 or binary
  let text = new TextDecoder('utf-8').decode(head);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let from = 0;
  for (;;) {
    const nl = text.indexOf('\n', from);
    if (nl === -1) {
      const start = text.slice(from).trimStart()[0];
      return namedJsonLines && (start === '{' || start === '[');
    }
    const line = text.slice(from, nl);
    from = nl + 1;
    if (line.trim() === '') continue;
    const first = line.trimStart()[0];
    if (first !== '{' && first !== '[') return false;
    try {
      JSON.parse(line);
    } catch {
      return false;
    }
    return /\S/.test(text.slice(from));
  }
}

/** A file name that says JSON Lines (not compressed). */
export const JSON_LINES_NAME = /\.(jsonl|ndjson)$/i;
/** A gzip file name that says JSON Lines inside. */
export const GZIP_JSON_LINES_NAME = /\.(jsonl|ndjson)\.gz$/i;

type ByteSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

function iterate(chunks: ByteSource): AsyncIterator<Uint8Array> & { cancel(): void } {
  if ('getReader' in chunks) {
    const reader = chunks.getReader();
    return {
      next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
      cancel: () => void reader.cancel().catch(() => {}),
    };
  }
  const it = chunks[Symbol.asyncIterator]();
  return { next: () => it.next(), cancel: () => void it.return?.() };
}

/**
 * A gzip decoder that hands back what each push decodes, its failures as ImportErrors of `file`. gunzipChunks drives it
 * from a stream, gunzipPieces from bytes read synchronously (the command line).
 */
function gunzipper(file: string): { push(bytes: Uint8Array): Uint8Array[]; finish(): Uint8Array[] } {
  let out: Uint8Array[] = [];
  const gunzip = new GunzipStream({ maxBytes: Number.POSITIVE_INFINITY, onData: (c) => out.push(c) });
  const taken = (work: () => void): Uint8Array[] => {
    try {
      work();
    } catch (e) {
      if (e instanceof GunzipError) throw new ImportError(file, 'gzip', '', e.message);
      throw e;
    }
    const pieces = out;
    out = [];
    return pieces;
  };
  return { push: (bytes) => taken(() => gunzip.push(bytes)), finish: () => taken(() => gunzip.finish()) };
}

/**
 * gzip-compressed bytes in, decoded bytes out, as they come (gunzip.ts: every member, each member's CRC checked), so
 * the decoded file is never held whole; `onCompressed` is told the compressed bytes read so far after each chunk.
 * A broken stream is an ImportError of format `gzip`, as the whole-text path says it.
 */
export async function* gunzipChunks(file: string, chunks: ByteSource, onCompressed?: (bytesRead: number) => void): AsyncGenerator<Uint8Array, void, void> {
  const gunzip = gunzipper(file);
  const source = iterate(chunks);
  let read = 0;
  let done = false;
  try {
    for (;;) {
      const next = await source.next();
      if (next.done) break;
      read += next.value.length;
      // Handed on at once: fflate gives a new buffer for every piece, and the reader decodes each before the next push.
      const pieces = gunzip.push(next.value);
      onCompressed?.(read);
      yield* pieces;
    }
    yield* gunzip.finish();
    done = true;
  } finally {
    if (!done) source.cancel();
  }
}

/** The decoded bytes of gzip-compressed ones that `next` gives in order (undefined at their end), piece by piece. */
export function gunzipPieces(file: string, next: () => Uint8Array | undefined): () => Uint8Array | undefined {
  const gunzip = gunzipper(file);
  let pieces: Uint8Array[] = [];
  let at = 0;
  let ended = false;
  return () => {
    while (at === pieces.length && !ended) {
      const bytes = next();
      if (bytes === undefined) ended = true;
      pieces = bytes === undefined ? gunzip.finish() : gunzip.push(bytes);
      at = 0;
    }
    return at < pieces.length ? pieces[at++] : undefined;
  };
}

/** Whether `bytes` are one line and its newline, then nothing but white space. */
function onlyFirstLine(bytes: Uint8Array): boolean {
  const nl = bytes.indexOf(10);
  if (nl === -1) return false;
  for (let i = nl + 1; i < bytes.length; i++) if (bytes[i] !== 10 && bytes[i] !== 13 && bytes[i] !== 32 && bytes[i] !== 9) return false;
  return true;
}

/** Bytes of decoded text looked at to tell JSON Lines inside a gzip file (as readFileInput does for a plain file). */
const GZIP_HEAD_BYTES = 1 << 20;

/**
 * A gzip-compressed file read as a stream when it holds JSON Lines (startsJsonLines of its first decoded MB; the name
 * without `.gz` decides a first line longer than that): decoded, cut and parsed as read, so neither the file's
 * decoded bytes nor its text are ever whole, whatever their size; so is one JSON document when `documentWhen` says so
 * (readJsonLines' `document`). undefined when it holds something else (one JSON document, UTF-16): the caller reads it whole.
 * `onRead` is told the compressed bytes read.
 */
export async function readGzipJsonLines(
  file: string,
  chunks: ByteSource,
  /** `documentWhen(head)`: whether what it holds, not JSON Lines, is one JSON document to read as a stream, and which (`document`). */
  options: ReadJsonLinesOptions & { namedJsonLines?: boolean; documentWhen?: (head: Uint8Array) => DocumentKind | undefined } = {},
): Promise<StreamedJsonLines | undefined> {
  let compressed = 0;
  const decoded = gunzipChunks(file, chunks, (n) => (compressed = n));
  const head: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  let first = new Uint8Array(0);
  // The first MB, and more while it ends right after its first line: a file of one gzip member per line (as `cat`
  // of gzip files makes) decodes line by line, and startsJsonLines needs to see text after the first line.
  for (let want = GZIP_HEAD_BYTES; ; want = size + 1) {
    while (size < want) {
      const next = await decoded.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      size += next.value.length;
    }
    first = new Uint8Array(size);
    let at = 0;
    for (const piece of head) {
      first.set(piece, at);
      at += piece.length;
    }
    if (ended || size > 8 * GZIP_HEAD_BYTES || !onlyFirstLine(first)) break;
  }
  const lines = startsJsonLines(first, options.namedJsonLines);
  const document = lines ? undefined : options.documentWhen?.(first);
  if (!lines && !document) {
    if (!ended) await decoded.return();
    return undefined;
  }
  async function* all(): AsyncGenerator<Uint8Array> {
    yield first;
    if (!ended) yield* decoded;
  }
  const onRead = options.onRead;
  const reader = options.readAgain ? options.lineReader?.(file) : undefined;
  const doc = await readLines(file, all(), { ...options, document, onRead: onRead && ((_, values) => onRead(compressed, values)) }, reader);
  if (doc !== undefined) return doc;
  return readGzipJsonLines(file, options.readAgain!(), { ...options, lineReader: undefined, readAgain: undefined });
}

export interface ReadJsonLinesOptions {
  /** See JsonLinesParser: whether to hash the text, from the first value. */
  hashWhen?: (first: unknown) => boolean;
  /** Bytes read so far, at most every `progressEveryMs`. */
  onRead?: (bytesRead: number, values: number) => void;
  progressEveryMs?: number;
  /**
   * A reader of each line's value as it is parsed, for this file name (index.ts jsonLinesReaderFor), used only with
   * `readAgain`: the file is read again without it when it gave up values for nothing (JsonLinesReader.spoiled).
   */
  lineReader?: (file: string) => JsonLinesReader | undefined;
  /** The file's bytes again, from the start (for gzip input: the compressed bytes). */
  readAgain?: () => ByteSource;
  /** The bytes are one JSON document, not JSON Lines: an OTLP/JSON export, or any other (see readJsonLines, documentKind). */
  document?: DocumentKind;
  /**
   * The same bytes as the stream read, from `offset` on, as a new stream (a File's slice). Given, a byte stream is read
   * into one buffer of the reader's own (BYOB, ADR 0100), and a read that has not come back within `readStallMs` is given
   * up for the default reader of a new stream from where the reading stands. Only for the file's own bytes, never for
   * bytes decoded from them (gzip).
   */
  reopenAt?: (offset: number) => ReadableStream<Uint8Array>;
  /** READ_STALL_MS unless given (tests). */
  readStallMs?: number;
}

/**
 * A UTF-8 JSON Lines byte stream read and parsed line by line; throws ImportError as parseText would. With `document`,
 * one JSON document however long:
 * - 'otlp': an OTLP/JSON document (an export with resourceSpans, or an array of them; otlp-document-stream.ts): its
 *   spans, in small exports of their resource and scope, each read as a line of OTLP JSON Lines would be; the result
 *   is the `jsonl` input of those exports (`json` for one), and its errors and warnings name places in the file;
 * - 'json': any other (json-value-stream.ts): the `json` input JSON.parse would give, its depth left to the importer.
 */
export async function readJsonLines(file: string, chunks: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>, options: ReadJsonLinesOptions = {}): Promise<StreamedJsonLines> {
  const reader = options.readAgain ? options.lineReader?.(file) : undefined;
  const doc = await readLines(file, chunks, options, reader);
  if (doc !== undefined) return doc;
  return readJsonLines(file, options.readAgain!(), { ...options, lineReader: undefined, readAgain: undefined });
}

/** Where a batch of a document's spans is in the file, as its errors name it. */
function pieceName(piece: DocumentPiece): string {
  return `the spans from line ${piece.line}, column ${piece.column}`;
}

/** An error met reading a small export (named by where its spans begin, pieceName), as this format's. */
function asOtlp(error: unknown): unknown {
  return error instanceof ImportError && error.format === 'jsonl' ? new ImportError(error.file, 'otlp', error.location, error.detail) : error;
}

/** The kinds of one JSON document read as a stream (readJsonLines' `document`). */
export type DocumentKind = 'otlp' | 'json';

/**
 * How a file over the whole-read limit whose decoded text starts with `head` is read as a stream when it is not JSON
 * Lines: as an OTLP document ('otlp'), as any other JSON document ('json': UTF-8 starting with `{` or `[`), or not
 * (undefined: UTF-16, binary, not JSON).
 */
export function documentKind(head: Uint8Array): DocumentKind | undefined {
  if (!startsPlainUtf8(head)) return undefined;
  if (startsOtlpDocument(head)) return 'otlp';
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 32 || head[i] === 10 || head[i] === 13 || head[i] === 9)) i++;
  return head[i] === 0x7b /* { */ || head[i] === 0x5b /* [ */ ? 'json' : undefined;
}

/** The decoded text's sink: JSON Lines (the parser itself), or one OTLP document cut into small exports. */
interface TextSink {
  push(text: string): void;
  finish(): StreamedJsonLines;
}

/** One JSON document of any other kind, parsed into its value as its text comes (json-value-stream.ts). */
function valueSink(file: string): TextSink {
  const stream = new JsonValueStream(file);
  return {
    push: (text) => stream.push(text),
    finish() {
      stream.finish();
      // Its depth is checked by the importer, or before it (index.ts importDetected), as for a document read whole.
      return { kind: 'json', value: stream.value, text: '', depthUnchecked: true };
    },
  };
}

function documentSink(file: string, parser: JsonLinesParser, lineReader: JsonLinesReader | undefined): TextSink {
  const names: string[] = [];
  const name = (index: number) => names[index] ?? `line ${index + 1}`;
  parser.lineName = (line) => name(line - 1);
  lineReader?.nameLines?.(name);
  const stream = new OtlpDocumentStream(file, (piece) => {
    names.push(pieceName(piece));
    try {
      parser.takeValue(piece.value);
    } catch (error) {
      throw asOtlp(error);
    }
  });
  return {
    push: (text) => stream.push(text),
    finish() {
      stream.finish();
      // A document without spans: read as it is (the importer says what it lacks), not as an empty file.
      if (names.length === 0) parser.takeValue({ resourceSpans: [] });
      return parser.finish();
    },
  };
}

/**
 * The reading of one byte stream, its bytes pushed in order: decoded, checked for a NUL byte, and given to the JSON
 * Lines parser (or, for one OTLP document, to its stream). readLines drives it from a stream; the command line from a
 * file read in pieces (readJsonLinesSync).
 */
class ByteReading {
  readonly parser: JsonLinesParser;
  private readonly sink: TextSink;
  private readonly decoder = new TextDecoder('utf-8');
  /** Bytes read so far. */
  read = 0;

  constructor(
    private readonly file: string,
    hashWhen: ((first: unknown) => boolean) | undefined,
    lineReader: JsonLinesReader | undefined,
    document: DocumentKind | undefined,
  ) {
    this.parser = new JsonLinesParser(file, hashWhen, document === 'json' ? undefined : lineReader);
    this.sink = document === 'otlp' ? documentSink(file, this.parser, lineReader) : document === 'json' ? valueSink(file) : this.parser;
  }

  push(bytes: Uint8Array): void {
    const piece = this.decoder.decode(bytes, { stream: true });
    // Looked for in the text (a string's indexOf is ~10× a Uint8Array's, ADR 0022): in UTF-8 a U+0000 comes only from
    // a zero byte, and a streaming decoder never holds one back, so the zero is in this chunk's bytes.
    if (piece.indexOf('\0') !== -1) {
      throw new ImportError(this.file, 'unknown', `byte ${this.read + bytes.indexOf(0)}`, 'binary data (a NUL byte), not a text trace');
    }
    this.sink.push(piece);
    this.read += bytes.length;
  }

  /** The parsed input; undefined when the line reader spoiled it (read the bytes again without one). */
  finish(): StreamedJsonLines | undefined {
    this.sink.push(this.decoder.decode());
    const doc = this.sink.finish();
    return this.parser.spoiled ? undefined : doc;
  }
}

/** readJsonLines with `reader`; undefined when the reader spoiled the input (the caller reads the file again). */
async function readLines(file: string, chunks: ByteSource, options: ReadJsonLinesOptions, lineReader: JsonLinesReader | undefined): Promise<StreamedJsonLines | undefined> {
  const reading = new ByteReading(file, options.hashWhen, lineReader, options.document);
  const every = options.progressEveryMs ?? 100;
  let reported = 0;
  const reopenAt = options.reopenAt;
  let byob = reopenAt && 'getReader' in chunks ? byobReaderOf(chunks) : undefined;
  let reader = byob === undefined && 'getReader' in chunks ? chunks.getReader() : undefined;
  const iterator = byob === undefined && reader === undefined ? (chunks as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]() : undefined;
  let buffer = byob ? new ArrayBuffer(READ_BUFFER_BYTES) : undefined;
  let doc: StreamedJsonLines | undefined;
  try {
    for (;;) {
      let next: { done?: boolean; value?: Uint8Array };
      if (byob) {
        const read = await readWithin(byob, buffer!, options.readStallMs ?? READ_STALL_MS);
        if (read === undefined) {
          // Stalled (ADR 0096: Chromium's BYOB read of a Blob can stop for good): that reader is let go and the bytes
          // from where the reading stands are read again, from a stream of their own, with the default reader. Only
          // what was pushed counts, so nothing is read twice nor skipped.
          void byob.cancel().catch(() => {});
          byob = undefined;
          buffer = undefined;
          reader = reopenAt!(reading.read).getReader();
          continue;
        }
        next = read;
      } else next = reader ? await reader.read() : await iterator!.next();
      if (next.done || next.value === undefined) break;
      reading.push(next.value);
      // ByteReading.push has made text of the bytes: the buffer is read into again.
      if (byob) buffer = next.value.buffer as ArrayBuffer;
      const now = Date.now();
      if (options.onRead && now - reported >= every) {
        reported = now;
        options.onRead(reading.read, reading.parser.values.length);
      }
    }
    options.onRead?.(reading.read, reading.parser.values.length);
    doc = reading.finish();
  } catch (e) {
    if (byob) void byob.cancel().catch(() => {});
    else if (reader) void reader.cancel().catch(() => {});
    else void iterator!.return?.();
    throw e;
  }
  return doc;
}

/**
 * The buffer a byte stream is read into, over and over (ADR 0100): the default reader makes a new ~64 KB–1 MB buffer a
 * chunk, whose contents the worker's heap holds until collected (a 510 MB file's worth over a read).
 */
const READ_BUFFER_BYTES = 1 << 20;

/**
 * How long a read into our buffer may take before it is taken as stalled (ADR 0100). A read of a file's next MB takes
 * a few milliseconds; one given up early costs nothing but the rest of the file read without our buffer.
 */
export const READ_STALL_MS = 500;

/** A byte stream's BYOB reader; undefined for a stream of chunks (not a byte stream), read with the default reader. */
function byobReaderOf(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return stream.getReader({ mode: 'byob' });
  } catch {
    return undefined;
  }
}

/** The next bytes read into `buffer`, or undefined when they have not come within `ms`. */
function readWithin(byob: ReadableStreamBYOBReader, buffer: ArrayBuffer, ms: number): Promise<ReadableStreamReadResult<Uint8Array> | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  return Promise.race([byob.read(new Uint8Array(buffer)), stalled]).finally(() => clearTimeout(timer));
}

/**
 * readJsonLines for bytes read synchronously: `open()` starts a reading of the file from its start, whose function
 * gives its next bytes (undefined at the end). The command line's reading of a file larger than it reads whole.
 */
export function readJsonLinesSync(
  file: string,
  open: () => () => Uint8Array | undefined,
  options: Pick<ReadJsonLinesOptions, 'hashWhen' | 'lineReader' | 'document'> = {},
): StreamedJsonLines {
  const read = (lineReader: JsonLinesReader | undefined) => {
    const reading = new ByteReading(file, options.hashWhen, lineReader, options.document);
    const next = open();
    for (let bytes = next(); bytes !== undefined; bytes = next()) reading.push(bytes);
    return reading.finish();
  };
  // Read again without the line reader when it spoiled the input (a reading without one never does).
  return read(options.lineReader?.(file)) ?? read(undefined)!;
}
