// A slice of plain records (a run's steps or handoffs) in columns, to cross from a worker to the page (ADR 0029):
// the records are grouped by shape (their own keys, in order), and each key of a shape is one column: numbers in a
// typed array (its buffer transferred, not cloned), strings that repeat as indices into the run's string table (each
// string sent once per run), other strings as a plain array (long ones joined into one string, ADR 0074), records
// or arrays that rows share (one object given to many steps) as indices into the distinct ones, nested records of
// one shape as columns again, arrays as their lengths and their elements' column, anything else as the values
// themselves (a structured clone keeps them).
// `rebuild` gives back records with the same keys in the same order and the same values (-0, NaN, a key whose value
// is undefined included). Pure TS, no DOM.

/** One column: the values of one key over the records of one shape. */
export type Column =
  | { t: 'i32'; v: Int32Array }
  | { t: 'f64'; v: Float64Array }
  | { t: 'bool'; v: Uint8Array }
  /** Indices into the run's string table. */
  | { t: 'str'; v: Uint32Array }
  | { t: 'text'; v: string[] }
  /**
   * Long texts (ADR 0074): joined into one string per kind of character (`one`: every character under U+0100, `two`:
   * the rest, so that a text of Latin-1 is not widened by another's), each row's text ending at `ends[i]` in its own
   * string (`wide[i]` 1: in `two`; absent when none is). The page takes each text as a slice of its string.
   */
  | { t: 'joined'; one: string; two: string; ends: Uint32Array; wide?: Uint8Array }
  /** Records with these keys, in this order. */
  | { t: 'obj'; keys: string[]; cols: Column[] }
  /** Plain arrays without holes: their lengths, then their elements one after the other. */
  | { t: 'arr'; lens: Uint32Array; items: Column }
  /**
   * Records or arrays that are mostly a few objects shared by many rows (a chat log's `usage`, `{ role }` raw and
   * one-name `recipients`): each row's index into the `n` distinct ones, which are a column of their own (sharedRefs).
   */
  | { t: 'ref'; v: Uint32Array; n: number; items: Column }
  | { t: 'val'; v: unknown[] };

export interface Shape {
  keys: string[];
  cols: Column[];
}

/** A slice in columns. */
export interface ColumnSlice {
  rows: number;
  /** Strings the run's table gains with this slice (appended in this order, before the slice is read). */
  strings: string[];
  shapes: Shape[];
  /** Each record's shape, in the slice's order; absent when there is one shape. */
  shapeOf?: Uint32Array;
}

/** The worker's side of a run's string table: each string gets an index the first time a slice sends it. */
export class StringTable {
  private readonly index = new Map<string, number>();
  private fresh: string[] = [];

  indexOf(s: string): number {
    let at = this.index.get(s);
    if (at === undefined) {
      at = this.index.size;
      this.index.set(s, at);
      this.fresh.push(s);
    }
    return at;
  }

  /** For each index, the call of indicesOf that last met its string. */
  private readonly metIn: number[] = [];
  private calls = 0;

  /**
   * The indices of `values` (a column of one slice), or undefined when more than half of them are distinct: the table
   * is then as it was before the call (such strings are sent as text, and a table of them would only grow). With
   * `always`, the indices whatever their count (the strings of values that rows share: sharedRefs).
   */
  indicesOf(values: readonly string[], always = false): Uint32Array | undefined {
    const n = values.length;
    const most = always ? n : n >> 1;
    const call = ++this.calls;
    const freshBefore = this.fresh.length;
    const out = new Uint32Array(n);
    let distinct = 0;
    for (let i = 0; i < n; i++) {
      const at = this.indexOf(values[i]);
      if (this.metIn[at] !== call) {
        while (this.metIn.length < at) this.metIn.push(0);
        this.metIn[at] = call;
        if (++distinct > most) {
          for (let k = freshBefore; k < this.fresh.length; k++) this.index.delete(this.fresh[k]);
          this.fresh.length = freshBefore;
          return undefined;
        }
      }
      out[i] = at;
    }
    return out;
  }

  /** The strings added since the last call. */
  takeFresh(): string[] {
    const fresh = this.fresh;
    this.fresh = [];
    return fresh;
  }
}

function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  return Object.getPrototypeOf(v) === Object.prototype;
}

function isPlainArray(v: unknown): v is unknown[] {
  return Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A column of strings worth a table: each repeats at least twice on average (ids, kinds, roles, agent names); else
 * undefined (sent as text). Their indices in the run's table. `shared`: the strings of values that rows share
 * (sharedRefs), each standing for many rows: always in the table, so the page makes those values once per run.
 */
function tableIndices(values: readonly string[], table: StringTable, shared: boolean): Uint32Array | undefined {
  if (shared) return table.indicesOf(values, true);
  const n = values.length;
  if (n < 2) return undefined;
  // The first 32 all different: free text or ids (the usual case for them), no pass through the table.
  if (firstAllDifferent(values)) return undefined;
  return table.indicesOf(values);
}

/** How many values are looked at before a column's values are put through a table or a map. */
const LOOK_AHEAD = 32;

/**
 * Whether the first LOOK_AHEAD values (strings, or objects by identity) are all different: then a column is taken to be
 * mostly distinct (free text, ids, objects made per row) without a pass over all of it. False for a shorter column.
 */
function firstAllDifferent<T>(values: readonly T[]): boolean {
  if (values.length < LOOK_AHEAD) return false;
  // Each pair compared (496 comparisons), not put in a Set: a Set hashes each string whole, and a column of texts
  // (a span's input and output, a tool's result, KBs each) was hashed only to be sent as text after all: 47 ms of the
  // import worker's 1.4 s for the 100k-span bench file. Two strings of different lengths differ at once, and distinct
  // texts of one length mostly differ early; objects compare by identity. The worst case, 32 texts of one length that
  // share a long beginning, compares each pair up to where it differs (about 15 times the Set's hashing of them).
  for (let i = 1; i < LOOK_AHEAD; i++) {
    const v = values[i];
    for (let j = 0; j < i; j++) if (values[j] === v) return false;
  }
  return true;
}

/**
 * From this many characters a text, on average over its column, is long: the column is sent joined (ADR 0074). A page
 * that took tens of thousands of 4 KB tool results as one string each spent 50–150 ms tasks in its garbage collector
 * while the run was handed over. A column's texts joined are one string, which V8 places among large objects (never
 * moved) from 128 KB, and each text is a slice of it: a small object that points into it. This costs the worker a
 * copy of the texts (~0.3–0.5 ms a MB in Chromium). Below this length a slice's own object (~20 bytes, against a
 * string's 12 of header) would add to a text's memory more than it saves.
 */
export const JOINED_MIN_CHARS = 256;
/** A column's joined texts stay far below the longest string an engine makes (2^29 - 24 characters in V8). */
const JOINED_MAX_CHARS = 1 << 27;
/** A character that Latin-1 has not: a text with one is held two bytes a character. */
const WIDE_CHAR = /[^\u0000-\u00ff]/;

/** A column of mostly distinct strings as a 'joined' column, when its texts are long (JOINED_MIN_CHARS); else undefined. */
function joinedTexts(texts: readonly string[]): Column | undefined {
  const n = texts.length;
  if (n === 0) return undefined;
  let total = 0;
  for (let i = 0; i < n; i++) total += texts[i].length;
  if (total < JOINED_MIN_CHARS * n || total > JOINED_MAX_CHARS) return undefined;
  const ends = new Uint32Array(n);
  const one: string[] = [];
  const two: string[] = [];
  let wide: Uint8Array | undefined;
  let oneEnd = 0;
  let twoEnd = 0;
  for (let i = 0; i < n; i++) {
    const s = texts[i];
    if (WIDE_CHAR.test(s)) {
      (wide ??= new Uint8Array(n))[i] = 1;
      two.push(s);
      ends[i] = twoEnd += s.length;
    } else {
      one.push(s);
      ends[i] = oneEnd += s.length;
    }
  }
  const col: Column = { t: 'joined', one: one.join(''), two: two.join(''), ends };
  if (wide) col.wide = wide;
  return col;
}

/** Typed arrays (and plain arrays of transferables) whose buffers the column holds, for a postMessage transfer list. */
function collectBuffers(col: Column, into: ArrayBuffer[]): void {
  switch (col.t) {
    case 'i32':
    case 'f64':
    case 'bool':
    case 'str':
      into.push(col.v.buffer as ArrayBuffer);
      return;
    case 'joined':
      into.push(col.ends.buffer as ArrayBuffer);
      if (col.wide) into.push(col.wide.buffer as ArrayBuffer);
      return;
    case 'obj':
      for (const c of col.cols) collectBuffers(c, into);
      return;
    case 'arr':
      into.push(col.lens.buffer as ArrayBuffer);
      collectBuffers(col.items, into);
      return;
    case 'ref':
      into.push(col.v.buffer as ArrayBuffer);
      collectBuffers(col.items, into);
      return;
    default:
      return;
  }
}

/** The buffers a slice holds: post them as transferred (each is the slice's own, made by `toColumns`). */
export function transferablesOf(slice: ColumnSlice): ArrayBuffer[] {
  const into: ArrayBuffer[] = [];
  if (slice.shapeOf) into.push(slice.shapeOf.buffer as ArrayBuffer);
  for (const shape of slice.shapes) for (const col of shape.cols) collectBuffers(col, into);
  return into;
}

/** How deep nested records and arrays are put in columns; deeper values go as they are. */
const MAX_DEPTH = 4;

/**
 * A column of objects that rows share (the same object, not equal ones: an importer that gives many steps one frozen
 * `usage` or one recipients list): each row's index into the distinct objects, in the order first met, or undefined
 * when at least half of them are distinct. The distinct objects are then put in columns once per slice, where each
 * row's copy was read key by key (Object.keys, Object.values, a type test per value); the page makes each one once
 * and gives it to every row that has it, as its interning did (ADR 0029, addendum of 2026-11-29).
 */
function sharedRefs(values: readonly object[]): { v: Uint32Array; distinct: object[] } | undefined {
  const n = values.length;
  if (n < 2) return undefined;
  // The first 32 all different objects: made per row (a span's attributes, a count per step), no pass through a map.
  if (firstAllDifferent(values)) return undefined;
  const most = n >> 1;
  const index = new Map<object, number>();
  const distinct: object[] = [];
  const v = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const value = values[i];
    let at = index.get(value);
    if (at === undefined) {
      at = distinct.length;
      if (at >= most) return undefined;
      index.set(value, at);
      distinct.push(value);
    }
    v[i] = at;
  }
  return { v, distinct };
}

/**
 * `values`: an array made for this column, which it may keep (it is not read or changed after). `shared`: the values
 * are those that rows share (sharedRefs), or inside them.
 */
function encodeColumn(values: unknown[], table: StringTable, depth: number, shared = false): Column {
  const n = values.length;
  let numbers = 0;
  let ints = 0;
  let strings = 0;
  let bools = 0;
  let records = 0;
  let arrays = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    switch (typeof v) {
      case 'number':
        numbers++;
        if ((v | 0) === v && (v !== 0 || 1 / v > 0)) ints++;
        break;
      case 'string':
        strings++;
        break;
      case 'boolean':
        bools++;
        break;
      case 'object':
        if (isPlainRecord(v)) records++;
        else if (isPlainArray(v)) arrays++;
        break;
    }
  }
  if (n > 0 && numbers === n) {
    const v = ints === n ? new Int32Array(n) : new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = values[i] as number;
    return ints === n ? { t: 'i32', v: v as Int32Array } : { t: 'f64', v: v as Float64Array };
  }
  if (n > 0 && bools === n) {
    const v = new Uint8Array(n);
    for (let i = 0; i < n; i++) v[i] = values[i] ? 1 : 0;
    return { t: 'bool', v };
  }
  if (n > 0 && strings === n) {
    // `values` is made for this column (valuesByKey, columnsOf, an array column's items): sent as it is.
    const texts = values as string[];
    const v = tableIndices(texts, table, shared);
    return v ? { t: 'str', v } : (joinedTexts(texts) ?? { t: 'text', v: texts });
  }
  if (depth < MAX_DEPTH && n > 0 && (records === n || arrays === n)) {
    const refs = sharedRefs(values as object[]);
    if (refs) return { t: 'ref', v: refs.v, n: refs.distinct.length, items: encodeColumn(refs.distinct, table, depth, true) };
  }
  if (depth < MAX_DEPTH && n > 0 && records === n) {
    const keys = Object.keys(values[0] as object);
    const columns = columnsOf(values as object[], keys);
    if (columns) {
      const cols = columns.map((column) => encodeColumn(column, table, depth + 1, shared));
      return { t: 'obj', keys, cols };
    }
  }
  if (depth < MAX_DEPTH && n > 0 && arrays === n) {
    const lens = new Uint32Array(n);
    const items: unknown[] = [];
    let whole = true;
    for (let i = 0; i < n && whole; i++) {
      const a = values[i] as unknown[];
      // An array with a hole (or more own keys than its elements) goes as it is: a structured clone keeps them.
      if (Object.keys(a).length !== a.length) whole = false;
      lens[i] = a.length;
      for (let j = 0; j < a.length; j++) {
        const item = a[j];
        if (item === undefined && !(j in a)) whole = false;
        items.push(item);
      }
    }
    if (whole) return { t: 'arr', lens, items: encodeColumn(items, table, depth + 1, shared) };
  }
  return { t: 'val', v: values as unknown[] };
}

/** The values of each key of `records`, a column per key (valuesByKey), when every record has exactly `keys` in that order. */
function columnsOf(records: readonly object[], keys: readonly string[]): unknown[][] | undefined {
  for (let i = 1; i < records.length; i++) if (!sameKeys(keys, Object.keys(records[i]))) return undefined;
  return valuesByKey(records, keys.length);
}

/** Up to this many shapes in a slice, a record's shape is looked for among them all before by its signature. */
const FEW_SHAPES = 8;

/**
 * A slice of records in columns. `table` is the run's: the strings it gains are in the slice (`strings`), so the
 * slices must be rebuilt in the order they were made, with the same table on the other side (RunStrings).
 */
export function toColumns(records: readonly object[], table: StringTable): ColumnSlice {
  const shapes: { keys: string[]; rows: Record<string, unknown>[] }[] = [];
  // Shapes by their keys joined; the keys themselves are compared (a key may hold the separator).
  const bySignature = new Map<string, number[]>();
  const shapeOf = new Uint32Array(records.length);
  let last = -1;
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as Record<string, unknown>;
    const keys = Object.keys(record);
    let s = last >= 0 && sameKeys(shapes[last].keys, keys) ? last : -1;
    // A slice has a few shapes (a span run's model and tool steps alternate): compared first, without joining the keys
    // into a signature per record (a string made and hashed for every other step of the flat 100k-span trace).
    if (s < 0 && shapes.length <= FEW_SHAPES) {
      for (let k = 0; k < shapes.length; k++) {
        if (sameKeys(shapes[k].keys, keys)) {
          s = k;
          break;
        }
      }
      if (s >= 0) last = s;
    }
    if (s < 0) {
      const signature = keys.join('\u0000');
      let candidates = bySignature.get(signature);
      if (!candidates) bySignature.set(signature, (candidates = []));
      for (const c of candidates) if (sameKeys(shapes[c].keys, keys)) s = c;
      if (s < 0) {
        s = shapes.length;
        shapes.push({ keys, rows: [] });
        candidates.push(s);
      }
      last = s;
    }
    shapes[s].rows.push(record);
    shapeOf[i] = s;
  }
  const slice: ColumnSlice = {
    rows: records.length,
    strings: [],
    shapes: shapes.map(({ keys, rows }) => ({ keys, cols: valuesByKey(rows, keys.length).map((column) => encodeColumn(column, table, 0)) })),
  };
  if (shapes.length > 1) slice.shapeOf = shapeOf;
  slice.strings = table.takeFresh();
  return slice;
}

/**
 * The values of records that all have the same keys in the same order (a shape's rows), a column per key. Read with
 * Object.values, which gives a record's values in the order of its keys: one call per record, where a load per key
 * (`record[key]`, a different key each time) cost about as much per key. Filled by push: an array made with its length
 * is "holey", and a structured clone sends a holey array key by key.
 */
function valuesByKey(rows: readonly object[], k: number): unknown[][] {
  const n = rows.length;
  const columns: unknown[][] = [];
  for (let j = 0; j < k; j++) columns.push([]);
  for (let i = 0; i < n; i++) {
    const values = Object.values(rows[i]);
    for (let j = 0; j < k; j++) columns[j].push(values[j]);
  }
  return columns;
}

/**
 * The page's side of a run's string table, and the nested values it has made that can be given again (Interned).
 */
export class RunStrings {
  readonly table: string[] = [];
  /** By the kind of a nested column: its keys and its columns' kinds (`obj…`), or its items' column type (`arr…`): internedRecords, internedArrays. */
  readonly interned = new Map<string, Interned>();
}

/**
 * Nested records of one set of keys (or arrays) whose values are all scalars (numbers, booleans, strings of the
 * table), made once per run for each distinct value and given to every row that has it: a chat log's steps each carry
 * a `usage` of a few token counts and a one-name `recipients` list, and the speakers take turns, so equal ones are
 * rarely adjacent. A million of each were a million objects on the page (~35 MB of its heap at 1M messages) when a
 * few hundred say the same. Records are never edited in place (a run is replaced, not changed), and a handoff's `to`
 * was already its step's own array, so a shared value reads as its copies did.
 */
interface Interned {
  /** Each value's index by a hash of its contents; equal hashes chained through `next` (index + 1, 0 for none). */
  byHash: Map<number, number>;
  next: number[];
  values: object[];
  /** Each value's contents as sent (a string as its table index), compared with Object.is (-0 is not 0, NaN is NaN). */
  contents: number[][];
  /** Set when the values are mostly distinct: they are made as before from then on. */
  off: boolean;
}

/** Past this many distinct values a column's values are mostly distinct (a count or a time per step): not interned. */
const INTERNED_MAX = 4096;

function internedFor(strings: RunStrings, key: string): Interned {
  let site = strings.interned.get(key);
  if (!site) strings.interned.set(key, (site = { byHash: new Map(), next: [], values: [], contents: [], off: false }));
  return site;
}

/** A column of scalars: the numbers it is sent as (a string as its index in the table), and the values records hold. */
interface Scalars {
  raw: ArrayLike<number>;
  values: ArrayLike<unknown>;
}

function scalarsOf(col: Column, n: number, strings: RunStrings): Scalars | undefined {
  if (col.t === 'i32' || col.t === 'f64') return { raw: col.v, values: col.v };
  if (col.t === 'str' || col.t === 'bool') return { raw: col.v, values: decodeColumn(col, n, strings) };
  return undefined;
}

/** A hash of numbers (a string's table index stands for it: one index per distinct string in a run). */
function mix(h: number, x: number): number {
  return (Math.imul(h, 31) + ((x * 1000003) | 0)) | 0;
}

/** The index of the interned value whose contents are `contentAt(0..len-1)`, or -1. */
function findInterned(site: Interned, h: number, len: number, contentAt: (j: number) => number): number {
  for (let at = (site.byHash.get(h) ?? 0) - 1; at >= 0; at = site.next[at] - 1) {
    const c = site.contents[at];
    if (c.length !== len) continue;
    let same = true;
    for (let j = 0; j < len && same; j++) same = Object.is(c[j], contentAt(j));
    if (same) return at;
  }
  return -1;
}

function addInterned(site: Interned, h: number, value: object, contents: number[]): void {
  site.next.push(site.byHash.get(h) ?? 0);
  site.values.push(value);
  site.contents.push(contents);
  site.byHash.set(h, site.values.length);
  if (site.values.length >= INTERNED_MAX) site.off = true;
}

/** Nested records whose values are all scalars, one object per distinct record of the run (Interned). */
function internedRecords(keys: readonly string[], cols: readonly Column[], n: number, strings: RunStrings): Record<string, unknown>[] | undefined {
  // By its keys and its columns' kinds, unambiguously: the contents compared are raw numbers, so a table index, a number
  // and a boolean can be equal, and keys holding the separator could join alike; such records are not the same.
  const site = internedFor(strings, `obj\u0000${JSON.stringify([keys, cols.map((col) => col.t)])}`);
  if (site.off) return undefined;
  const columns: Scalars[] = [];
  for (const col of cols) {
    const scalars = scalarsOf(col, n, strings);
    if (scalars === undefined) return undefined;
    columns.push(scalars);
  }
  const k = keys.length;
  const plain = !keys.includes('__proto__');
  const out = new Array<Record<string, unknown>>(n);
  for (let i = 0; i < n; i++) {
    if (site.off) {
      for (let r = i; r < n; r++) out[r] = makeRecord(keys, columns, r, plain);
      break;
    }
    let h = k;
    for (let j = 0; j < k; j++) h = mix(h, columns[j].raw[i]);
    const at = findInterned(site, h, k, (j) => columns[j].raw[i]);
    if (at >= 0) {
      out[i] = site.values[at] as Record<string, unknown>;
      continue;
    }
    const record = makeRecord(keys, columns, i, plain);
    const contents: number[] = [];
    for (let j = 0; j < k; j++) contents.push(columns[j].raw[i]);
    addInterned(site, h, record, contents);
    out[i] = record;
  }
  return out;
}

function makeRecord(keys: readonly string[], columns: readonly Scalars[], i: number, plain: boolean): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  if (plain) for (let j = 0; j < keys.length; j++) record[keys[j]] = columns[j].values[i];
  else for (let j = 0; j < keys.length; j++) setKey(record, keys[j], columns[j].values[i]);
  return record;
}

/** Arrays of scalars, one array per distinct list of the run (Interned). */
function internedArrays(col: Extract<Column, { t: 'arr' }>, n: number, strings: RunStrings): unknown[][] | undefined {
  const site = internedFor(strings, `arr\u0000${col.items.t}`);
  if (site.off) return undefined;
  let total = 0;
  for (let i = 0; i < n; i++) total += col.lens[i];
  const items = scalarsOf(col.items, total, strings);
  if (items === undefined) return undefined;
  const { raw, values } = items;
  const out = new Array<unknown[]>(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const len = col.lens[i];
    const from = at;
    at += len;
    if (site.off) {
      out[i] = arrayOf(values, from, len);
      continue;
    }
    let h = len;
    for (let j = from; j < from + len; j++) h = mix(h, raw[j]);
    const found = findInterned(site, h, len, (j) => raw[from + j]);
    if (found >= 0) {
      out[i] = site.values[found] as unknown[];
      continue;
    }
    const a = arrayOf(values, from, len);
    addInterned(site, h, a, arrayOf(raw, from, len) as number[]);
    out[i] = a;
  }
  return out;
}

function arrayOf<T>(items: ArrayLike<T>, from: number, len: number): T[] {
  const a = new Array<T>(len);
  for (let j = 0; j < len; j++) a[j] = items[from + j];
  return a;
}

/** A key set by assignment except `__proto__`, which assignment would take as the prototype. */
function setKey(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
  else record[key] = value;
}

/** Past this many keys, a record made from `{}` keeps the rest of its values in a second object (see recordTemplate). */
const IN_OBJECT_KEYS = 4;

/**
 * A record to fill with `keys`: made by JSON.parse of those keys when there are more than `{}` holds in itself, so that
 * it (and each copy of it) holds all its values in one object. V8 gives `{}` room for four; a step of a dozen keys was
 * then a record and an array of the rest, an object more per step for the page's collector to copy as a run's
 * steps arrive (~30 bytes a record; 1M records of 14 keys: 141 MB of heap against 171 MB, in Node). The values are
 * null until set, and the keys come in the same order as when set one by one. Records with a `__proto__` key are made
 * key by key, as before (setKey). It inherits from Object.prototype, as the worker's records did (unlike
 * model/record.ts's emptyRecord, which has no prototype).
 */
function recordTemplate(keys: readonly string[], plain: boolean): Record<string, unknown> {
  if (!plain || keys.length <= IN_OBJECT_KEYS) return {};
  let json = '{';
  for (let j = 0; j < keys.length; j++) json += `${j === 0 ? '' : ','}${JSON.stringify(keys[j])}:null`;
  return JSON.parse(`${json}}`) as Record<string, unknown>;
}

/**
 * The records of one shape. `nested` (a record inside another: a step's `raw`, its `usage`): a record whose values are
 * those of the record before it is that same object, not a copy (records of scalars are interned for the whole run
 * first: internedRecords). Records are never edited in place (a run is replaced, not changed), so a shared one reads
 * as its copies did.
 */
function buildRecords(keys: readonly string[], cols: readonly Column[], n: number, strings: RunStrings, nested = false): Record<string, unknown>[] {
  const table = strings.table;
  if (nested && n > 0) {
    const interned = internedRecords(keys, cols, n, strings);
    if (interned) return interned;
  }
  const k = keys.length;
  // A column of table indices is read through the table as the records are made (no array of its strings first).
  const values: ArrayLike<unknown>[] = [];
  const indices: (Uint32Array | undefined)[] = [];
  for (const col of cols) {
    if (col.t === 'str') {
      for (let i = 0; i < n; i++) if (col.v[i] >= table.length) throw new Error('a slice names a string its run has not received');
      indices.push(col.v);
      values.push(table);
    } else {
      indices.push(undefined);
      values.push(decodeColumn(col, n, strings));
    }
  }
  const valueAt = (j: number, r: number): unknown => {
    const at = indices[j];
    return at === undefined ? values[j][r] : table[at[r]];
  };
  const out = new Array<Record<string, unknown>>(n);
  if (n === 0) return out;
  const plain = !keys.includes('__proto__');
  // The first record made key by key; the others copy it (the same keys in the same order, one hidden class) and
  // have their values set in place, which is cheaper than adding each key again.
  const first = recordTemplate(keys, plain);
  if (plain) for (let j = 0; j < k; j++) first[keys[j]] = valueAt(j, 0);
  else for (let j = 0; j < k; j++) setKey(first, keys[j], valueAt(j, 0));
  out[0] = first;
  for (let r = 1; r < n; r++) {
    if (nested) {
      let same = true;
      for (let j = 0; j < k && same; j++) same = Object.is(valueAt(j, r), valueAt(j, r - 1));
      if (same) {
        out[r] = out[r - 1];
        continue;
      }
    }
    const record: Record<string, unknown> = { ...first };
    if (plain) for (let j = 0; j < k; j++) record[keys[j]] = valueAt(j, r);
    else for (let j = 0; j < k; j++) setKey(record, keys[j], valueAt(j, r));
    out[r] = record;
  }
  return out;
}

function decodeColumn(col: Column, n: number, run: RunStrings): ArrayLike<unknown> {
  const table = run.table;
  switch (col.t) {
    case 'i32':
    case 'f64':
    case 'text':
    case 'val':
      return col.v;
    case 'bool': {
      const out = new Array<boolean>(n);
      for (let i = 0; i < n; i++) out[i] = col.v[i] === 1;
      return out;
    }
    case 'joined': {
      // Each text a slice of its string: V8 makes a slice of 13 characters or more an object that points into the
      // string, not a copy (ADR 0074).
      const { one, two, ends, wide } = col;
      const out = new Array<string>(n);
      let oneFrom = 0;
      let twoFrom = 0;
      for (let i = 0; i < n; i++) {
        const end = ends[i];
        if (wide !== undefined && wide[i] === 1) {
          if (end < twoFrom || end > two.length) throw new Error('a slice\'s joined texts end out of order');
          out[i] = two.slice(twoFrom, end);
          twoFrom = end;
        } else {
          if (end < oneFrom || end > one.length) throw new Error('a slice\'s joined texts end out of order');
          out[i] = one.slice(oneFrom, end);
          oneFrom = end;
        }
      }
      return out;
    }
    case 'str': {
      const out = new Array<string>(n);
      for (let i = 0; i < n; i++) {
        const s = table[col.v[i]];
        if (s === undefined) throw new Error('a slice names a string its run has not received');
        out[i] = s;
      }
      return out;
    }
    case 'obj':
      return buildRecords(col.keys, col.cols, n, run, true);
    case 'arr': {
      const interned = n > 0 ? internedArrays(col, n, run) : undefined;
      if (interned) return interned;
      let total = 0;
      for (let i = 0; i < n; i++) total += col.lens[i];
      const items = decodeColumn(col.items, total, run);
      const out = new Array<unknown[]>(n);
      let at = 0;
      for (let i = 0; i < n; i++) {
        out[i] = arrayOf(items, at, col.lens[i]);
        at += col.lens[i];
      }
      return out;
    }
    case 'ref': {
      // The distinct objects made once (records and arrays of scalars: once per run, internedRecords/internedArrays).
      const distinct = decodeColumn(col.items, col.n, run);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const at = col.v[i];
        if (at >= col.n) throw new Error('a slice names a shared value it does not hold');
        out[i] = distinct[at];
      }
      return out;
    }
  }
}

/** The records of a slice, in its order, as plain objects (the run's string table first takes the slice's strings). */
export function rebuild<T>(slice: ColumnSlice, strings: RunStrings): T[] {
  for (const s of slice.strings) strings.table.push(s);
  const byShape = slice.shapes.map((shape) => {
    const n = slice.shapeOf ? 0 : slice.rows;
    return { shape, n, rows: [] as Record<string, unknown>[] };
  });
  if (slice.shapeOf) for (let i = 0; i < slice.rows; i++) byShape[slice.shapeOf[i]].n++;
  for (const s of byShape) s.rows = buildRecords(s.shape.keys, s.shape.cols, s.n, strings);
  if (byShape.length === 1 && !slice.shapeOf) return byShape[0].rows as T[];
  const out = new Array<T>(slice.rows);
  const next = new Uint32Array(byShape.length);
  for (let i = 0; i < slice.rows; i++) {
    const s = slice.shapeOf![i];
    out[i] = byShape[s].rows[next[s]++] as T;
  }
  return out;
}

/**
 * The characters of text a slice carries: its new table strings and every string of its text columns (nested ones
 * too), and the strings among its values sent as they are. What its message's clone copies, about, and what the page
 * copies again when it takes it (send-parts.ts cuts slices by it, ADR 0073).
 */
export function textChars(slice: ColumnSlice): number {
  let n = 0;
  for (const s of slice.strings) n += s.length;
  for (const shape of slice.shapes) for (const col of shape.cols) n += columnChars(col);
  return n;
}

function columnChars(col: Column): number {
  switch (col.t) {
    case 'text': {
      let n = 0;
      for (const s of col.v) n += s.length;
      return n;
    }
    case 'joined':
      return col.one.length + col.two.length;
    case 'val': {
      let n = 0;
      for (const v of col.v) if (typeof v === 'string') n += v.length;
      return n;
    }
    case 'obj': {
      let n = 0;
      for (const c of col.cols) n += columnChars(c);
      return n;
    }
    case 'arr':
    case 'ref':
      return columnChars(col.items);
    default:
      return 0;
  }
}
