// The reading of one JSON document whose text comes in pieces and is never whole (issue 14 goal 2: files larger than
// one JavaScript string can hold are read as a stream; ADR 0080, 0081). A reader (otlp-document-stream.ts,
// json-value-stream.ts) is a generator over the text: it scans only the structure it must (keys, brackets, where
// strings end) and gives every value's text to JSON.parse, which refuses what is not JSON. This is what they share: the
// buffer of text not read yet, its place in the file (line and column, for errors), and the scanning steps.
import { ImportError, syntaxDetail } from './errors.ts';
import { endBefore, headOf, parseBatch, valueEnd } from './json-pieces.ts';
import { isJsonSpace } from './json-text.ts';

/**
 * A value read whole (a span, a resource, a string) longer than this is refused: unclosed, it would have the reading
 * hold the rest of the file as one string, which past V8's longest string fails without a word.
 */
export const MAX_VALUE_CHARS = 1 << 27;

export const END = Symbol('end of the text');
export type Input = string | typeof END;
export type Reading<T = void> = Generator<void, T, Input>;

/**
 * Text in (push, then finish). `document()` reads it; the text it has read is dropped from the buffer as more comes.
 * Its errors are ImportErrors of `format` at a line and column of the file.
 */
export abstract class JsonTextStream {
  private run: Reading | undefined;
  protected buf = '';
  protected pos = 0;
  /** Characters of the text before buf[0], and the lines they hold (newlines), and where the last of those began. */
  protected base = 0;
  private linesBefore = 0;
  private lineStartBefore = 0;
  protected ended = false;
  private started = false;
  /** The last place asked for (place): lines before it and where its line began. */
  private lastPlace = { at: -1, line: 0, start: 0 };

  constructor(
    protected readonly file: string,
    private readonly format: string,
  ) {}

  /** The reading of the whole text, from its first character to its end. */
  protected abstract document(): Reading;

  push(text: string): void {
    if (text.length === 0) return;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.step(text);
  }

  finish(): void {
    this.step(END);
  }

  /** The reading takes text until the end of the input (after the document, anything but whitespace is an error). */
  private step(input: Input): void {
    if (!this.run) {
      // Started at the first text (not in the constructor: a subclass's fields are set after it).
      this.run = this.document();
      this.run.next();
    }
    this.run.next(input);
  }

  /** Line and column (1-based) of the character at `at`, at or after buf[0]'s place. */
  protected place(at: number): { line: number; column: number } {
    // From the last place asked for when it is in the buffer and not after `at` (batches come in order), else from the
    // buffer's start: each character is looked at about once, not once per batch.
    const last = this.lastPlace;
    const fromLast = last.at >= this.base && last.at <= at;
    let line = fromLast ? last.line : this.linesBefore;
    let start = fromLast ? last.start : this.lineStartBefore;
    const end = Math.min(at - this.base, this.buf.length);
    for (let i = this.buf.indexOf('\n', fromLast ? last.at - this.base : 0); i !== -1 && i < end; i = this.buf.indexOf('\n', i + 1)) {
      line++;
      start = this.base + i + 1;
    }
    this.lastPlace = { at: this.base + end, line, start };
    return { line: line + 1, column: at - start + 1 };
  }

  protected fail(at: number, detail: string): never {
    const { line, column } = this.place(at);
    throw new ImportError(this.file, this.format, `line ${line}, column ${column}`, detail);
  }

  /** Takes the next text into the buffer, dropping what was read (its newlines counted); false at the end. */
  protected *more(): Reading<boolean> {
    if (this.ended) return false;
    const input = yield;
    if (input === END) {
      this.ended = true;
      return false;
    }
    const cut = this.pos;
    if (cut > 0) {
      for (let i = this.buf.indexOf('\n'); i !== -1 && i < cut; i = this.buf.indexOf('\n', i + 1)) {
        this.linesBefore++;
        this.lineStartBefore = this.base + i + 1;
      }
      this.base += cut;
      this.buf = this.buf.slice(cut);
      this.pos -= cut;
    }
    this.buf += input;
    return true;
  }

  /** Reads until the buffer holds `chars` characters from pos, or the text ends. */
  protected *ahead(chars: number): Reading {
    while (!this.ended && this.buf.length - this.pos < chars) if (!(yield* this.more())) break;
  }

  /** The character code at the next non-space character (pos moved there), or -1 at the end of the text. */
  protected *next(): Reading<number> {
    for (;;) {
      while (this.pos < this.buf.length && isJsonSpace(this.buf.charCodeAt(this.pos))) this.pos++;
      if (this.pos < this.buf.length) return this.buf.charCodeAt(this.pos);
      this.pos = this.buf.length;
      if (!(yield* this.more())) return -1;
    }
  }

  protected *expect(code: number, what: string): Reading {
    const c = yield* this.next();
    if (c !== code) this.fail(this.base + this.pos, c === -1 ? `the text ends where ${what} should be` : `expected ${what}`);
    this.pos++;
  }

  /**
   * The end (absolute) of the value that begins at pos, reading more text until it is whole; -1 when it is an object or
   * array not closed within `limit` characters (then only: past MAX_VALUE_CHARS a value is refused).
   */
  protected *valueEnd(limit = Infinity): Reading<number> {
    // What cannot begin a value is refused here (a scan for its end would read the rest of the text).
    const c = this.buf.charCodeAt(this.pos);
    if (!startsValue(c)) this.fail(this.base + this.pos, Number.isNaN(c) ? 'the text ends where a value should be' : 'expected a value');
    for (;;) {
      const end = valueEnd(this.buf, this.pos, this.pos + limit);
      // A number or literal that reaches the end of the text read may go on in the next text.
      if (end !== -1 && (end < this.buf.length || this.ended)) return this.base + end;
      const had = this.buf.length - this.pos;
      if (had >= limit) return -1;
      if (had > MAX_VALUE_CHARS) this.fail(this.base + this.pos, `a value longer than ${MAX_VALUE_CHARS.toLocaleString('en')} characters, or one not closed`);
      // Read until the buffer holds twice what it held: a long value is scanned again a few times, not once per text.
      yield* this.ahead(2 * had + 1);
      if (this.ended && valueEnd(this.buf, this.pos, Infinity) === -1) this.fail(this.base + this.pos, 'the text ends inside a value');
    }
  }

  /** The text of the value at pos (read whole), pos moved past it. */
  protected *valueText(): Reading<string> {
    if ((yield* this.next()) === -1) this.fail(this.base + this.pos, 'the text ends where a value should be');
    const end = yield* this.valueEnd();
    const text = this.buf.slice(this.pos, end - this.base);
    this.pos = end - this.base;
    return text;
  }

  /**
   * The key of the member at pos and pos moved past its colon; undefined at the `}` of an empty object (taken:
   * `first`, no member read yet; after a comma a key must follow). With `keys`, a key already among them is refused (a
   * stream cannot take back what it gave for the first).
   */
  protected *key(keys: Set<string> | undefined, where: string, first: boolean): Reading<string | undefined> {
    const c = yield* this.next();
    if (c === 125 /* } */ && first) {
      this.pos++;
      return undefined;
    }
    if (c !== 34 /* " */) this.fail(this.base + this.pos, c === -1 ? `the text ends inside ${where}` : `expected a key in ${where}`);
    const at = this.base + this.pos;
    const text = yield* this.valueText();
    let key: string;
    try {
      key = JSON.parse(text) as string;
    } catch (e) {
      return this.fail(at, syntaxDetail(e));
    }
    if (keys) {
      if (keys.has(key)) this.fail(at, `${where} has the key "${key}" twice`);
      keys.add(key);
    }
    yield* this.expect(58 /* : */, 'a colon');
    return key;
  }

  /** After a member or an element: true when another follows (its comma taken), false at `close` (taken). */
  protected *after(close: number, where: string): Reading<boolean> {
    const c = yield* this.next();
    if (c === 44 /* , */) {
      this.pos++;
      return true;
    }
    if (c === close) {
      this.pos++;
      return false;
    }
    return this.fail(this.base + this.pos, c === -1 ? `the text ends inside ${where}` : `expected a comma or the end of ${where}`);
  }

  /** Reads the array at pos, its elements one by one (`element(index)`). */
  protected *array(where: string, element: (index: number) => Reading): Reading {
    yield* this.expect(91 /* [ */, `the array ${where}`);
    if ((yield* this.next()) === 93 /* ] */) {
      this.pos++;
      return;
    }
    for (let index = 0; ; index++) {
      yield* element(index);
      if (!(yield* this.after(93 /* ] */, where))) return;
    }
  }

  /**
   * The text after the document: nothing but whitespace. Another value there is likely JSON Lines whose first line was
   * too long for the file to be told so from its head: the message says how to have it read so.
   */
  protected *end(): Reading {
    const c = yield* this.next();
    if (c === -1) return;
    const lines = c === 123 /* { */ || c === 91 /* [ */ ? ': if the file is JSON Lines (one JSON value per line), name it .jsonl or .ndjson to have it read so' : '';
    this.fail(this.base + this.pos, `more text after the end of the JSON document${lines}`);
  }

  /**
   * The batch of an array's elements at pos cut by `head` (pos moved past it and its comma, at the next element), or
   * undefined: no element begins with `head` in the `batchChars` after the first `batchChars` (the last batch), or
   * that cut was no element's start (a nested object that begins alike: the batch's parse fails).
   */
  protected *cutBatch(head: string, batchChars: number): Reading<unknown[] | undefined> {
    yield* this.ahead(2 * batchChars);
    // Looked for within the next batchChars only (a text pushed whole would be searched to its end each batch).
    const from = this.pos + batchChars;
    const at = this.buf.slice(from, from + batchChars + head.length).indexOf(head);
    const end = at < 0 ? -1 : endBefore(this.buf, from + at);
    const batch = end > this.pos ? parseBatch(this.buf, this.pos, end) : undefined;
    if (batch !== undefined) this.pos = from + at;
    return batch;
  }

  /**
   * The texts of the array's elements at pos, to about `batchChars` characters, each with where it begins (a syntax
   * error is placed there). Stops after the array's last element (`more` false), or before an object or array not
   * closed within `smallChars` characters (`large`: pos at it, not taken).
   */
  protected *elementTexts(where: string, batchChars: number, smallChars = Infinity): Reading<ElementTexts> {
    const texts: string[] = [];
    const starts: number[] = [];
    let chars = 0;
    for (;;) {
      const c = yield* this.next();
      if (c === -1) this.fail(this.base + this.pos, `the text ends inside ${where}`);
      const end = yield* this.valueEnd(c === 123 /* { */ || c === 91 /* [ */ ? smallChars : Infinity);
      if (end === -1) return { texts, starts, more: true, large: true };
      starts.push(this.base + this.pos);
      const text = this.buf.slice(this.pos, end - this.base);
      this.pos = end - this.base;
      texts.push(text);
      chars += text.length;
      if (!(yield* this.after(93 /* ] */, where))) return { texts, starts, more: false, large: false };
      if (chars >= batchChars) return { texts, starts, more: true, large: false };
    }
  }

  /** How the element at pos begins, up to its first key (`{"traceId"`), or undefined (no object, a key with an escape). */
  protected *headAt(): Reading<string | undefined> {
    yield* this.ahead(1024);
    const head = headOf(this.buf, this.pos);
    return head !== undefined && head.length <= 256 ? head : undefined;
  }

  /** `texts`, each a whole JSON value from its place in `starts`, parsed as one array; a syntax error fails at its place. */
  protected parseTexts(texts: readonly string[], starts: readonly number[]): unknown[] {
    try {
      return JSON.parse(`[${texts.join(',')}]`) as unknown[];
    } catch (e) {
      const at = /position (\d+)/.exec(e instanceof Error ? e.message : '');
      return this.fail(at ? placeIn(texts, starts, Number(at[1]) - 1) : starts[starts.length - 1], syntaxDetail(e));
    }
  }
}

/** Texts of an array's elements (JsonTextStream.elementTexts). */
export interface ElementTexts {
  texts: string[];
  /** Where each text begins in the file. */
  starts: number[];
  /** Whether more elements follow. */
  more: boolean;
  /** Whether the texts stopped before a large element (at pos). */
  large: boolean;
}

/** Whether a JSON value may begin with this character code: `{ [ " -`, a digit, or `t f n` (true, false, null). */
function startsValue(c: number): boolean {
  return c === 123 || c === 91 || c === 34 || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110;
}

/** The place in the file of character `at` of `texts` joined by commas, each text from its place in `starts`. */
function placeIn(texts: readonly string[], starts: readonly number[], at: number): number {
  let offset = Math.max(0, at);
  for (let k = 0; k < texts.length; k++) {
    if (offset <= texts[k].length) return starts[k] + offset;
    offset -= texts[k].length + 1;
  }
  return starts[starts.length - 1] + texts[texts.length - 1].length;
}
