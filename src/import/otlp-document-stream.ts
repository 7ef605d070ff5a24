// One OTLP/JSON document too large to be one string (issue 14 goal 2: files larger than one JavaScript string can hold
// are read as a stream; ADR 0080). An export `{"resourceSpans":[{"resource":…,"scopeSpans":[{"scope":…,"spans":[…]}]}]}`,
// or each of an array of them, is cut as its text is decoded into small exports of one resource and scope with a batch
// of their spans each, and each small export is read as a line of OTLP JSON Lines would be (jsonl-stream.ts
// readJsonLines with `document`): the import is that of the same spans exported as JSON Lines, and the text is never whole. Only the
// structure around the spans is scanned here (keys, brackets, where strings end); every value is parsed by JSON.parse,
// which refuses what is not JSON. A resource or scope written after its spans cannot be given to spans already read:
// such a document is refused at that key (exporters write them first; what the importer does not read, such as
// schemaUrl, may come after).
import { syntaxDetail } from './errors.ts';
import { JsonTextStream, type Reading } from './json-text-stream.ts';
import { isJsonSpace } from './json-text.ts';

/** About this many characters of spans go into each small export. */
export const SPAN_BATCH_CHARS = 1 << 16;

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

/** The keys of a resource's scopes, as the OTLP importer reads them (the last two: OTLP's older names). */
const SCOPE_KEYS = new Set(['scopeSpans', 'scope_spans', 'instrumentationLibrarySpans', 'instrumentation_library_spans']);

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
export class OtlpDocumentStream extends JsonTextStream {
  /** The members lists already made into objects (members): spans have been read, a member after that is dropped. */
  private readonly made = new WeakSet<readonly string[]>();

  constructor(
    file: string,
    private readonly emit: (piece: DocumentPiece) => void,
    private readonly batchChars = SPAN_BATCH_CHARS,
  ) {
    super(file, 'otlp');
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

  protected *document(): Reading {
    const c = yield* this.next();
    if (c === 91 /* [ */) yield* this.array('the array of exports', (i) => this.exportAt(`[${i}]`));
    else if (c === 123 /* { */) yield* this.exportAt('');
    else this.fail(this.base + this.pos, 'a document read as a stream must be an OTLP/JSON export (an object with resourceSpans) or an array of them');
    yield* this.end();
  }

  /** One export (the document, or an element of its array: `path`). */
  private *exportAt(path: string): Reading {
    const where = path === '' ? 'the document' : `the export ${path}`;
    if ((yield* this.next()) !== 123 /* { */) this.fail(this.base + this.pos, `${where} is not an OTLP/JSON export (an object with resourceSpans)`);
    this.pos++;
    const keys = new Set<string>();
    for (;;) {
      const key = yield* this.key(keys, where, keys.size === 0);
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
    inner: (key: string, at: number) => Reading | undefined,
  ): Reading {
    yield* this.expect(123 /* { */, `the object ${where}`);
    const keys = new Set<string>();
    for (;;) {
      yield* this.next();
      const at = this.base + this.pos;
      const key = yield* this.key(keys, where, keys.size === 0);
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
  private *member(members: string[], key: string, needed: ReadonlySet<string>, where: string, at: number): Reading {
    const made = this.made.has(members);
    if (made && needed.has(key)) this.fail(at, `${where}.${key} comes after the spans it belongs to; a document this large is read as a stream, which needs it before them (save the trace as JSON Lines otherwise)`);
    const text = yield* this.valueText();
    if (!made) members.push(`${JSON.stringify(key)}:${text}`);
  }

  private *resourceSpans(where: string): Reading {
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

  private *scopeSpans(where: string, scopeKey: string, resource: () => JsonObject): Reading {
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
  private *spans(where: string, exportOf: (spans: unknown[]) => JsonObject): Reading {
    yield* this.expect(91 /* [ */, `the array ${where}`);
    if ((yield* this.next()) === 93 /* ] */) {
      this.pos++;
      return;
    }
    const head = yield* this.headAt();
    for (let more = true; more; ) {
      const first = this.base + this.pos;
      let spans = head === undefined ? undefined : yield* this.cutBatch(head, this.batchChars);
      if (spans === undefined) [spans, more] = yield* this.scannedBatch(where);
      const value = exportOf(spans);
      const { line, column } = this.place(first);
      this.emit({ value, line, column, first });
    }
  }

  /**
   * The batch of spans at pos, span by span: their texts only (what lies between them may be long, and is not kept),
   * with where each begins, for the place of a syntax error. Also whether more spans follow.
   */
  private *scannedBatch(where: string): Reading<[unknown[], boolean]> {
    const { texts, starts, more } = yield* this.elementTexts(where, this.batchChars);
    return [this.parseTexts(texts, starts), more];
  }
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
