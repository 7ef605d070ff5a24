// One OTLP/JSON document too large to be one string (issue 14 goal 2: files larger than one JavaScript string can hold
// are read as a stream; ADR 0080). An export `{"resourceSpans":[{"resource":…,"scopeSpans":[{"scope":…,"spans":[…]}]}]}`,
// or each of an array of them, is cut as its text is decoded into small exports of one resource and scope with a batch
// of their spans each, and each small export is read as a line of OTLP JSON Lines would be (jsonl-stream.ts
// readJsonLines with `document`): the import is that of the same spans exported as JSON Lines, and the text is never whole. Only the
// structure around the spans is scanned here (keys, brackets, where strings end); every value is parsed by JSON.parse,
// which refuses what is not JSON. A resource or scope written after its spans cannot be given to spans already read:
// such a document is refused at that key (exporters write them first; what the importer does not read, such as
// schemaUrl, may come after).
import { ImportError, syntaxDetail } from './errors.ts';
import { endBefore, headOf, parseBatch, valueEnd } from './json-pieces.ts';
import { isJsonSpace } from './json-text.ts';

/** About this many characters of spans go into each small export. */
export const SPAN_BATCH_CHARS = 1 << 16;

/**
 * A value (a span, a resource) longer than this is refused: unclosed, it would have the reading hold the rest of the
 * file as one string, which past V8's longest string fails without a word.
 */
export const MAX_VALUE_CHARS = 1 << 27;

/**
 * A small export (parsed): one resource, one scope and a batch of their spans, the first of which is the file's text from
 * character `first` (0-based), at `line` and `column` (1-based).
 */
export interface DocumentPiece {
  value: JsonObject;
  first: number;
  line: number;
  column: number;
}

type JsonObject = Record<string, unknown>;

const END = Symbol('end of the text');

/** The keys of a resource's scopes, as the OTLP importer reads them (the last two: OTLP's older names). */
const SCOPE_KEYS = new Set(['scopeSpans', 'scope_spans', 'instrumentationLibrarySpans', 'instrumentation_library_spans']);
type Input = string | typeof END;

/**
 * The members of a resource block and of a scope block that the OTLP importer reads besides the spans: each must come
 * before the spans. The others (schemaUrl, which exporters write after the spans, …) may come anywhere.
 */
const RESOURCE_KEYS = new Set(['resource']);
const SCOPE_OBJECT_KEYS = new Set(['scope', 'instrumentationLibrary', 'instrumentation_library']);

/**
 * Text in (push, then finish), small exports out (`emit`). Throws ImportError, with the line and column in the file,
 * when the text is not an OTLP/JSON document this can read as a stream.
 */
export class OtlpDocumentStream {
  private readonly run: Generator<void, void, Input>;
  private buf = '';
  private pos = 0;
  /** Characters of the text before buf[0], and the lines they hold (newlines), and where the last of those began. */
  private base = 0;
  private linesBefore = 0;
  private lineStartBefore = 0;
  private ended = false;
  private started = false;
  /** The members lists already made into objects (members): spans have been read, a member after that is dropped. */
  private readonly made = new WeakSet<readonly string[]>();
  /** The last place asked for (place): lines before it and where its line began. */
  private lastPlace = { at: -1, line: 0, start: 0 };

  constructor(
    private readonly file: string,
    private readonly emit: (piece: DocumentPiece) => void,
    private readonly batchChars = SPAN_BATCH_CHARS,
  ) {
    this.run = this.document();
    this.run.next();
  }

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
    this.run.next(input);
  }

  /** Line and column (1-based) of the character at `at`, at or after buf[0]'s place. */
  private place(at: number): { line: number; column: number } {
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

  private fail(at: number, detail: string): never {
    const { line, column } = this.place(at);
    throw new ImportError(this.file, 'otlp', `line ${line}, column ${column}`, detail);
  }

  /** Takes the next text into the buffer, dropping what was read (its newlines counted); false at the end. */
  private *more(): Generator<void, boolean, Input> {
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

  /** The character code at the next non-space character (pos moved there), or -1 at the end of the text. */
  private *next(): Generator<void, number, Input> {
    for (;;) {
      while (this.pos < this.buf.length && isJsonSpace(this.buf.charCodeAt(this.pos))) this.pos++;
      if (this.pos < this.buf.length) return this.buf.charCodeAt(this.pos);
      this.pos = this.buf.length;
      if (!(yield* this.more())) return -1;
    }
  }

  private *expect(code: number, what: string): Generator<void, void, Input> {
    const c = yield* this.next();
    if (c !== code) this.fail(this.base + this.pos, c === -1 ? `the text ends where ${what} should be` : `expected ${what}`);
    this.pos++;
  }

  /** The end (absolute) of the value that begins at pos, reading more text until it is whole. */
  private *valueEnd(): Generator<void, number, Input> {
    for (;;) {
      const end = valueEnd(this.buf, this.pos, Infinity);
      // A number or literal that reaches the end of the text read may go on in the next text.
      if (end !== -1 && (end < this.buf.length || this.ended)) return this.base + end;
      const had = this.buf.length - this.pos;
      if (had > MAX_VALUE_CHARS) this.fail(this.base + this.pos, `a value longer than ${MAX_VALUE_CHARS.toLocaleString('en')} characters, or one not closed`);
      // Read until the buffer holds twice what it held: a long value is scanned again a few times, not once per text.
      while (this.buf.length - this.pos < 2 * had + 1) if (!(yield* this.more())) break;
      if (this.ended && valueEnd(this.buf, this.pos, Infinity) === -1) this.fail(this.base + this.pos, 'the text ends inside a value');
    }
  }

  /** The text of the value at pos (read whole), pos moved past it. */
  private *valueText(): Generator<void, string, Input> {
    if ((yield* this.next()) === -1) this.fail(this.base + this.pos, 'the text ends where a value should be');
    const end = yield* this.valueEnd();
    const text = this.buf.slice(this.pos, end - this.base);
    this.pos = end - this.base;
    return text;
  }

  /** The key of the member at pos and pos moved past its colon; undefined at the object's `}` (taken). */
  private *key(keys: Set<string>, where: string): Generator<void, string | undefined, Input> {
    const c = yield* this.next();
    if (c === 125 /* } */) {
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
    // JSON.parse keeps the last of two equal keys; a stream cannot take back what it gave for the first.
    if (keys.has(key)) this.fail(at, `${where} has the key "${key}" twice`);
    keys.add(key);
    yield* this.expect(58 /* : */, 'a colon');
    return key;
  }

  /** After a member or an element: true when another follows (its comma taken), false at `close` (taken). */
  private *after(close: number, where: string): Generator<void, boolean, Input> {
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

  /** An object of `members` (`"key":value` texts, each a whole JSON value already scanned), parsed once. */
  private members(members: readonly string[], where: string): JsonObject {
    this.made.add(members);
    try {
      return JSON.parse(`{${members.join(',')}}`) as JsonObject;
    } catch (e) {
      return this.fail(this.base + this.pos, `${where}: ${syntaxDetail(e)}`);
    }
  }

  /** Reads the array at pos, its elements one by one (`element(index)`). */
  private *array(where: string, element: (index: number) => Generator<void, void, Input>): Generator<void, void, Input> {
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

  private *document(): Generator<void, void, Input> {
    const c = yield* this.next();
    if (c === 91 /* [ */) yield* this.array('the array of exports', (i) => this.exportAt(`[${i}]`));
    else if (c === 123 /* { */) yield* this.exportAt('');
    else this.fail(this.base + this.pos, 'a document read as a stream must be an OTLP/JSON export (an object with resourceSpans) or an array of them');
    if ((yield* this.next()) !== -1) this.fail(this.base + this.pos, 'more text after the end of the JSON document');
  }

  /** One export (the document, or an element of its array: `path`). */
  private *exportAt(path: string): Generator<void, void, Input> {
    const where = path === '' ? 'the document' : `the export ${path}`;
    if ((yield* this.next()) !== 123 /* { */) this.fail(this.base + this.pos, `${where} is not an OTLP/JSON export (an object with resourceSpans)`);
    this.pos++;
    const keys = new Set<string>();
    for (;;) {
      const key = yield* this.key(keys, where);
      if (key === undefined) return;
      if (key === 'resourceSpans' || key === 'resource_spans') yield* this.array(`${path}${path ? '.' : ''}${key}`, (i) => this.resourceSpans(`${path}${path ? '.' : ''}${key}[${i}]`));
      else yield* this.valueText(); // other members of an export (none in OTLP's) are not read, as the importer reads none
      if (!(yield* this.after(125 /* } */, where))) return;
    }
  }

  /**
   * The members of the object at pos. `inner(key, at)` gives the reading of a member it takes (the scopes, the spans);
   * each other member is kept for the small exports (member), `needed` naming those the importer reads.
   */
  private *object(
    where: string,
    members: string[],
    needed: ReadonlySet<string>,
    inner: (key: string, at: number) => Generator<void, void, Input> | undefined,
  ): Generator<void, void, Input> {
    yield* this.expect(123 /* { */, `the object ${where}`);
    const keys = new Set<string>();
    for (;;) {
      yield* this.next();
      const at = this.base + this.pos;
      const key = yield* this.key(keys, where);
      if (key === undefined) return;
      yield* inner(key, at) ?? this.member(members, key, needed, where, at);
      if (!(yield* this.after(125 /* } */, where))) return;
    }
  }

  /**
   * A member other than the spans (or scopes): kept for the small exports while none has been made (members); after
   * that, read and dropped, unless the importer reads it (`needed`): then an error at `at`, spans already read cannot
   * be given it.
   */
  private *member(members: string[], key: string, needed: ReadonlySet<string>, where: string, at: number): Generator<void, void, Input> {
    const made = this.made.has(members);
    if (made && needed.has(key)) this.fail(at, `${where}.${key} comes after the spans it belongs to; a document this large is read as a stream, which needs it before them (save the trace as JSON Lines otherwise)`);
    const text = yield* this.valueText();
    if (!made) members.push(`${JSON.stringify(key)}:${text}`);
  }

  private *resourceSpans(where: string): Generator<void, void, Input> {
    const members: string[] = [];
    let resource: JsonObject | undefined;
    /** The key whose scopes' spans were read (the importer reads one of them: instrumentationLibrarySpans is the old name). */
    let spansUnder: string | undefined;
    yield* this.object(where, members, RESOURCE_KEYS, (key, at) => {
      if (!SCOPE_KEYS.has(key)) return undefined;
      // Asked for by each batch of spans: the resource's members, parsed once.
      const resourceOf = () => {
        if (spansUnder !== undefined && spansUnder !== key) this.fail(at, `${where} has spans under both ${spansUnder} and ${key}`);
        spansUnder = key;
        return (resource ??= this.members(members, where));
      };
      return this.array(`${where}.${key}`, (j) => this.scopeSpans(`${where}.${key}[${j}]`, key, resourceOf));
    });
  }

  private *scopeSpans(where: string, scopeKey: string, resource: () => JsonObject): Generator<void, void, Input> {
    const members: string[] = [];
    let scope: JsonObject | undefined;
    yield* this.object(where, members, SCOPE_OBJECT_KEYS, (key) =>
      key === 'spans' ? this.spans(`${where}.spans`, (spans) => ({ resourceSpans: [{ ...resource(), [scopeKey]: [{ ...(scope ??= this.members(members, where)), spans }] }] })) : undefined,
    );
  }

  /**
   * The spans array at pos, given to `emit` in batches of about batchChars characters, each parsed as one array and put
   * in its small export (`exportOf`). A batch is cut where the next span begins as the first one did (its `{"key"`,
   * found with indexOf): a cut that falls inside a span (a link's `{"traceId"`) fails the batch's parse, which is then
   * cut again by a scan of every span.
   */
  private *spans(where: string, exportOf: (spans: unknown[]) => JsonObject): Generator<void, void, Input> {
    yield* this.expect(91 /* [ */, `the array ${where}`);
    if ((yield* this.next()) === 93 /* ] */) {
      this.pos++;
      return;
    }
    const head = yield* this.headAt();
    for (let more = true; more; ) {
      const first = this.base + this.pos;
      let spans = head === undefined ? undefined : yield* this.cutBatch(head);
      if (spans === undefined) [spans, more] = yield* this.scannedBatch(where);
      const value = exportOf(spans);
      const { line, column } = this.place(first);
      this.emit({ value, line, column, first });
    }
  }

  /** The batch of spans at pos cut by `head` (pos moved past it), or undefined (no cut found, or it was no span's start). */
  private *cutBatch(head: string): Generator<void, unknown[] | undefined, Input> {
    while (!this.ended && this.buf.length - this.pos < 2 * this.batchChars) if (!(yield* this.more())) break;
    // Looked for within the next batchChars only (a text pushed whole would be searched to its end each batch).
    const from = this.pos + this.batchChars;
    const at = this.buf.slice(from, from + this.batchChars + head.length).indexOf(head);
    const end = at < 0 ? -1 : endBefore(this.buf, from + at);
    const spans = end > this.pos ? parseBatch(this.buf, this.pos, end) : undefined;
    if (spans !== undefined) this.pos = from + at;
    return spans;
  }

  /**
   * The batch of spans at pos, span by span: their texts only (what lies between them may be long, and is not kept),
   * with where each begins, for the place of a syntax error. Also whether more spans follow.
   */
  private *scannedBatch(where: string): Generator<void, [unknown[], boolean], Input> {
    const texts: string[] = [];
    const starts: number[] = [];
    let chars = 0;
    let more = true;
    while (more && chars < this.batchChars) {
      if ((yield* this.next()) === -1) this.fail(this.base + this.pos, `the text ends inside ${where}`);
      starts.push(this.base + this.pos);
      const text = yield* this.valueText();
      texts.push(text);
      chars += text.length;
      more = yield* this.after(93 /* ] */, where);
    }
    try {
      return [JSON.parse(`[${texts.join(',')}]`) as unknown[], more];
    } catch (e) {
      const at = /position (\d+)/.exec(e instanceof Error ? e.message : '');
      return this.fail(at ? placeIn(texts, starts, Number(at[1]) - 1) : starts[starts.length - 1], syntaxDetail(e));
    }
  }

  /** How the span at pos begins, up to its first key (`{"traceId"`), or undefined (no object, a key with an escape). */
  private *headAt(): Generator<void, string | undefined, Input> {
    while (!this.ended && this.buf.length - this.pos < 1024) if (!(yield* this.more())) break;
    const head = headOf(this.buf, this.pos);
    return head !== undefined && head.length <= 256 ? head : undefined;
  }
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

const OTLP_FIRST_KEYS = ['"resourceSpans"', '"resource_spans"'];

/**
 * Whether a file starting with `head` (UTF-8 bytes) is an OTLP/JSON document this reads as a stream: an export (an
 * object whose first key is resourceSpans, or resource_spans) or an array of them, after an optional byte order mark
 * and whitespace.
 */
export function startsOtlpDocument(head: Uint8Array): boolean {
  const text = new TextDecoder('utf-8').decode(head.subarray(0, 256));
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) === 91 /* [ */) {
    i++;
    while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  }
  if (text.charCodeAt(i) !== 123 /* { */) return false;
  i++;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return OTLP_FIRST_KEYS.some((key) => text.startsWith(key, i));
}
