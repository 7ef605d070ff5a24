// OTLP/JSON traces: `{resourceSpans:[{resource, scopeSpans:[{scope, spans:[…]}]}]}`, a JSON array of such
// documents, or JSON Lines of them. Accepts lowerCamelCase and snake_case keys, hex or base64 ids (normalised to
// lowercase hex), `intValue` as strings, `arrayValue` / `kvlistValue`, nanosecond times as strings, and status codes
// as numbers or names. One Run per trace id, in order of first appearance.
//
// This is the path the import benchmark measures (SPEC §8): no per-span JSON copies, no regexes per span.
import type { Run } from '../../model/types.ts';
import { FormatProblem } from '../errors.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import type { JsonLinesReader, LineDepthCheck } from '../jsonl-stream.ts';
import { DepthCheckInParts } from '../json-depth.ts';
import { describe, isObject, type JsonObject } from '../read.ts';
import { looksLikeSmolagents, smolagentsSpansToRun } from '../spans/smolagents.ts';
import { genericSpansToRun } from '../spans/assemble.ts';
import type { Attributes } from '../spans/attributes.ts';
import { buildForest, countDrop, type SpanEvent, type SpanRecord } from '../spans/forest.ts';
import { MapProgress } from '../../model/run-builder.ts';
import { isJsonSpace as isSpace, skipJsonSpace as skipSpace } from '../json-text.ts';
import { eachElementBatch, memberAt, valueEnd } from '../json-pieces.ts';

function field(o: JsonObject, camel: string, snake: string): unknown {
  const v = o[camel];
  return v !== undefined ? v : o[snake];
}

function arrayAt(o: JsonObject, camel: string, snake: string, path: string): unknown[] {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new FormatProblem(`${path}.${camel}`, `expected an array, found ${describe(v)}`);
  return v;
}

function objectAt(v: unknown, path: string): JsonObject {
  if (!isObject(v)) throw new FormatProblem(path, `expected an object, found ${describe(v)}`);
  return v;
}

// --- ids -------------------------------------------------------------------------------------------------------

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) BASE64_VALUE[BASE64.charCodeAt(i)] = i;
BASE64_VALUE['-'.charCodeAt(0)] = 62; // base64url
BASE64_VALUE['_'.charCodeAt(0)] = 63;
const HEX = '0123456789abcdef';

/** 0: not hex; 1: lowercase hex; 2: hex with an uppercase digit. */
function hexCase(text: string): 0 | 1 | 2 {
  let upper = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) continue;
    if (c >= 65 && c <= 70) upper = true;
    else return 0;
  }
  return upper ? 2 : 1;
}

function base64ToHex(text: string): string | undefined {
  let bits = 0;
  let value = 0;
  let out = '';
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? BASE64_VALUE[c] : -1;
    if (v < 0) return undefined;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const byte = (value >> bits) & 0xff;
      out += HEX[byte >> 4] + HEX[byte & 15];
    }
  }
  return out;
}

/**
 * Span ids are 8 bytes and trace ids 16: hex of that length (the OTLP/JSON spec) is taken as hex, anything else that
 * decodes as base64 (protobuf-JSON exporters) is decoded. Other strings are kept as written.
 */
export function normaliseId(text: string, bytes: 8 | 16): string {
  if (text.length === bytes * 2) {
    // Lowercase hex (the usual form) is returned as it is: no new string per id.
    const hex = hexCase(text);
    if (hex === 1) return text;
    if (hex === 2) return text.toLowerCase();
  }
  const hex = base64ToHex(text);
  if (hex !== undefined && hex.length > 0 && (text.length % 4 === 0 || text.indexOf('=') === -1)) return hex;
  return text;
}

// --- values ----------------------------------------------------------------------------------------------------

/** An OTLP AnyValue as a plain JS value. Integers arrive as strings (int64 in JSON); they are read as numbers. */
function anyValue(v: unknown, path: string, depth = 0): unknown {
  if (!isObject(v)) return v === undefined ? null : v;
  if (depth > 32) throw new FormatProblem(path, 'attribute value nested too deeply');
  let x = field(v, 'stringValue', 'string_value');
  if (x !== undefined) return x;
  x = field(v, 'intValue', 'int_value');
  if (x !== undefined) {
    const n = typeof x === 'number' ? x : Number(x);
    return Number.isFinite(n) ? n : x;
  }
  x = field(v, 'doubleValue', 'double_value');
  if (x !== undefined) return typeof x === 'string' ? Number(x) : x;
  x = field(v, 'boolValue', 'bool_value');
  if (x !== undefined) return x;
  x = field(v, 'arrayValue', 'array_value');
  if (x !== undefined) {
    const values = isObject(x) ? x.values : undefined;
    if (values === undefined || values === null) return [];
    if (!Array.isArray(values)) throw new FormatProblem(`${path}.arrayValue.values`, `expected an array, found ${describe(values)}`);
    return values.map((item, i) => anyValue(item, `${path}.arrayValue.values[${i}]`, depth + 1));
  }
  x = field(v, 'kvlistValue', 'kvlist_value');
  if (x !== undefined) {
    const values = isObject(x) ? x.values : undefined;
    return Array.isArray(values) ? readRecord(values, `${path}.kvlistValue.values`, depth + 1) : {};
  }
  x = field(v, 'bytesValue', 'bytes_value');
  if (x !== undefined) return x;
  return null;
}

/** Where a span is: its JSON path is built only when a problem is found (these loops run once per span). */
interface SpanLocation {
  scopePath: string;
  index: number;
}

/** What a FormatProblem says of a value nested past the depth limit (importDetected then refuses the file with its path). */
const TOO_DEEP = 'objects and arrays nested too deeply';

function pathOf(where: string | SpanLocation): string {
  return typeof where === 'string' ? where : `${where.scopePath}.spans[${where.index}]`;
}

function listPathOf(path: string, where: SpanLocation | undefined): string {
  return where ? `${pathOf(where)}.attributes` : path;
}

/** `intValue` written as a string (int64 in JSON): read as a number when it is one. */
function intFromString(text: string): unknown {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

/**
 * Copies an OTLP `[{key, value}]` list into a plain record in one pass. The common scalar forms (`stringValue`,
 * `intValue` as a string) are read inline; a path is built only for a problem or for the rarer value forms.
 */
/**
 * The keys of the last list read, by list length (spans of one kind repeat the same keys in the same order). A key
 * equal to the one at its place there is taken from there: a key already used as a property name, so the store below
 * does not look each new copy of the text up in V8's table of property names. Only an aid: compared by content.
 */
const lastKeys: string[][] = [];
const LAST_KEYS_UP_TO = 64;

/** The descriptor of readKeyValues' definitions, one object for all of them (its value set for each). */
const DEFINITION: PropertyDescriptor = { value: undefined, enumerable: true, writable: true, configurable: true };

function readKeyValues(list: unknown[], into: Attributes, path: string, depth = 0, where?: SpanLocation): void {
  const n = list.length;
  const known = n <= LAST_KEYS_UP_TO ? (lastKeys[n] ??= []) : undefined;
  for (let i = 0; i < n; i++) {
    const kv = list[i];
    if (!isObject(kv) || typeof kv.key !== 'string') throw new FormatProblem(`${listPathOf(path, where)}[${i}]`, 'expected {key, value}');
    let key = kv.key;
    if (known) {
      const before = known[i];
      if (before === key) key = before;
      else known[i] = key;
    }
    const value = valueOf(kv, i, path, depth, where);
    // A key named __proto__ would otherwise replace the object's prototype instead of being stored. Past 16 keys, a
    // computed store turns the record into a hash table (V8's limit for keyed stores); a definition keeps it fast.
    if (key === '__proto__' || i >= 16) {
      DEFINITION.value = value;
      Object.defineProperty(into, key, DEFINITION);
      DEFINITION.value = undefined;
    } else into[key] = value;
  }
}

/**
 * One copy of the short strings spans repeat (span names, attribute values such as an operation, model or tool name):
 * JSON.parse makes a new string for each time one is written, and spans read as their JSON Lines are parsed keep them
 * for the whole import (1M spans: ~100 bytes a span). A small table found by length and three characters, not a map:
 * no hash of the whole string; a string that is not there replaces the older of two (ids and texts pass cheaply).
 */
const SHARED_SLOTS = 512;
const sharedStrings: string[] = new Array<string>(SHARED_SLOTS).fill('');

function sharedCopy(text: string): string {
  const n = text.length;
  if (n === 0 || n > 40) return text;
  const slot = (n * 31 + text.charCodeAt(0) * 7 + text.charCodeAt(n >> 1) * 3 + text.charCodeAt(n - 1) * 13) & (SHARED_SLOTS - 1);
  // Two places a string may be in (the last two found for its slot, the newer first): spans alternating between
  // two kinds keep both strings of a slot they share.
  const first = sharedStrings[slot];
  if (first === text) return first;
  const next = (slot + 1) & (SHARED_SLOTS - 1);
  const second = sharedStrings[next];
  if (second === text) return second;
  sharedStrings[next] = first;
  sharedStrings[slot] = text;
  return text;
}

/** The value of the `i`th `{key, value}` of a list. */
function valueOf(kv: JsonObject, i: number, path: string, depth: number, where: SpanLocation | undefined): unknown {
  const raw = kv.value;
  if (isObject(raw)) {
    const s = raw.stringValue;
    // anyValue's reading of a present stringValue within the depth limit, without looking at the value itself (the
    // one read of each value string's header on this pass).
    if (s !== undefined && (depth <= 32 || typeof s === 'string')) return typeof s === 'string' ? sharedCopy(s) : s;
    if (s === undefined && depth <= 32 && typeof raw.intValue === 'string') return intFromString(raw.intValue);
  }
  return anyValue(raw, `${listPathOf(path, where)}[${i}].value`, depth);
}

/**
 * A record of the last list read with each length whose keys it was (only lists without a `__proto__` key), kept
 * apart from the records the import returns. A list with the same keys in the same order (spans of one kind) is read
 * into a copy of it: one allocation of the record's final size, no property added one by one (each addition looks
 * its key up in the shape's transitions and grows the property store now and then) and no definitions past 16 keys
 * (the copy's properties exist already, so a computed store cannot turn it into a hash table).
 */
interface RecordTemplate {
  keys: string[];
  record: Attributes;
}
const templates: Array<RecordTemplate | undefined> = [];

/**
 * The nesting-depth check of a span's attributes list made as readRecord reads it (DepthCheck): each item where it is
 * read, while it is in the cache, at `level` (its level in the document).
 */
interface ItemsCheck {
  parts: DepthCheckInParts;
  level: number;
}

/**
 * An OTLP `[{key, value}]` list as a plain record (readKeyValues into a new one, or into a copy of its template). With
 * `check`, every item is checked for nesting too deeply (a FormatProblem if one is), where read or all at the end.
 */
function readRecord(list: unknown[], path: string, depth = 0, where?: SpanLocation, check?: ItemsCheck): Attributes {
  const n = list.length;
  if (n === 0) return {};
  const template = n <= LAST_KEYS_UP_TO ? templates[n] : undefined;
  if (template !== undefined && hasKeys(list, template.keys)) {
    const keys = template.keys;
    const into: Attributes = { ...template.record };
    for (let i = 0; i < n; i++) {
      const kv = list[i] as JsonObject;
      if (check !== undefined && check.parts.deeper(kv, check.level)) throw new FormatProblem(`${listPathOf(path, where)}[${i}]`, TOO_DEEP);
      into[keys[i]] = valueOf(kv, i, path, depth, where);
    }
    return into;
  }
  const into: Attributes = {};
  readKeyValues(list, into, path, depth, where);
  if (check !== undefined && check.parts.deeper(list, check.level - 1)) throw new FormatProblem(listPathOf(path, where), TOO_DEEP);
  if (n <= LAST_KEYS_UP_TO) {
    const keys = keysOf(list);
    if (keys !== undefined) templates[n] = { keys, record: { ...into } };
  }
  return into;
}

/** Whether every item of `list` is an object whose key is `keys[i]` (a list readKeyValues would read without a problem in its keys). */
function hasKeys(list: unknown[], keys: string[]): boolean {
  for (let i = 0; i < list.length; i++) {
    const kv = list[i];
    if (!isObject(kv) || kv.key !== keys[i]) return false;
  }
  return true;
}

/** The keys of a list readKeyValues has read, or undefined when one is `__proto__`. */
function keysOf(list: unknown[]): string[] | undefined {
  const keys = new Array<string>(list.length);
  for (let i = 0; i < list.length; i++) {
    const key = (list[i] as JsonObject).key as string;
    if (key === '__proto__') return undefined;
    keys[i] = key;
  }
  return keys;
}

function attributesAt(o: JsonObject, where: string | SpanLocation, check?: ItemsCheck): Attributes {
  const list = o.attributes;
  if (list === undefined || list === null) return {};
  if (!Array.isArray(list)) throw new FormatProblem(`${pathOf(where)}.attributes`, `expected an array, found ${describe(list)}`);
  return typeof where === 'string' ? readRecord(list, `${where}.attributes`) : readRecord(list, '', 0, where, check);
}

function nanosToMs(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '' || v === '0' || v === 0) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? decimalNumber(v) : NaN;
  return Number.isFinite(n) ? n / 1e6 : undefined;
}

/** hi · 5⁹ below 2⁵³: then hi · 10⁹ is a double exactly (10⁹ = 5⁹ · 2⁹). */
const EXACT_HI_BELOW = 2 ** 53 / 5 ** 9;

/**
 * Number(text), read digit by digit when the text is 1–19 decimal digits (a time in nanoseconds: 19 of them), in about
 * half the time of Number's general conversion. The first `length − 9` digits (hi) and the last 9 (lo) are integers
 * below 2⁵³, so exact; when hi · 10⁹ is exact too, the sum hi · 10⁹ + lo is rounded once, correctly, as Number rounds
 * the whole text: the same double. Anything else (signs, points, exponents, spaces, a larger hi) goes to Number.
 */
export function decimalNumber(text: string): number {
  const length = text.length;
  if (length === 0 || length > 19) return Number(text);
  const split = length > 9 ? length - 9 : 0;
  let hi = 0;
  let i = 0;
  for (; i < split; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(text);
    hi = hi * 10 + d;
  }
  let lo = 0;
  for (; i < length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(text);
    lo = lo * 10 + d;
  }
  if (split === 0) return lo;
  return hi < EXACT_HI_BELOW ? hi * 1e9 + lo : Number(text);
}

function statusOf(status: unknown): SpanRecord['status'] {
  if (!isObject(status)) return 'unset';
  const code = status.code;
  if (code === 2 || code === '2') return 'error';
  if (code === 1 || code === '1') return 'ok';
  // The exact enum names first: no uppercased copy per span.
  if (code === 'STATUS_CODE_OK') return 'ok';
  if (code === 'STATUS_CODE_ERROR') return 'error';
  if (code === 'STATUS_CODE_UNSET' || code === undefined) return 'unset';
  if (typeof code === 'string') {
    const c = code.toUpperCase();
    if (c === 'STATUS_CODE_ERROR' || c === 'ERROR') return 'error';
    if (c === 'STATUS_CODE_OK' || c === 'OK') return 'ok';
  }
  return 'unset';
}

function statusMessageOf(status: unknown): string | undefined {
  if (!isObject(status)) return undefined;
  return typeof status.message === 'string' && status.message !== '' ? status.message : undefined;
}

/**
 * The events of every span that has none: one array for all of them (no array per span; nothing adds to a span's
 * events after reading, and the live importer's cache already shares a span's array between imports). Frozen, so
 * that a change made to it by mistake throws instead of showing on every span.
 */
const NO_EVENTS = Object.freeze([]) as unknown as SpanEvent[];

function eventsAt(o: JsonObject, where: SpanLocation): SpanEvent[] {
  const events = o.events;
  if (events === undefined || events === null || (Array.isArray(events) && events.length === 0)) return NO_EVENTS;
  const path = pathOf(where);
  const list = arrayAt(o, 'events', 'events', path);
  return list.map((e, i) => {
    const p = `${path}.events[${i}]`;
    const event = objectAt(e, p);
    const out: SpanEvent = { name: typeof event.name === 'string' ? event.name : '', attributes: attributesAt(event, p) };
    const time = nanosToMs(field(event, 'timeUnixNano', 'time_unix_nano'));
    if (time !== undefined) out.time = time;
    return out;
  });
}

// --- documents -------------------------------------------------------------------------------------------------

function resourceSpansOf(doc: JsonObject): unknown {
  return doc.resourceSpans ?? doc.resource_spans;
}

function isOtlpDoc(v: unknown): boolean {
  return isObject(v) && Array.isArray(resourceSpansOf(v));
}

/** The OTLP documents in a file: one object, a JSON array of them, or JSON Lines. */
function documentsOf(doc: ParsedInput): Array<{ value: unknown; path: string }> {
  if (doc.kind === 'jsonl') return doc.values.map((value, i) => ({ value, path: `line ${i + 1}: $` }));
  if (Array.isArray(doc.value)) return doc.value.map((value, i) => ({ value, path: `$[${i}]` }));
  return [{ value: doc.value, path: '$' }];
}

/** What the reader could not keep (by trace id; '' for spans with no trace) and what it noted. */
class ReadDefects {
  readonly drops = new Map<string, Map<string, number>>();
  readonly notes: string[] = [];
  private noted = 0;
  dropsOf(traceId: string): Map<string, number> {
    let m = this.drops.get(traceId);
    if (!m) this.drops.set(traceId, (m = new Map()));
    return m;
  }
  /** The first few notes in full, then a count (a broken exporter can write thousands). */
  note(text: string): void {
    if (this.noted++ < 5) this.notes.push(text);
  }
  get more(): number {
    return Math.max(0, this.noted - 5);
  }
}

/** All zeros (after normalising): the OTLP spelling of "no id". */
function isZeroHex(hex: string): boolean {
  for (let i = 0; i < hex.length; i++) if (hex.charCodeAt(i) !== 48 /* 0 */) return false;
  return hex.length > 0;
}

/** A span's own id, trace id or parent id: undefined when absent, not a string, or all zeros (invalid in OTLP). */
function spanIdAt(o: JsonObject, camel: string, snake: string, bytes: 8 | 16): string | undefined {
  return idOf(field(o, camel, snake), bytes);
}

/** spanIdAt of a field's value. */
function idOf(v: unknown, bytes: 8 | 16): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  if (v.length === bytes * 2) {
    // The usual form, lowercase hex of the right length, in one pass: the text itself unless it is all zeros
    // (what normaliseId and isZeroHex below give for it, without a second loop over it).
    let nonZero = false;
    let i = 0;
    for (; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c === 48 /* 0 */) continue;
      if ((c > 48 && c <= 57) || (c >= 97 && c <= 102)) nonZero = true;
      else break;
    }
    if (i === v.length) return nonZero ? v : undefined;
  }
  const id = normaliseId(v, bytes);
  return isZeroHex(id) ? undefined : id;
}

/** A time field that says "no time" (absent, empty, zero) rather than an unreadable one. */
function isNoTime(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === '0' || v === 0;
}

/**
 * What reading a span's attributes and events gave, by the span's JSON object: a caller that imports the same span
 * objects again and again (the live worker, src/import/live-otlp.ts) reads each span once. The importer never changes
 * attributes or events after reading them, so sharing them between imports gives the same runs.
 */
export type OtlpSpanCache = WeakMap<object, { attributes: Attributes; events: SpanEvent[] }>;

/**
 * How many span entries the documents hold (what `readDocument` will visit), for the mapping's progress: lengths only,
 * nothing read; a malformed level counts nothing here and fails in `readDocument` as before.
 */
function countSpans(docs: Array<{ value: unknown }>): number {
  let n = 0;
  for (const { value } of docs) {
    const resourceSpans = isObject(value) ? resourceSpansOf(value) : undefined;
    if (!Array.isArray(resourceSpans)) continue;
    for (const rs of resourceSpans) {
      if (!isObject(rs)) continue;
      let scopeSpans = field(rs, 'scopeSpans', 'scope_spans');
      if (!Array.isArray(scopeSpans) || scopeSpans.length === 0) scopeSpans = field(rs, 'instrumentationLibrarySpans', 'instrumentation_library_spans');
      if (!Array.isArray(scopeSpans)) continue;
      for (const ss of scopeSpans) if (isObject(ss) && Array.isArray(ss.spans)) n += ss.spans.length;
    }
  }
  return n;
}

/**
 * The nesting-depth check of a document parsed without it (ParsedInput's `depthUnchecked`), made as the spans are
 * read: each span where the reader reaches it (its objects are then in the cache for the reading), the rest of the
 * document at the end, around the span arrays (`checked`). `spanDepth`: the level of a span in its document.
 */
interface DepthCheck {
  parts: DepthCheckInParts;
  checked: Set<object>;
  spanDepth: number;
}

/** Refuses the span at `p` when its attributes list, left to the reader (`list`), nests too deeply: checked whole where not read. */
function checkListDepth(depth: DepthCheck | undefined, list: unknown[] | undefined, p: SpanLocation): void {
  if (depth !== undefined && list !== undefined && depth.parts.deeper(list, depth.spanDepth + 1)) throw new FormatProblem(pathOf(p), TOO_DEEP);
}

/**
 * A scope block's spans read into records (readDocument), all in one call or a batch after another as the text is
 * parsed (readDocumentInPieces): the state a scope's spans carry from one to the next (the last trace and parent ids
 * read, the location errors name).
 */
class ScopeSpansReader {
  private readonly p: SpanLocation;
  private lastTraceRaw: unknown;
  private lastTraceId: string | undefined;
  // Siblings repeat their parent's id: the same text as the last span's is one string.
  private lastParentRaw: unknown;
  private lastParentId: string | undefined;

  constructor(
    sPath: string,
    private readonly scope: string | undefined,
    private readonly service: string | undefined,
    private readonly into: SpanRecord[],
    private readonly read: ReadDefects,
    private readonly cache: OtlpSpanCache | undefined,
    private readonly progress: MapProgress | undefined,
    private readonly depth: DepthCheck | undefined,
    private readonly items: ItemsCheck | undefined,
  ) {
    // One location per scope, moved along: errors read it at once, so no object is made per span.
    this.p = { scopePath: sPath, index: 0 };
  }

  /** The spans of `spans` read into records, the first of them at `offset` in the scope's spans array. */
  readSpans(spans: unknown[], offset: number): void {
    const { p, into, read, cache, progress, depth, items, scope, service } = this;
    let { lastTraceRaw, lastTraceId, lastParentRaw, lastParentId } = this;
    for (let i = 0; i < spans.length; i++) {
      p.index = offset + i;
      progress?.tick();
      const raw = spans[i];
      // Any value too deep stops the import; importDetected then refuses the file for it (checkJsonDepth). The
      // span's attributes list is checked item by item as readRecord reads it (`items`), or whole (`checkListDepth`)
      // where the span is dropped, taken from the cache, or its attributes are unreadable: the separate walk of
      // each span touched every attribute item and value object just before the reader touched them again.
      let unchecked: unknown[] | undefined;
      if (depth && typeof raw === 'object' && raw !== null) {
        const list = Array.isArray(raw) ? undefined : (raw as JsonObject).attributes;
        unchecked = Array.isArray(list) ? list : undefined;
        if (depth.parts.deeperBesides(raw, depth.spanDepth, unchecked)) throw new FormatProblem(pathOf(p), TOO_DEEP);
      }
      // A defect of one span drops that span with a reason (or keeps it with a note), never the file (issue 20).
      if (!isObject(raw)) {
        countDrop(read.dropsOf(''), 'not a span object');
        continue;
      }
      const span = raw;
      // A trace's spans repeat its id: the same text as the last span's is read once.
      const traceRaw = field(span, 'traceId', 'trace_id');
      if (traceRaw !== lastTraceRaw) {
        lastTraceRaw = traceRaw;
        lastTraceId = idOf(traceRaw, 16);
      }
      const traceId = lastTraceId;
      if (traceId === undefined) {
        checkListDepth(depth, unchecked, p);
        countDrop(read.dropsOf(''), 'no trace id');
        continue;
      }
      const id = spanIdAt(span, 'spanId', 'span_id', 8);
      if (id === undefined) {
        checkListDepth(depth, unchecked, p);
        countDrop(read.dropsOf(traceId), 'no span id');
        continue;
      }
      const cached = cache?.get(span);
      let attributes: Attributes;
      let events: SpanEvent[];
      if (cached) {
        checkListDepth(depth, unchecked, p);
        ({ attributes, events } = cached);
      } else {
        let readable = true;
        try {
          attributes = attributesAt(span, p, unchecked !== undefined ? items : undefined);
        } catch (e) {
          if (!(e instanceof FormatProblem)) throw e;
          checkListDepth(depth, unchecked, p);
          attributes = {};
          readable = false;
          read.note(`span ${id}: attributes unreadable (${e.message}); the span is kept without them`);
        }
        try {
          events = eventsAt(span, p);
        } catch (e) {
          if (!(e instanceof FormatProblem)) throw e;
          events = [];
          readable = false;
          read.note(`span ${id}: events unreadable (${e.message}); the span is kept without them`);
        }
        // A span read with a note is read again next time, so every import of it gives the note.
        if (cache && readable) cache.set(span, { attributes, events });
      }
      const parentRaw = field(span, 'parentSpanId', 'parent_span_id');
      if (parentRaw !== lastParentRaw) {
        lastParentRaw = parentRaw;
        lastParentId = idOf(parentRaw, 8);
      }
      const parentId = lastParentId;
      if (parentId === undefined && parentRaw !== undefined && parentRaw !== null && parentRaw !== '' && !(typeof parentRaw === 'string' && isZeroHex(normaliseId(parentRaw, 8)))) {
        read.note(`span ${id}: parent span id unreadable (${describe(parentRaw)}); the span is kept as a root`);
      }
      const startRaw = field(span, 'startTimeUnixNano', 'start_time_unix_nano');
      const endRaw = field(span, 'endTimeUnixNano', 'end_time_unix_nano');
      const start = nanosToMs(startRaw);
      const end = nanosToMs(endRaw);
      if ((start === undefined && !isNoTime(startRaw)) || (end === undefined && !isNoTime(endRaw))) {
        read.note(`span ${id}: start or end time unreadable; the span is kept without it`);
      }
      const status = span.status;
      const message = statusMessageOf(status);
      // Every field in the literal, in one order: one shape for all records, no property store grown per span.
      const record: SpanRecord = {
        id,
        parentId,
        traceId,
        name: typeof span.name === 'string' ? sharedCopy(span.name) : '',
        start,
        end,
        attributes,
        status: statusOf(status),
        statusMessage: message,
        events,
        scope,
        order: into.length,
        service,
        kind: undefined,
        stepId: undefined,
        depth: undefined,
      };
      into.push(record);
    }
    this.lastTraceRaw = lastTraceRaw;
    this.lastTraceId = lastTraceId;
    this.lastParentRaw = lastParentRaw;
    this.lastParentId = lastParentId;
  }
}

/**
 * The service a resource block names (its resource's `service.name`), reading its resource attributes: the file's
 * resource attributes are those of the first block that has some.
 */
function serviceOf(rs: JsonObject, rPath: string, resource: { attributes?: Attributes }): string | undefined {
  const resourceAttrs = isObject(rs.resource) ? attributesAt(rs.resource, `${rPath}.resource`) : undefined;
  if (resource.attributes === undefined && resourceAttrs) resource.attributes = resourceAttrs;
  const serviceName = resourceAttrs?.['service.name'];
  // The SDKs' default (`unknown_service`, `unknown_service:node`) names nothing.
  return typeof serviceName === 'string' && serviceName !== '' && !serviceName.startsWith('unknown_service') ? serviceName : undefined;
}

/** The name of a scope block's instrumentation scope (or of its older `instrumentationLibrary`). */
function scopeNameOf(ss: JsonObject): string | undefined {
  const scopeObj = ss.scope ?? field(ss, 'instrumentationLibrary', 'instrumentation_library');
  return isObject(scopeObj) && typeof scopeObj.name === 'string' ? scopeObj.name : undefined;
}

function readDocument(value: unknown, path: string, into: SpanRecord[], resource: { attributes?: Attributes }, read: ReadDefects, cache?: OtlpSpanCache, progress?: MapProgress, depth?: DepthCheck): void {
  const doc = objectAt(value, path);
  // A span's attributes items are at level spanDepth + 2 (the list at + 1).
  const items: ItemsCheck | undefined = depth && { parts: depth.parts, level: depth.spanDepth + 2 };
  const resourceSpans = resourceSpansOf(doc);
  if (!Array.isArray(resourceSpans)) throw new FormatProblem(`${path}.resourceSpans`, `expected an array, found ${describe(resourceSpans)}`);
  for (let r = 0; r < resourceSpans.length; r++) {
    const rPath = `${path}.resourceSpans[${r}]`;
    const rs = objectAt(resourceSpans[r], rPath);
    const service = serviceOf(rs, rPath, resource);
    let scopeSpans = arrayAt(rs, 'scopeSpans', 'scope_spans', rPath);
    if (scopeSpans.length === 0) scopeSpans = arrayAt(rs, 'instrumentationLibrarySpans', 'instrumentation_library_spans', rPath);
    for (let s = 0; s < scopeSpans.length; s++) {
      const sPath = `${rPath}.scopeSpans[${s}]`;
      const ss = objectAt(scopeSpans[s], sPath);
      const spans = arrayAt(ss, 'spans', 'spans', sPath);
      new ScopeSpansReader(sPath, scopeNameOf(ss), service, into, read, cache, progress, depth, items).readSpans(spans, 0);
      depth?.checked.add(spans);
    }
  }
}

/** What a line read as it was parsed leaves in the parsed input: an OTLP document of no spans (what sniffers see). */
const LINE_READ = Object.freeze({ resourceSpans: Object.freeze([]) });

/** The OtlpLinesReader that read a JSON Lines input's lines, by the input's `values`. */
const linesRead = new WeakMap<unknown[], OtlpLinesReader>();

/**
 * OTLP JSON Lines read as they are parsed (jsonl-stream.ts JsonLinesReader): each line's spans become SpanRecords
 * (readDocument, as importFromOtlp reads them) and the line's parsed value is let go, so that a file of a million spans
 * is never held whole as parsed JSON beside its model (the parsed values were ~1 KB a span, the records a third of it).
 * importFromOtlp then takes these records instead of reading the lines.
 *
 * Only a reading the import uses is kept: the caller (index.ts jsonLinesReaderFor) makes this reader only for a file
 * name under which no importer tried before OTLP could take JSON Lines except by a test every line must pass
 * (`earlier`: the span-tree importer's). The first line is kept as it is until a second one comes (one value alone is
 * a JSON document, not JSON Lines); after that every line is read and replaced by LINE_READ, which every sniffer
 * sees as the OTLP document it stands for (OTLP's sniffer takes it, span-tree's does not). If a line is not an OTLP
 * document, or every line passes one of the `earlier` tests, the input is `spoiled` once lines were given up: the
 * file is read again without a reader, and detection sees every value as before.
 *
 * A problem met while reading a line (a FormatProblem, as importFromOtlp would throw it) is kept and thrown by
 * importFromOtlp where it would have thrown it; no line after it is read (the import stops there).
 */
export class OtlpLinesReader implements JsonLinesReader {
  private spans: SpanRecord[] = [];
  private readonly resource: { attributes?: Attributes } = {};
  private readonly read = new ReadDefects();
  /** The depth check of the lines read (readLine). */
  private readonly depthParts = new DepthCheckInParts();
  /** Span entries in the lines read (countSpans of them): the mapping's progress counts them as read. */
  private entries = 0;
  /** Lines read into records. */
  private lines = 0;
  private failure: { error: unknown } | undefined;
  /** A line that is not an OTLP document was met: no more reading. */
  private off = false;
  /** For each `earlier` test, whether every line so far passed it. */
  private readonly allEarlier: boolean[];
  private taken = false;
  /** How a line is named in what the reading reports (JsonLinesReader.nameLines). */
  private name = (index: number): string => `line ${index + 1}`;

  constructor(private readonly earlier: ReadonlyArray<(value: unknown) => boolean> = []) {
    this.allEarlier = earlier.map(() => true);
  }

  push(value: unknown, values: unknown[], lines: LineDepthCheck): void {
    values.push(value);
    if (this.off) return lines.checkDepth(value);
    if (!isOtlpDoc(value)) {
      this.off = true;
      return lines.checkDepth(value);
    }
    for (let k = 0; k < this.earlier.length; k++) if (this.allEarlier[k] && !this.earlier[k](value)) this.allEarlier[k] = false;
    // The first line is kept as it is until a second comes (it may be the file's one document): checked whole now.
    if (values.length < 2) return lines.checkDepth(value);
    if (this.lines === 0) linesRead.set(values, this);
    for (; this.lines < values.length; this.lines++) {
      // The line just parsed is checked as it is read; the first was checked whole when it came.
      this.readLine(values[this.lines], this.lines, this.lines === values.length - 1 ? lines : undefined);
      values[this.lines] = LINE_READ;
    }
  }

  spoiled(): boolean {
    return this.lines > 0 && (this.off || this.allEarlier.some(Boolean));
  }

  nameLines(name: (index: number) => string): void {
    this.name = name;
  }

  /**
   * Reads a line's spans into records. With `lines`, the line's nesting depth is checked as its spans are read
   * (readDocument's DepthCheck, as for a document parsed without the check, ADR 0040), the rest of the line after them;
   * where that finds it too deep, or the reading fails, `lines.checkDepth` walks the line whole, so that a line too
   * deep is refused as the parser's own check would refuse it, before anything the reader met in it.
   */
  private readLine(value: unknown, index: number, lines: LineDepthCheck | undefined): void {
    if (this.failure) {
      lines?.checkDepth(value);
      return;
    }
    let tooDeep = false;
    try {
      this.entries += countSpans([{ value }]);
      const depth: DepthCheck | undefined = lines && { parts: this.depthParts, checked: new Set(), spanDepth: 7 };
      readDocument(value, `${this.name(index)}: $`, this.spans, this.resource, this.read, undefined, undefined, depth);
      tooDeep = depth !== undefined && this.depthParts.restDeeper(value, depth.checked);
    } catch (error) {
      lines?.checkDepth(value);
      this.failure = { error };
    }
    if (tooDeep) lines!.checkDepth(value);
  }

  /**
   * What importFromOtlp would have read from the lines. The first import takes the records themselves; another
   * import of the same input (the worker maps a file again when a token estimate was refused) gets fresh copies, as
   * the first one's mapping set their `kind`, `stepId` and `depth` (and its runs hold them).
   */
  take(): { spans: SpanRecord[]; resource: { attributes?: Attributes }; read: ReadDefects; entries: number } {
    if (this.failure) throw this.failure.error;
    let spans = this.spans;
    if (this.taken) spans = spans.map((s) => ({ ...s, kind: undefined, stepId: undefined, depth: undefined }));
    this.taken = true;
    return { spans, resource: this.resource, read: this.read, entries: this.entries };
  }
}

export function importFromOtlp(doc: ParsedInput, cache?: OtlpSpanCache): ImportResult {
  const pre = doc.kind === 'jsonl' ? linesRead.get(doc.values)?.take() : undefined;
  const spans: SpanRecord[] = pre ? pre.spans : [];
  const resource: { attributes?: Attributes } = pre ? pre.resource : {};
  const read = pre ? pre.read : new ReadDefects();
  // Lines read as they were parsed stand for nothing more here (LINE_READ has no spans).
  const docs = documentsOf(doc);
  // A document in a JSON array of them is one level down; JSON Lines are checked line by line when parsed.
  const depth: DepthCheck | undefined =
    doc.kind === 'json' && doc.depthUnchecked ? { parts: new DepthCheckInParts(), checked: new Set(), spanDepth: Array.isArray(doc.value) ? 8 : 7 } : undefined;
  // Five passes over the spans, one tick per span in each: reading them, taking them into each trace's tree, linking
  // them there, mapping the tree, and listing the run's spans (RunAssembler.finish; the last two were ~0.3 s each of
  // a still bar at a million spans).
  const progress = new MapProgress(5 * (countSpans(docs) + (pre ? pre.entries : 0)));
  if (pre) progress.advance(pre.entries);
  for (const { value, path } of docs) readDocument(value, path, spans, resource, read, cache, progress, depth);
  if (depth && doc.kind === 'json') {
    if (depth.parts.restDeeper(doc.value, depth.checked)) throw new FormatProblem('$', TOO_DEEP);
    doc.depthUnchecked = false;
  }
  return runsOf(spans, resource, read, progress);
}

/** The runs of the spans read (the passes after reading: each trace's tree, its mapping) and the import's warnings. */
function runsOf(spans: SpanRecord[], resource: { attributes?: Attributes }, read: ReadDefects, progress: MapProgress): ImportResult {
  const byTrace = new Map<string, SpanRecord[]>();
  // A file of one trace (the usual export of one run) is its list as read: no copy of it, span by span.
  const oneTrace = spans.length > 0 && spans.every((span) => span.traceId === spans[0].traceId);
  if (oneTrace) byTrace.set(spans[0].traceId, spans);
  // A trace's spans mostly follow one another: the last trace's list is tried before the map.
  let lastTrace: string | undefined;
  let lastList: SpanRecord[] = [];
  for (let i = 0; !oneTrace && i < spans.length; i++) {
    const span = spans[i];
    if (span.traceId !== lastTrace) {
      let list = byTrace.get(span.traceId);
      if (!list) byTrace.set(span.traceId, (list = []));
      lastTrace = span.traceId;
      lastList = list;
    }
    lastList.push(span);
  }
  const warnings: string[] = [];
  const runs: Run[] = [];
  // A trace whose every span was dropped (no span id, …) still has its drops reported: an empty list keeps its place.
  for (const traceId of read.drops.keys()) if (traceId !== '' && !byTrace.has(traceId)) byTrace.set(traceId, []);
  for (const [traceId, traceSpans] of byTrace) {
    const forest = buildForest(traceId, traceSpans, read.drops.get(traceId), progress);
    if (forest.duplicates) warnings.push(`trace ${traceId}: ${forest.duplicates} repeated span id(s); the first copy of each was kept`);
    const run = looksLikeSmolagents(forest) ? smolagentsSpansToRun(forest, 'otlp', progress) : genericSpansToRun(forest, 'otlp', progress);
    if (resource.attributes && Object.keys(resource.attributes).length) run.raw = { ...run.raw, resource: resource.attributes };
    runs.push(run);
  }
  // Spans with no trace id belong to no run: the file's first run reports them (the file's sum stays whole).
  const noTrace = read.drops.get('');
  if (noTrace && runs.length > 0) {
    const report = runs[0].spanReport!;
    for (const [reason, count] of noTrace) {
      report.dropped.push({ reason, count });
      report.read += count;
    }
  }
  for (const note of read.notes) warnings.push(note);
  if (read.more) warnings.push(`${read.more} more span(s) with the same kind of defect were kept the same way`);
  for (const [traceId, drops] of read.drops) {
    const parts = [...drops].map(([reason, count]) => `${count} ${reason}`).join(', ');
    if (traceId !== '') warnings.push(`trace ${traceId}: spans dropped: ${parts}`);
    else warnings.push(runs.length > 0 ? `spans dropped: ${parts} (reported with the first run)` : `spans dropped: ${parts}; no span could be read`);
  }
  if (spans.length === 0 && !noTrace) warnings.push('the file holds no spans');
  return { runs, annotationSets: [], warnings };
}

// --- a JSON array of documents, read one at a time -------------------------------------------------------------

/** Characters of spans parsed per batch by importOtlpDocumentText (json-pieces' batches: young objects, scavenged at once). */
const SPAN_BATCH_CHARS = 1 << 16;

/**
 * Keys a scope block may not have after its spans (READ_BEFORE_SPANS), or a resource block after its scope blocks
 * (RESOURCE_READ_FIRST): readDocument reads them before the list, so the block's head parsed alone must hold them.
 */
const READ_BEFORE_SPANS = new Set(['scope', 'instrumentationLibrary', 'instrumentation_library']);
const RESOURCE_READ_FIRST = new Set(['resource']);

/**
 * A file that is one OTLP document (`{"resourceSpans": [...]}`, the flat exports of goal 1) read from its text with
 * its spans arrays' elements parsed in batches and each batch read into span records at once (issue 14, ADR 0047):
 * the same reading as a document at a time of importOtlpArrayText, a batch of spans at a time. The resource and scope
 * blocks are parsed alone, each up to its list (its members after the list are scanned), before their spans are read.
 *
 * Gives what parseText, detection and importFromOtlp give, or undefined where that is not certain (the caller then
 * takes the whole-text path, which raises every error as before):
 * - the text is one object whose only key is `resourceSpans`, an array of resource blocks, each an object with a
 *   non-empty `scopeSpans` array of scope blocks, each an object with a `spans` array, no key twice in a block;
 *   what readDocument reads of a block before its list (`resource`; `scope`) is not after it;
 * - each batch is `[` + its text + `]` parsed, and the text left with every spans array emptied is parsed too: then
 *   the whole text is JSON, and its JSON.parse is that object with these spans (the grammar is unambiguous);
 * - detection picks OTLP for such an object (the caller checks the importers the file name matches);
 * - nothing nests too deeply (each span where it is read, each block's head before its spans, the rest at the end);
 * - nothing thrown while reading or mapping.
 * `onDocument` is told where each batch read ends in the text, then, with `read`, that all are read.
 */
export function importOtlpDocumentText(text: string, onDocument?: (end: number, read: boolean) => void, batchChars = SPAN_BATCH_CHARS): ImportResult | undefined {
  try {
    return readDocumentInPieces(text, onDocument, batchChars);
  } catch {
    return undefined;
  }
}

function readDocumentInPieces(text: string, onDocument: ((end: number, read: boolean) => void) | undefined, batchChars: number): ImportResult | undefined {
  const start = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (text.charCodeAt(start) !== 123 /* { */) return undefined;
  const top = memberAt(text, skipSpace(text, start + 1), new Set());
  if (top === undefined || top.key !== 'resourceSpans' || text.charCodeAt(top.value) !== 91 /* [ */) return undefined;
  const spans: SpanRecord[] = [];
  const resource: { attributes?: Attributes } = {};
  const read = new ReadDefects();
  // Span entries read (the reading's pass of the mapping's five, as importFromOtlp counts them).
  let entries = 0;
  const parts = new DepthCheckInParts();
  // The document at level 1: resource blocks at 3, scope blocks at 5, spans at 7 (their attributes items at 9).
  const depth: DepthCheck = { parts, checked: new Set(), spanDepth: 7 };
  const items: ItemsCheck = { parts, level: 9 };
  // The text with every spans array emptied, in pieces, and where the text not yet put in it begins.
  const skeleton: string[] = [];
  let from = start;

  /** The object at `i` as a block: its members scanned, `list`'s array handed to `readList`; the index past its `}`, or -1. */
  const block = (i: number, list: string, after: ReadonlySet<string>, readList: (head: JsonObject, open: number) => number): number => {
    const blockStart = i;
    const keys = new Set<string>();
    let listed = false;
    i = skipSpace(text, i + 1);
    for (;;) {
      const member = memberAt(text, i, keys);
      if (member === undefined) return -1;
      if (member.key === list) {
        if (text.charCodeAt(member.value) !== 91 /* [ */) return -1;
        // The block's members before its list, parsed alone with the list empty.
        const head = JSON.parse(`${text.slice(blockStart, member.value)}[]}`) as JsonObject;
        i = readList(head, member.value);
        listed = true;
      } else {
        if (listed && after.has(member.key)) return -1;
        i = valueEnd(text, member.value, text.length);
      }
      if (i < 0) return -1;
      i = skipSpace(text, i);
      const c = text.charCodeAt(i);
      if (c === 125 /* } */) return listed ? i + 1 : -1;
      if (c !== 44 /* , */) return -1;
      i = skipSpace(text, i + 1);
    }
  };

  /** Each element of the array opening at `open`, an object, given to `each` with its index; the index past the `]`, or -1 (none, or not objects). */
  const elements = (open: number, each: (i: number, index: number) => number): number => {
    let i = skipSpace(text, open + 1);
    for (let index = 0; ; index++) {
      if (text.charCodeAt(i) !== 123 /* { */) return -1;
      i = each(i, index);
      if (i < 0) return -1;
      i = skipSpace(text, i);
      const c = text.charCodeAt(i);
      if (c === 93 /* ] */) return i + 1;
      if (c !== 44 /* , */) return -1;
      i = skipSpace(text, i + 1);
    }
  };

  const resourcesEnd = elements(top.value, (i, r) => {
    const rPath = `$.resourceSpans[${r}]`;
    return block(i, 'scopeSpans', RESOURCE_READ_FIRST, (rs, open) => {
      if (parts.deeper(rs, 3)) return -1;
      const service = serviceOf(rs, rPath, resource);
      return elements(open, (j, s) => {
        const sPath = `${rPath}.scopeSpans[${s}]`;
        return block(j, 'spans', READ_BEFORE_SPANS, (ss, spansOpen) => {
          if (parts.deeper(ss, 5)) return -1;
          const reader = new ScopeSpansReader(sPath, scopeNameOf(ss), service, spans, read, undefined, undefined, depth, items);
          let offset = 0;
          const close = eachElementBatch(text, spansOpen, batchChars, (batch, end) => {
            reader.readSpans(batch, offset);
            offset += batch.length;
            entries += batch.length;
            onDocument?.(end, false);
            return true;
          });
          if (close < 0) return -1;
          skeleton.push(text.slice(from, spansOpen + 1));
          from = close - 1;
          return close;
        });
      });
    });
  });
  if (resourcesEnd < 0) return undefined;
  const end = skipSpace(text, resourcesEnd);
  if (text.charCodeAt(end) !== 125 /* } */ || skipSpace(text, end + 1) !== text.length) return undefined;
  skeleton.push(text.slice(from, end + 1));
  // The rest of the document (every block without its spans) parsed, and checked as importFromOtlp checks it.
  const rest: unknown = JSON.parse(skeleton.join(''));
  if (!isObject(rest) || Object.keys(rest).length !== 1 || parts.deeper(rest, 1)) return undefined;
  onDocument?.(text.length, true);
  // The mapping's other four passes are counted as importFromOtlp counts them, the reading's done: a determinate bar.
  const progress = new MapProgress(5 * entries);
  progress.advance(entries);
  return runsOf(spans, resource, read, progress);
}

/**
 * A file that is a JSON array of OTLP documents (one per trace or batch: bench/gen-otlp's file, exporters that write
 * a list of batches) read one document at a time from its text, without JSON.parse of the whole (issue 14): each
 * element's text is found by a scan that skips strings, parsed alone, read into span records and let go. A whole
 * parse builds the whole tree (~1.7× the text) and the young generation copies and promotes all of it before the
 * reading starts, then the mapping's full collection marks it again; a document parsed alone dies young once read,
 * and the tree is never whole in memory beside the model.
 *
 * Gives what parseText, detection and importFromOtlp give, or undefined where that is not certain, and the caller
 * takes the whole-text path (which then raises every error as before):
 * - the text is exactly `[` doc (`,` doc)* `]` with JSON whitespace around (after a byte order mark), each doc an
 *   object whose text JSON.parse reads alone: then the whole text is valid JSON, and its JSON.parse is the array of
 *   these values (the grammar is unambiguous; a value's text reads the same anywhere);
 * - every document is an OTLP one (isOtlpDoc): detection picks OTLP for a non-empty array of them when no importer
 *   matched by the file name comes first that could take an array (the caller checks those);
 * - nothing nests too deeply (each span where it is read, the rest of each document after it, as importFromOtlp
 *   checks a whole document);
 * - nothing thrown while reading or mapping.
 * Its spans are not counted before reading: the mapping's progress has no total (MapProgress(0) tells mapTicks nothing).
 * `onDocument` is told where each document read ends in the text (how far the reading is), then, with `read`, that
 * all are read and the runs are being built.
 */
export function importOtlpArrayText(text: string, onDocument?: (end: number, read: boolean) => void): ImportResult | undefined {
  let i = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (text.charCodeAt(i) !== 91 /* [ */) return undefined;
  i = skipSpace(text, i + 1);
  const spans: SpanRecord[] = [];
  const resource: { attributes?: Attributes } = {};
  const read = new ReadDefects();
  const progress = new MapProgress(0);
  const parts = new DepthCheckInParts();
  // How each document's text begins, up to its first key (`{"resourceSpans"`): the next one is looked for with indexOf.
  let head: string | undefined;
  // The length of the shortest document read: the next head is first looked for past half of it from where this
  // document begins (an exporter's batches are much alike in length), so indexOf does not read most of each document's
  // text again (~40 ms of the 101 MB bench file). A document shorter than that makes the slice hold two or more
  // documents, which JSON.parse refuses right after the first: then it is looked for from the start, as always.
  let shortest = 0;
  try {
    for (let index = 0; ; index++) {
      // An empty array, or an element that is not an object, is no OTLP file.
      if (text.charCodeAt(i) !== 123 /* { */) return undefined;
      let value: unknown;
      let end = -1;
      for (let skip = shortest >> 1; head !== undefined; skip = 0) {
        end = endBefore(text, text.indexOf(head, i + 1 + skip));
        if (end > i) {
          try {
            value = JSON.parse(text.slice(i, end));
            break;
          } catch {
            end = -1;
          }
        }
        // Not where a document ends (the head met inside this one, or the next begins otherwise): scanned below.
        if (skip === 0) head = undefined;
      }
      if (end <= i) {
        end = objectEnd(text, i);
        if (end < 0) return undefined;
        value = JSON.parse(text.slice(i, end));
        if (index === 0) head = headOf(text, i);
      }
      if (!isOtlpDoc(value)) return undefined;
      if (shortest === 0 || end - i < shortest) shortest = end - i;
      // The document is at level 2 of the file, its spans at level 8.
      const depth: DepthCheck = { parts, checked: new Set(), spanDepth: 8 };
      readDocument(value, `$[${index}]`, spans, resource, read, undefined, progress, depth);
      if (parts.restDeeper(value, depth.checked, 2)) return undefined;
      onDocument?.(end, false);
      i = skipSpace(text, end);
      const c = text.charCodeAt(i);
      if (c === 93 /* ] */) break;
      if (c !== 44 /* , */) return undefined;
      i = skipSpace(text, i + 1);
    }
    if (skipSpace(text, i + 1) !== text.length) return undefined;
    onDocument?.(text.length, true);
    return runsOf(spans, resource, read, progress);
  } catch {
    return undefined;
  }
}

/**
 * Where the array element before `next` ends, if `next` is where one begins (-1: the end of the text, the last
 * element): just past its `}`, with only whitespace and a comma between (or whitespace and the array's `]`). -1 when
 * the text around does not have that form.
 */
function endBefore(text: string, next: number): number {
  let e = (next < 0 ? text.length : next) - 1;
  while (isSpace(text.charCodeAt(e))) e--;
  if (text.charCodeAt(e) !== (next < 0 ? 93 /* ] */ : 44) /* , */) return -1;
  e--;
  while (isSpace(text.charCodeAt(e))) e--;
  return text.charCodeAt(e) === 125 /* } */ ? e + 1 : -1;
}

/** The text of an object from its `{` to the end of its first key (`{"resourceSpans"`), or undefined (none, or one with an escape). */
function headOf(text: string, start: number): string | undefined {
  const open = skipSpace(text, start + 1);
  if (text.charCodeAt(open) !== 34 /* " */) return undefined;
  const close = text.indexOf('"', open + 1);
  if (close < 0 || text.slice(open + 1, close).includes('\\')) return undefined;
  return text.slice(start, close + 1);
}

/**
 * The index just past the `}` that closes the object opening at `start`, brackets inside strings not counted; -1 when
 * the text ends first. Exact for valid JSON; on other text any answer is fine, as JSON.parse of the piece then fails
 * or the text around it does not match. Strings are skipped with indexOf (a quote preceded by an even number of
 * backslashes ends one): most of the text is in strings.
 */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  const n = text.length;
  for (let i = start; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j < 0) return -1;
        let k = j - 1;
        while (text.charCodeAt(k) === 92 /* \ */) k--;
        if (((j - 1 - k) & 1) === 0) break;
        j = text.indexOf('"', j + 1);
      }
      i = j;
    } else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

export function isOtlpFormatted(doc: ParsedInput): boolean {
  if (doc.kind === 'jsonl') return doc.values.length > 0 && doc.values.every(isOtlpDoc);
  if (Array.isArray(doc.value)) return doc.value.length > 0 && doc.value.every(isOtlpDoc);
  return isOtlpDoc(doc.value);
}

export const otlpImporter: FormatImporter = {
  id: 'otlp',
  checksDepth: true,
  label: 'OTLP/JSON traces',
  fileName: /(otlp|otel|traces?)[^/\\]*\.jsonl?(\.gz)?$/i,
  sniff: isOtlpFormatted,
  importDoc: importFromOtlp,
};
