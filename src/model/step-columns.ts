// A slice of plain records (a run's steps or handoffs) in columns, to cross from a worker to the page (ADR 0029):
// the records are grouped by shape (their own keys, in order), and each key of a shape is one column: numbers in a
// typed array (its buffer transferred, not cloned), strings that repeat as indices into the run's string table (each
// string sent once per run), other strings as a plain array, nested records of one shape as columns again, arrays as
// their lengths and their elements' column, anything else as the values themselves (a structured clone keeps them).
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
  /** Records with these keys, in this order (with `pick`: the distinct ones, see Pick). */
  | { t: 'obj'; keys: string[]; cols: Column[]; pick?: Pick }
  /** Plain arrays without holes: their lengths, then their elements one after the other (with `pick`: the distinct ones). */
  | { t: 'arr'; lens: Uint32Array; items: Column; pick?: Pick }
  | { t: 'val'; v: unknown[] };

/**
 * A column of nested records (or arrays) sent as its distinct values: `rows[i]` is the index of row i's value among
 * them, `distinct` how many there are. Made when the values are scalars (numbers, booleans, strings of the table) and
 * repeat: a chat log's steps each carry a `usage` of a few token counts and a one-name `recipients` array, a million
 * of each made on the page as a million objects when a few hundred distinct ones say the same.
 */
export interface Pick {
  rows: Uint32Array;
  distinct: number;
}

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

/** Strings worth a table: a column where each repeats at least twice on average (ids, kinds, roles, agent names). */
function repeats(values: readonly string[]): boolean {
  const n = values.length;
  if (n < 2) return false;
  // The first 32 all different: free text or ids (the usual case for them), no full pass.
  const head = Math.min(n, 32);
  const seen = new Set<string>();
  for (let i = 0; i < head; i++) seen.add(values[i]);
  if (head === 32 && seen.size === 32) return false;
  const most = n >> 1;
  for (let i = head; i < n; i++) {
    seen.add(values[i]);
    if (seen.size > most) return false;
  }
  return seen.size <= most;
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
    case 'obj':
      if (col.pick) into.push(col.pick.rows.buffer as ArrayBuffer);
      for (const c of col.cols) collectBuffers(c, into);
      return;
    case 'arr':
      if (col.pick) into.push(col.pick.rows.buffer as ArrayBuffer);
      into.push(col.lens.buffer as ArrayBuffer);
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

function encodeColumn(values: readonly unknown[], table: StringTable, depth: number): Column {
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
        if ((v | 0) === v && !Object.is(v, -0)) ints++;
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
  if (n > 0 && numbers === n) return ints === n ? { t: 'i32', v: Int32Array.from(values as number[]) } : { t: 'f64', v: Float64Array.from(values as number[]) };
  if (n > 0 && bools === n) {
    const v = new Uint8Array(n);
    for (let i = 0; i < n; i++) v[i] = values[i] ? 1 : 0;
    return { t: 'bool', v };
  }
  if (n > 0 && strings === n) {
    const texts = values as string[];
    if (!repeats(texts)) return { t: 'text', v: texts.slice() };
    const v = new Uint32Array(n);
    for (let i = 0; i < n; i++) v[i] = table.indexOf(texts[i]);
    return { t: 'str', v };
  }
  if (depth < MAX_DEPTH && n > 0 && records === n) {
    const keys = Object.keys(values[0] as object);
    let one = true;
    for (let i = 1; i < n && one; i++) one = sameKeys(keys, Object.keys(values[i] as object));
    if (one) {
      const records = values as Record<string, unknown>[];
      const cols = keys.map((key) => encodeColumn(records.map((r) => r[key]), table, depth + 1));
      return distinctRecords(keys, cols, n) ?? { t: 'obj', keys, cols };
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
    if (whole) {
      const itemCol = encodeColumn(items, table, depth + 1);
      return distinctArrays(lens, itemCol) ?? { t: 'arr', lens, items: itemCol };
    }
  }
  return { t: 'val', v: values.slice() };
}

type ScalarColumn = Extract<Column, { t: 'i32' | 'f64' | 'bool' | 'str' }>;

function isScalar(col: Column): col is ScalarColumn {
  return col.t === 'i32' || col.t === 'f64' || col.t === 'bool' || col.t === 'str';
}

/** Distinct values are sent apart only when there are at most this share of the rows (else the rows go as they are). */
const DISTINCT_SHARE = 0.5;

/**
 * Groups equal rows (rows `from`..`from + len` of each column, compared with Object.is: -0 and 0 differ, NaN is NaN),
 * `rowAt(i)` giving row i's start and length. Returns each row's group and each group's first row, or undefined when
 * more than DISTINCT_SHARE of the rows are distinct.
 */
function groupRows(cols: readonly ScalarColumn[], n: number, rowAt: (i: number) => number, lenAt: (i: number) => number): { rows: Uint32Array; firsts: number[] } | undefined {
  const limit = Math.floor(n * DISTINCT_SHARE);
  const rows = new Uint32Array(n);
  const firsts: number[] = [];
  // Groups by a hash of the row; equal hashes chained through `next` (a group's index + 1, 0 for none).
  const byHash = new Map<number, number>();
  const next: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = rowAt(i);
    const len = lenAt(i);
    let h = len;
    for (const col of cols) {
      const v = col.v;
      for (let j = start; j < start + len; j++) {
        const x = v[j];
        h = (Math.imul(h, 31) + (col.t === 'f64' ? (x * 1000003) | 0 : x)) | 0;
      }
    }
    let group = (byHash.get(h) ?? 0) - 1;
    while (group >= 0 && !sameRows(cols, rowAt(firsts[group]), lenAt(firsts[group]), start, len)) group = next[group] - 1;
    if (group < 0) {
      group = firsts.length;
      if (group >= limit) return undefined;
      firsts.push(i);
      next.push(byHash.get(h) ?? 0);
      byHash.set(h, group + 1);
    }
    rows[i] = group;
  }
  return { rows, firsts };
}

function sameRows(cols: readonly ScalarColumn[], a: number, aLen: number, b: number, bLen: number): boolean {
  if (aLen !== bLen) return false;
  for (const col of cols) for (let j = 0; j < aLen; j++) if (!Object.is(col.v[a + j], col.v[b + j])) return false;
  return true;
}

/** The values at `at` (runs of `lens` when given), in that order: a column of the distinct rows. */
function pickValues(col: ScalarColumn, at: readonly number[], starts?: Uint32Array, lens?: Uint32Array): ScalarColumn {
  const total = lens ? at.reduce((sum, i) => sum + lens[i], 0) : at.length;
  const copy = <T extends Int32Array | Float64Array | Uint8Array | Uint32Array>(from: T, into: T): T => {
    let k = 0;
    for (const i of at) {
      if (!starts || !lens) into[k++] = from[i];
      else for (let j = starts[i]; j < starts[i] + lens[i]; j++) into[k++] = from[j];
    }
    return into;
  };
  switch (col.t) {
    case 'i32':
      return { t: 'i32', v: copy(col.v, new Int32Array(total)) };
    case 'f64':
      return { t: 'f64', v: copy(col.v, new Float64Array(total)) };
    case 'bool':
      return { t: 'bool', v: copy(col.v, new Uint8Array(total)) };
    case 'str':
      return { t: 'str', v: copy(col.v, new Uint32Array(total)) };
  }
}

/** A column of nested records whose values are all scalars, as its distinct records when they repeat (Pick). */
function distinctRecords(keys: string[], cols: Column[], n: number): Column | undefined {
  if (n < 2 || !cols.every(isScalar)) return undefined;
  const scalars = cols as ScalarColumn[];
  const grouped = groupRows(scalars, n, (i) => i, () => 1);
  if (!grouped) return undefined;
  return { t: 'obj', keys, cols: scalars.map((c) => pickValues(c, grouped.firsts)), pick: { rows: grouped.rows, distinct: grouped.firsts.length } };
}

/** A column of arrays of scalars, as its distinct arrays when they repeat (Pick). */
function distinctArrays(lens: Uint32Array, items: Column): Column | undefined {
  const n = lens.length;
  if (n < 2 || !isScalar(items)) return undefined;
  const starts = new Uint32Array(n);
  for (let i = 1; i < n; i++) starts[i] = starts[i - 1] + lens[i - 1];
  const grouped = groupRows([items], n, (i) => starts[i], (i) => lens[i]);
  if (!grouped) return undefined;
  const distinctLens = new Uint32Array(grouped.firsts.length);
  grouped.firsts.forEach((i, k) => (distinctLens[k] = lens[i]));
  return { t: 'arr', lens: distinctLens, items: pickValues(items, grouped.firsts, starts, lens), pick: { rows: grouped.rows, distinct: grouped.firsts.length } };
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
    shapes: shapes.map(({ keys, rows }) => ({ keys, cols: keys.map((key) => encodeColumn(rows.map((r) => r[key]), table, 0)) })),
  };
  if (shapes.length > 1) slice.shapeOf = shapeOf;
  slice.strings = table.takeFresh();
  return slice;
}

/** The page's side of a run's string table. */
export class RunStrings {
  readonly table: string[] = [];
}

/** A key set by assignment except `__proto__`, which assignment would take as the prototype. */
function setKey(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
  else record[key] = value;
}

/**
 * The records of one shape. `nested` (a record inside another: a step's `raw`, its `usage`): a record whose values are
 * those of the record before it is that same object, not a copy. A chat log's steps carry a `raw` of one key and a
 * `usage` that repeat from message to message: a million copies of each were ~50 MB of the page's heap and two million
 * more objects for each of its young-generation collections to copy while the steps arrive. Records are never edited
 * in place (a run is replaced, not changed), so a shared one reads as its copies did.
 */
function buildRecords(keys: readonly string[], cols: readonly Column[], n: number, table: readonly string[], nested = false): Record<string, unknown>[] {
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
      values.push(decodeColumn(col, n, table));
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
  const first: Record<string, unknown> = {};
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

function decodeColumn(col: Column, n: number, table: readonly string[]): ArrayLike<unknown> {
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
      if (col.pick) return picked(buildRecords(col.keys, col.cols, col.pick.distinct, table, true), col.pick, n);
      return buildRecords(col.keys, col.cols, n, table, true);
    case 'arr': {
      if (col.pick) return picked(decodeColumn({ ...col, pick: undefined }, col.pick.distinct, table), col.pick, n);
      let total = 0;
      for (let i = 0; i < n; i++) total += col.lens[i];
      const items = decodeColumn(col.items, total, table);
      const out = new Array<unknown[]>(n);
      let at = 0;
      for (let i = 0; i < n; i++) {
        const len = col.lens[i];
        const a = new Array<unknown>(len);
        for (let j = 0; j < len; j++) a[j] = items[at + j];
        at += len;
        out[i] = a;
      }
      return out;
    }
  }
}

/** Each row's value, one of the distinct ones (the same object wherever a value repeats). */
function picked<T>(distinct: ArrayLike<T>, pick: Pick, n: number): T[] {
  if (pick.rows.length !== n) throw new Error('a slice picks from its distinct values for another number of rows');
  const out = new Array<T>(n);
  for (let i = 0; i < n; i++) {
    const at = pick.rows[i];
    if (at >= distinct.length) throw new Error('a slice picks a value it does not have');
    out[i] = distinct[at];
  }
  return out;
}

/** The records of a slice, in its order, as plain objects (the run's string table first takes the slice's strings). */
export function rebuild<T>(slice: ColumnSlice, strings: RunStrings): T[] {
  for (const s of slice.strings) strings.table.push(s);
  const byShape = slice.shapes.map((shape) => {
    const n = slice.shapeOf ? 0 : slice.rows;
    return { shape, n, rows: [] as Record<string, unknown>[] };
  });
  if (slice.shapeOf) for (let i = 0; i < slice.rows; i++) byShape[slice.shapeOf[i]].n++;
  for (const s of byShape) s.rows = buildRecords(s.shape.keys, s.shape.cols, s.n, strings.table);
  if (byShape.length === 1 && !slice.shapeOf) return byShape[0].rows as T[];
  const out = new Array<T>(slice.rows);
  const next = new Uint32Array(byShape.length);
  for (let i = 0; i < slice.rows; i++) {
    const s = slice.shapeOf![i];
    out[i] = byShape[s].rows[next[s]++] as T;
  }
  return out;
}
