// One JSON document read in pieces (issue 14): a chat log is one object whose `history` array holds every message (a
// million messages: 74 MB of text). A single JSON.parse of it held the import worker for over a second with nothing
// to report; here the object's other members are parsed together and the array's elements in batches cut from the
// text, so the caller is told how far into the text the parse is after each batch.
//
// The result is what JSON.parse(text) gives, or undefined: then the caller parses the text whole, which raises any
// error where it is. It is undefined for anything unusual: no object, no such array, a key written twice, a piece
// that does not parse, text after the object. Why it is the same value: each batch is parsed as `[` + its text + `]`,
// so it is a list of whole JSON values, and the text between batches is checked to be a comma with JSON whitespace;
// the object with the array's text replaced by `[]` is parsed alone (so its members, their order — integer-like keys
// first, as JSON.parse orders them — and any `__proto__` key come out as JSON.parse makes them); JSON's grammar is
// unambiguous, so the whole text parses, and to these values.
//
// The hash of the document's JSON (hashJson, a chat log's run id) is computed along, batch by batch, when asked: it
// was a second pass over the whole value after the parse, again with nothing to report.
import { TextHash } from '../model/hash.ts';
import { rememberJsonHash } from './hash-json.ts';
import { DepthCheckInParts } from './json-depth.ts';
import { isJsonSpace as isSpace, skipJsonSpace as skipSpace } from './json-text.ts';

/**
 * Characters of array elements parsed per batch (~1 ms of JSON.parse). Under 128 kB, each batch's text and JSON are
 * ordinary young objects, scavenged at once; strings of 1 MB went to the large-object space, which only a full GC
 * empties (1M messages, Node: 1 MB batches 3.2-3.7 s and 309-312 MB RSS for the parse, 64 kB ones 2.9 s and 293-297 MB).
 */
const BATCH_CHARS = 1 << 16;
/**
 * The array must open within this many characters of the object's start: past them the text is parsed whole. Any
 * other document (a 78 MB OTLP export) is then given up after a scan of 1 MB at most, not of all its text.
 */
const HEAD_CHARS = 1 << 20;

export interface PiecesOptions {
  /** Members whose array value is read in batches (the first of them that is an array, in the text's order). */
  arrayKeys: readonly string[];
  /** Told after each batch where in the text the parse stands (the end of the text: all read); not told for a text of one batch. */
  onProgress?: (end: number) => void;
  /** Compute hashJson(value) along (`hash` of the result), where the keys' order allows it. */
  hash?: boolean;
  /** Elements' characters per batch (tests use small ones). */
  batchChars?: number;
  /**
   * Objects and arrays nested deeper than this make the answer undefined (the whole-text path then says where): the
   * depth is checked batch by batch as parsed (while in the cache), not by a walk over the whole value after.
   */
  maxDepth?: number;
}

export interface PiecesResult {
  /** What JSON.parse(text) gives (a BOM before the object left out, as parseText leaves it out). */
  value: Record<string, unknown>;
  /** hashJson(value), when asked for and computed. */
  hash?: string;
  /** The value nests no deeper than `maxDepth` (given). */
  depthChecked?: true;
}

/** A text that is one JSON object with a large array member, parsed in pieces; undefined: parse it whole instead. */
export function parseObjectInPieces(text: string, options: PiecesOptions): PiecesResult | undefined {
  try {
    return readObject(text, options);
  } catch {
    return undefined;
  }
}

function readObject(text: string, options: PiecesOptions): PiecesResult | undefined {
  const start = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (text.charCodeAt(start) !== 123 /* { */) return undefined;
  // The top level's members, scanned: their keys, and where the array to cut opens and closes.
  const keys = new Set<string>();
  let arrayKey: string | undefined;
  let open = -1;
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === 125 /* } */) return undefined;
  for (;;) {
    const member = memberAt(text, i, keys);
    if (member === undefined) return undefined;
    const { key } = member;
    i = member.value;
    if (arrayKey === undefined && text.charCodeAt(i) === 91 /* [ */ && options.arrayKeys.includes(key)) {
      arrayKey = key;
      open = i;
      // The elements are read later, with the members before them known: here only the end is needed…
      break;
    }
    const end = valueEnd(text, i, start + HEAD_CHARS);
    if (end < 0 || end > start + HEAD_CHARS) return undefined;
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 125 /* } */) return undefined; // no array to cut: parsed whole
    if (c !== 44 /* , */) return undefined;
    i = skipSpace(text, i + 1);
  }
  // The members before the array, and what the hash of the whole begins with (JSON.stringify's text up to the array's
  // `[`): keys are in the text's order unless one is integer-like (JSON.parse puts those first).
  // The keys before the array (those after it are looked at once read).
  const hash = options.hash && ![...keys].some(isIndexLike) ? new TextHash() : undefined;
  let stringified = '';
  if (hash) {
    stringified = JSON.stringify(JSON.parse(`${text.slice(start, open)}[]}`));
    hash.update(stringified.slice(0, -2));
  }

  const elements: unknown[] = [];
  const batchChars = options.batchChars ?? BATCH_CHARS;
  // A text of one batch is parsed at once: nothing to tell before the end.
  const onProgress = text.length > batchChars ? options.onProgress : undefined;
  const depth = options.maxDepth === undefined ? undefined : new DepthCheckInParts(options.maxDepth);
  const close = readElements(text, open, elements, batchChars, hash, depth, onProgress);
  if (close < 0) return undefined;

  // The rest of the object's members, scanned for repeated keys, then the object parsed with an empty array.
  i = skipSpace(text, close);
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 125 /* } */) break;
    if (c !== 44 /* , */) return undefined;
    const member = memberAt(text, skipSpace(text, i + 1), keys);
    if (member === undefined) return undefined;
    const end = valueEnd(text, member.value, text.length);
    if (end < 0) return undefined;
    i = skipSpace(text, end);
  }
  const objectEnd = i + 1;
  if (skipSpace(text, objectEnd) !== text.length) return undefined;
  const value = JSON.parse(`${text.slice(start, open)}[]${text.slice(close, objectEnd)}`) as Record<string, unknown>;
  const empty = value[arrayKey!];
  if (!Array.isArray(empty) || empty.length !== 0 || Object.keys(value).length !== keys.size) return undefined;
  // The document at level 1, its array's elements checked already (each batch at the array's level, 2).
  if (depth?.deeper(value, 1)) return undefined;
  let digest: string | undefined;
  // Looked at again: the members after the array may have an integer-like key, which JSON.parse lists first.
  if (hash && ![...keys].some(isIndexLike)) {
    // The JSON of the object with an empty array begins as that of the members before it: the rest, from the `]` on.
    hash.update(JSON.stringify(value).slice(stringified.length - 2));
    digest = hash.digest();
    rememberJsonHash(value, digest);
  }
  value[arrayKey!] = elements;
  onProgress?.(text.length);
  const result: PiecesResult = { value };
  if (digest !== undefined) result.hash = digest;
  if (depth) result.depthChecked = true;
  return result;
}

/**
 * Parses the elements of the array opening at `open` into `elements`, in batches of about `batchChars` characters,
 * feeding `hash` their JSON (without the brackets) and checking their depth; returns the index just past the array's `]`, or -1 (not read: parse the text whole).
 */
function readElements(
  text: string,
  open: number,
  elements: unknown[],
  batchChars: number,
  hash: TextHash | undefined,
  depth: DepthCheckInParts | undefined,
  onProgress: ((end: number) => void) | undefined,
): number {
  let first = true;
  return eachElementBatch(text, open, batchChars, (batch, end) => {
    if (depth?.deeper(batch, 2)) return false;
    for (let k = 0; k < batch.length; k++) elements.push(batch[k]);
    if (hash) {
      // The comma apart: the hash reads a flat (sliced) string, not one made of two.
      if (!first) hash.update(',');
      hash.update(JSON.stringify(batch).slice(1, -1));
      first = false;
    }
    onProgress?.(end);
    return true;
  });
}

/**
 * The elements of the JSON array opening at `open`, parsed in batches of about `batchChars` characters of text, each
 * given to `take` with where its text ends, in order; `take` returns false to stop. Returns the index just past the
 * array's `]`, or -1: the text there is no array of JSON values, or `take` stopped (then parse the text whole, which
 * raises any error where it is). A batch is cut where the next element begins as the first one did (`{"key"`, found
 * with indexOf), else by a scan; it is parsed as `[` + its text + `]`, so it holds whole values only.
 */
export function eachElementBatch(text: string, open: number, batchChars: number, take: (batch: unknown[], end: number) => boolean): number {
  let p = skipSpace(text, open + 1);
  if (text.charCodeAt(p) === 93 /* ] */) return p + 1;
  // How the first element begins, up to its first key (`{"content"`): later batches are cut where the text has it.
  const head = headOf(text, p);
  for (;;) {
    if (text.charCodeAt(p) === 93 /* ] */) return -1; // a comma before the `]`
    let end = -1;
    let next = -1;
    let batch: unknown[] | undefined;
    if (head !== undefined) {
      const found = text.indexOf(head, p + batchChars);
      if (found > p) {
        end = endBefore(text, found);
        if (end > p) {
          next = found;
          batch = parseBatch(text, p, end);
        }
      }
    }
    if (batch === undefined) {
      // No element begins like the first one further on (the last batch), or this cut was no element's start: scanned.
      const cut = cutAfter(text, p, p + batchChars);
      if (cut < 0) return -1;
      end = cut;
      batch = parseBatch(text, p, end);
      if (batch === undefined) return -1;
      const c = text.charCodeAt(end);
      next = c === 44 /* , */ ? skipSpace(text, end + 1) : -1;
    }
    if (!take(batch, end)) return -1;
    if (next < 0) return skipSpace(text, end) + 1;
    p = next;
  }
}

/** The values of text[from, to) as an array, when that text is a comma-separated list of at least one JSON value. */
export function parseBatch(text: string, from: number, to: number): unknown[] | undefined {
  try {
    const batch = JSON.parse(`[${text.slice(from, to)}]`) as unknown[];
    return batch.length > 0 ? batch : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where to end a batch of the array's elements that starts at `from`: the first comma between elements at or after
 * `target`, or the array's closing `]` (text[result] is then `,` or `]`). Brackets inside strings are not counted.
 * -1 when the text ends first. Exact for valid JSON; on other text the batch's parse fails.
 */
function cutAfter(text: string, from: number, target: number): number {
  let depth = 0;
  const n = text.length;
  for (let i = from; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const e = stringEnd(text, i);
      if (e < 0) return -1;
      i = e - 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (depth === 0) return c === 93 ? i : -1;
      depth--;
    } else if (c === 44 /* , */ && depth === 0 && i >= target) return i;
  }
  return -1;
}

/**
 * Where the element before `next` ends, if `next` is where one begins: just past its `}`, with only whitespace and a
 * comma between. -1 when the text around does not have that form.
 */
export function endBefore(text: string, next: number): number {
  let e = next - 1;
  while (isSpace(text.charCodeAt(e))) e--;
  if (text.charCodeAt(e) !== 44 /* , */) return -1;
  e--;
  while (isSpace(text.charCodeAt(e))) e--;
  return text.charCodeAt(e) === 125 /* } */ ? e + 1 : -1;
}

/** The text of an object from its `{` to the end of its first key (`{"content"`), or undefined (no object, or a key with an escape). */
export function headOf(text: string, start: number): string | undefined {
  if (text.charCodeAt(start) !== 123 /* { */) return undefined;
  const open = skipSpace(text, start + 1);
  if (text.charCodeAt(open) !== 34 /* " */) return undefined;
  const close = text.indexOf('"', open + 1);
  if (close < 0 || text.slice(open + 1, close).includes('\\')) return undefined;
  return text.slice(start, close + 1);
}

/**
 * Index just past the value starting at `i` (a string, object, array, or a number or literal), -1 if the text ends
 * first or an object or array is not closed before `limit`.
 */
export function valueEnd(text: string, i: number, limit: number): number {
  const c = text.charCodeAt(i);
  if (c === 34 /* " */) return stringEnd(text, i);
  if (c === 123 /* { */ || c === 91 /* [ */) {
    let depth = 0;
    const n = Math.min(text.length, limit);
    for (let j = i; j < n; j++) {
      const d = text.charCodeAt(j);
      if (d === 34 /* " */) {
        const e = stringEnd(text, j);
        if (e < 0) return -1;
        j = e - 1;
      } else if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  for (;;) {
    const d = text.charCodeAt(j);
    if (Number.isNaN(d) || d === 44 || d === 125 || d === 93 || isSpace(d)) return j > i ? j : -1;
    j++;
  }
}

/** Index just past the string whose opening quote is at `i` (a quote after an even number of backslashes ends it), -1 if none. */
function stringEnd(text: string, i: number): number {
  let j = text.indexOf('"', i + 1);
  for (;;) {
    if (j < 0) return -1;
    let k = j - 1;
    while (text.charCodeAt(k) === 92 /* \ */) k--;
    if (((j - 1 - k) & 1) === 0) return j + 1;
    j = text.indexOf('"', j + 1);
  }
}

/**
 * The member whose key opens at `i`: its key (decoded) and where its value begins. Undefined when the text there is
 * no `"key":`, or the key is one of `keys` already (JSON.parse would keep the last value: the text is parsed whole);
 * else the key is added to them.
 */
export function memberAt(text: string, i: number, keys: Set<string>): { key: string; value: number } | undefined {
  if (text.charCodeAt(i) !== 34 /* " */) return undefined;
  const keyEnd = stringEnd(text, i);
  if (keyEnd < 0) return undefined;
  const key = JSON.parse(text.slice(i, keyEnd)) as string;
  if (keys.has(key)) return undefined;
  keys.add(key);
  const colon = skipSpace(text, keyEnd);
  if (text.charCodeAt(colon) !== 58 /* : */) return undefined;
  return { key, value: skipSpace(text, colon + 1) };
}

/** An array index as a key ("0", "17"): JSON.parse lists such keys first, whatever their place in the text. */
export function isIndexLike(key: string): boolean {
  return /^(0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;
}

