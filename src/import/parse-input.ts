// Bytes → text → JSON or JSON Lines, with the location of any syntax error. gzip input (every member) is accepted,
// and so is UTF-16 text with a byte order mark. Bytes can be pushed as they are read (the command line streams files),
// with the size limit applied to the raw bytes and, for gzip, to the decoded bytes as they come out.
import { ImportError, syntaxDetail } from './errors.ts';
import { formatMb, GunzipError, GunzipStream, isGzipStart } from './gunzip.ts';
import { checkJsonDepth } from './json-depth.ts';

/** Files above this size are refused (V8 cannot hold a longer string); for gzip, the limit of the decoded bytes. */
export const MAX_FILE_BYTES = 400 * 1024 * 1024;

/** Names a trace file may have; other files in a folder (READMEs, images, scripts) are left out. */
export const TRACE_FILE_NAME = /\.(json|jsonl|ndjson|gz)$/i;

export type ParsedInput =
  | {
      kind: 'json';
      value: unknown;
      text: string;
      /**
       * The nesting depth is not checked yet (parseText's `deferDepth`): the importer checks it as it reads
       * (FormatImporter.checksDepth) and clears this, or importDetected checks it before anything else.
       */
      depthUnchecked?: boolean;
    }
  | { kind: 'jsonl'; values: unknown[]; text: string };

export interface DecodeOptions {
  /** Raw and decoded bytes allowed; MAX_FILE_BYTES unless given (tests use a small one). */
  maxBytes?: number;
}

type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** The text encoding of a trace's first bytes: a UTF-16 byte order mark, or JSON's `{`/`[` followed by a zero byte. */
/**
 * Whether a file starting with `head` is read as UTF-8 text (no gzip header, no UTF-16 byte order mark or pattern):
 * such a file's text is what Blob.text() gives, the same UTF-8 decode (a BOM dropped, invalid bytes as U+FFFD).
 */
export function startsPlainUtf8(head: Uint8Array): boolean {
  return head.length >= 4 && !isGzipStart(head) && sniffEncoding(head) === 'utf-8';
}

function sniffEncoding(b: Uint8Array): TextEncoding {
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b.length >= 4 && b[0] !== 0 && b[1] === 0 && b[2] !== 0 && b[3] === 0) return 'utf-16le';
  if (b.length >= 4 && b[0] === 0 && b[1] !== 0 && b[2] === 0 && b[3] !== 0) return 'utf-16be';
  return 'utf-8';
}

/**
 * Decoded bytes to a string, piece by piece; refuses binary data (a NUL). The last piece is kept undecoded until the
 * next one or finish(), which decodes it in the final, non-streaming call: a whole file pushed at once is then one
 * plain decode (several times faster than a streaming one, with no intermediate copy) and one string, nothing to join.
 *
 * The NUL is looked for in each decoded piece (a one-byte string's indexOf: ~3 ms for 100 MB, where a Uint8Array's
 * indexOf(0) takes 40–70 ms). In UTF-8 a U+0000 comes from a zero byte and from nothing else (a zero byte is never
 * part of a multi-byte sequence; invalid bytes become U+FFFD), so the text holds a NUL exactly when the bytes hold a
 * zero, and the byte offset in the message is found in the piece's bytes then. A piece is checked when it is decoded,
 * one push later; `checkHeld` checks the held piece first where a later error could be raised (the size limit), so
 * that the first problem in the file is still the one reported. Bytes coming out of gunzip are checked as they come
 * (`bytesAtOnce`): a NUL found there is raised inside the inflater's callback, where it has always been reported.
 */
class TextSink {
  private head: Uint8Array = new Uint8Array(0);
  private encoding: TextEncoding | undefined;
  private decoder: TextDecoder | undefined;
  private readonly parts: string[] = [];
  private held: Uint8Array | undefined;
  /** The byte offset of `held` in the decoded bytes. */
  private heldOffset = 0;
  private offset = 0;
  /** Check each piece's bytes when it is pushed (gzip output), not its text when it is decoded. */
  bytesAtOnce = false;

  constructor(private readonly file: string) {}

  push(chunk: Uint8Array): void {
    if (this.encoding) return this.write(chunk);
    if (this.head.length === 0 && chunk.length >= 4) return this.start(chunk);
    const head = new Uint8Array(this.head.length + chunk.length);
    head.set(this.head);
    head.set(chunk, this.head.length);
    if (head.length < 4) {
      this.head = head;
      return;
    }
    this.start(head);
  }

  private start(head: Uint8Array): void {
    this.head = new Uint8Array(0);
    this.encoding = sniffEncoding(head);
    this.decoder = new TextDecoder(this.encoding);
    this.write(head);
  }

  private write(bytes: Uint8Array): void {
    if (this.bytesAtOnce && this.encoding === 'utf-8') {
      const nul = bytes.indexOf(0);
      if (nul !== -1) throw new ImportError(this.file, 'unknown', `byte ${this.offset + nul}`, 'binary data (a NUL byte), not a text trace');
    }
    if (this.held) this.parts.push(this.checked(this.decoder!.decode(this.held, { stream: true })));
    this.held = bytes;
    this.heldOffset = this.offset;
    this.offset += bytes.length;
  }

  /** The decoded piece of `held`, refused when it holds a NUL (UTF-8; UTF-16 text is checked whole at the end). */
  private checked(piece: string): string {
    if (this.encoding === 'utf-8' && !this.bytesAtOnce && piece.indexOf('\0') !== -1) this.refuseHeld();
    return piece;
  }

  private refuseHeld(): never {
    const nul = this.held!.indexOf(0);
    throw new ImportError(this.file, 'unknown', `byte ${this.heldOffset + nul}`, 'binary data (a NUL byte), not a text trace');
  }

  /** Refuses the held, not yet decoded bytes if they hold a NUL: called before raising an error found after them. */
  checkHeld(): void {
    if (this.encoding === 'utf-8' && !this.bytesAtOnce && this.held && this.held.indexOf(0) !== -1) this.refuseHeld();
  }

  finish(): string {
    if (!this.encoding) this.start(this.head);
    const last = this.held;
    this.parts.push(last ? this.checked(this.decoder!.decode(last)) : this.decoder!.decode());
    this.held = undefined;
    const text = this.parts.length === 1 ? this.parts[0] : this.parts.join('');
    this.parts.length = 0;
    if (this.encoding !== 'utf-8') {
      const nul = text.indexOf('\0');
      if (nul !== -1) throw new ImportError(this.file, 'unknown', `character ${nul}`, `binary data (a NUL character in ${this.encoding === 'utf-16le' ? 'UTF-16 LE' : 'UTF-16 BE'} text), not a text trace`);
    }
    return text;
  }
}

/**
 * gzip whose decoded text passed the limit while it was read whole: its trailer said less (it gives the size of the
 * last member only, and a file may have several). The reader may read it again as a stream (ADR 0081).
 */
export class DecodedPastLimitError extends ImportError {}

/**
 * A trace file's bytes to text, pushed as they are read. gzip is recognised by its first two bytes and decoded as a
 * stream; more than `maxBytes` read or decoded stops at once with an ImportError.
 */
export class TraceDecoder {
  private readonly maxBytes: number;
  private readonly text: TextSink;
  private first: Uint8Array = new Uint8Array(0);
  private gunzip: GunzipStream | undefined;
  private plain = false;
  private raw = 0;

  constructor(
    private readonly file: string,
    options: DecodeOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
    this.text = new TextSink(file);
  }

  /** The bytes are read until the next push or finish(): a pushed buffer must not be reused before then. */
  push(chunk: Uint8Array): void {
    this.raw += chunk.length;
    if (this.raw > this.maxBytes) {
      this.text.checkHeld();
      throw new ImportError(this.file, 'unknown', '', `file is larger than the ${formatMb(this.maxBytes)} limit`);
    }
    if (this.gunzip) return this.gunzipPush(chunk);
    if (this.plain) return this.text.push(chunk);
    if (this.first.length === 0 && chunk.length >= 2) return this.begin(chunk);
    const first = new Uint8Array(this.first.length + chunk.length);
    first.set(this.first);
    first.set(chunk, this.first.length);
    if (first.length < 2) {
      this.first = first;
      return;
    }
    this.first = new Uint8Array(0);
    this.begin(first);
  }

  private begin(first: Uint8Array): void {
    if (isGzipStart(first)) {
      this.text.bytesAtOnce = true;
      this.gunzip = new GunzipStream({ maxBytes: this.maxBytes, onData: (c) => this.text.push(c) });
      this.gunzipPush(first);
    } else {
      this.plain = true;
      this.text.push(first);
    }
  }

  private gunzipPush(chunk: Uint8Array): void {
    this.guard(() => this.gunzip!.push(chunk));
  }

  private guard(run: () => void): void {
    try {
      run();
    } catch (e) {
      if (e instanceof GunzipError) throw new (e.kind === 'limit' ? DecodedPastLimitError : ImportError)(this.file, 'gzip', '', e.message);
      throw e;
    }
  }

  /**
   * Refuses what was pushed if it holds a NUL not yet reported (the last piece is checked when it is decoded): a
   * reader that fails after a push calls this first, so the first problem in the file is the one it reports.
   */
  checkPushed(): void {
    this.text.checkHeld();
  }

  finish(): string {
    if (!this.gunzip && !this.plain) this.begin(this.first);
    if (this.gunzip) this.guard(() => this.gunzip!.finish());
    return this.text.finish();
  }
}

export function decodeBytes(file: string, bytes: Uint8Array, options: DecodeOptions = {}): string {
  const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
  if (bytes.length > maxBytes) {
    throw new ImportError(file, 'unknown', '', `file is ${(bytes.length / 1048576).toFixed(0)} MB; the limit is ${formatMb(maxBytes)}`);
  }
  const decoder = new TraceDecoder(file, { maxBytes });
  decoder.push(bytes);
  return decoder.finish();
}

/** `line L, column C` of a character offset. */
export function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

function syntaxLocation(text: string, err: unknown, base = 0): string {
  const msg = err instanceof Error ? err.message : String(err);
  const pos = /position (\d+)/.exec(msg);
  if (pos) return lineColumn(text, base + Number(pos[1]));
  const lc = /line (\d+) column (\d+)/.exec(msg);
  if (lc) return `line ${lc[1]}, column ${lc[2]}`;
  return /end of (JSON )?input|Unterminated/i.test(msg) ? `${lineColumn(text, text.length)} (end of file)` : '';
}

function parsesAlone(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

export interface ParseOptions {
  /**
   * Leave the nesting-depth check of a JSON document (not of JSON Lines, checked line by line) to the caller, who
   * must make it before using the value anywhere it could matter (ParsedInput's `depthUnchecked`; index.ts).
   */
  deferDepth?: boolean;
}

export function parseText(file: string, text: string, options: ParseOptions = {}): ParsedInput {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const trimmed = body.trim();
  if (trimmed === '') throw new ImportError(file, 'unknown', '', 'the file is empty');
  if (trimmed[0] !== '{' && trimmed[0] !== '[') {
    throw new ImportError(file, 'unknown', 'line 1, column 1', 'not JSON or JSON Lines (a trace file starts with { or [)');
  }
  let whole: unknown;
  try {
    whole = JSON.parse(body);
  } catch (wholeError) {
    // JSON Lines: several documents, one per line. Only when the first line is a document on its own — otherwise
    // this is one (broken) JSON document and the error belongs where JSON.parse found it.
    const lines = body.split('\n');
    const values: unknown[] = [];
    const firstLine = lines.find((l) => l.trim() !== '') ?? '';
    if (lines.filter((l) => l.trim() !== '').length < 2 || !parsesAlone(firstLine)) {
      throw new ImportError(file, 'json', syntaxLocation(body, wholeError), syntaxDetail(wholeError));
    }
    let offset = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line.trim() !== '') {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (lineError) {
          throw new ImportError(file, 'jsonl', syntaxLocation(body, lineError, offset) || `line ${i + 1}`, syntaxDetail(lineError));
        }
        checkJsonDepth(file, value, `line ${i + 1}: `);
        values.push(value);
      }
      offset += line.length + 1;
    }
    return { kind: 'jsonl', values, text: body };
  }
  if (options.deferDepth) return { kind: 'json', value: whole, text: body, depthUnchecked: true };
  checkJsonDepth(file, whole);
  return { kind: 'json', value: whole, text: body };
}
