// The quick look (fast-check-schema.ts) said of a whole slice in columns (step-columns.ts) at once (ADR 0101): whether
// it would say Valid of every record `rebuild` makes of the slice, read from the slice's columns, without a pass over
// each record's keys. The library's load checks each stored step (SPEC §9); at a million steps the quick look per step
// was 444 ms of the page's reload. Its answer is used one way only, as the quick look's is: Valid means the quick look
// says Valid of each record rebuilt from the slice; anything else (Unsure) leaves every record to the quick look, and
// then to zod. It never says Invalid: a wrong value is named by zod, from the record.
//
// It is asked after rebuild(slice) has succeeded, with the table of strings rebuild read: rebuild refuses indices out
// of range and joined texts out of order, and decodes every column as read here. A schema the quick look does not know
// gets no slice look either.
import { knownDef, Look, objectParts, quickLookOf, type Schema } from './fast-check-schema.ts';
import type { Column, ColumnSlice } from './step-columns.ts';

/** What a slice look says of one slice: Valid, or Unsure. `table`: the run's strings as rebuild read them. */
export type SliceLook = (slice: ColumnSlice, table: readonly unknown[]) => Look;

/** Whether every value rebuild makes of `col` (its first `n` rows) is one the quick look says Valid of. */
type ColumnCheck = (col: Column, n: number, table: readonly unknown[]) => boolean;

/** The records of one shape: `keys` and their `cols`, `n` rows. */
type ShapeCheck = (keys: unknown, cols: unknown, n: number, table: readonly unknown[]) => boolean;

class Unknown extends Error {}

const looks = new WeakMap<object, SliceLook | null>();

/**
 * The slice look of an object schema, made once per schema; undefined when the schema has no quick look (a part it does
 * not know) or is not an object schema.
 */
export function sliceLookOf(schema: object): SliceLook | undefined {
  let look = looks.get(schema);
  if (look === undefined) looks.set(schema, (look = compileSlice(schema as Schema) ?? null));
  return look ?? undefined;
}

function compileSlice(schema: Schema): SliceLook | undefined {
  if (quickLookOf(schema) === undefined || schema._zod.def.type !== 'object') return undefined;
  let shape: ShapeCheck;
  try {
    shape = compileShape(schema, new Set());
  } catch {
    return undefined;
  }
  return (slice, table) => {
    const counts = shapeRows(slice);
    if (counts === undefined) return Look.Unsure;
    for (let s = 0; s < counts.length; s++) {
      const { keys, cols } = slice.shapes[s];
      if (!shape(keys, cols, counts[s], table)) return Look.Unsure;
    }
    return Look.Valid;
  };
}

/** The rows of each shape, as rebuild counts them; undefined for a slice rebuild would not have made. */
function shapeRows(slice: ColumnSlice): number[] | undefined {
  const { shapes, shapeOf, rows } = slice;
  if (!Array.isArray(shapes) || !Number.isInteger(rows) || rows < 0) return undefined;
  if (shapeOf === undefined) return shapes.length === 1 ? [rows] : rows === 0 ? shapes.map(() => 0) : undefined;
  if (!(shapeOf instanceof Uint32Array) || shapeOf.length < rows) return undefined;
  const counts = shapes.map(() => 0);
  for (let i = 0; i < rows; i++) {
    const s = shapeOf[i];
    if (s >= counts.length) return undefined;
    counts[s]++;
  }
  return counts;
}

/** Records of an object schema's shape, as the quick look reads one (its object case). */
function compileShape(schema: Schema, path: Set<Schema>): ShapeCheck {
  const def = knownDef(schema, path);
  path.add(schema);
  try {
    const { parts: checks, index, isRequired, required: requiredKeys, loose } = objectParts(def, (field) => compileColumn(field, path));
    const required = requiredKeys.length;
    return (keys, cols, n, table) => {
      if (!Array.isArray(keys) || !Array.isArray(cols) || keys.length !== cols.length) return false;
      let requiredSeen = 0;
      for (let j = 0; j < keys.length; j++) {
        const key: unknown = keys[j];
        // A record rebuilt with an own `__proto__` key, or a key twice (the last value kept): left to the quick look.
        if (typeof key !== 'string' || key === '__proto__' || keys.indexOf(key) !== j) return false;
        const i = index.get(key);
        if (i === undefined) {
          // A key the schema does not name: kept as it is by a loose object, whatever its value.
          if (!loose) return false;
          continue;
        }
        if (!checks[i](cols[j] as Column, n, table)) return false;
        if (isRequired[i]) requiredSeen++;
      }
      return requiredSeen === required;
    };
  } finally {
    path.delete(schema);
  }
}

/** Values rebuild takes as they were sent (a `val` column), each given to the quick look of their schema. */
function valuesCheck(schema: Schema): ColumnCheck {
  const look = quickLookOf(schema);
  if (look === undefined) throw new Unknown('no quick look');
  return (col, n) => {
    if (col.t !== 'val' || !Array.isArray(col.v) || col.v.length < n) return false;
    for (let i = 0; i < n; i++) if (look(col.v[i]) !== Look.Valid) return false;
    return true;
  };
}

/** Strings, or only those of `allowed`: from the table, as text, or joined (any string at all). */
function stringsOf(col: Column, n: number, table: readonly unknown[], allowed: ReadonlySet<unknown> | undefined): boolean {
  switch (col.t) {
    case 'str': {
      const v = col.v;
      if (!(v instanceof Uint32Array) || v.length < n) return false;
      for (let i = 0; i < n; i++) {
        const s = table[v[i]];
        if (typeof s !== 'string' || (allowed !== undefined && !allowed.has(s))) return false;
      }
      return true;
    }
    case 'text': {
      const v = col.v;
      if (!Array.isArray(v) || v.length < n) return false;
      for (let i = 0; i < n; i++) {
        const s: unknown = v[i];
        if (typeof s !== 'string' || (allowed !== undefined && !allowed.has(s))) return false;
      }
      return true;
    }
    case 'joined':
      // Every row a slice of `one` or `two`: a string, whatever the ends say (rebuild refused ends out of order).
      return allowed === undefined && typeof col.one === 'string' && typeof col.two === 'string';
    default:
      return false;
  }
}

/** Rows that point at the slice's distinct values (a `ref` column): each index under `n` (rebuild refused others). */
function refRows(col: Extract<Column, { t: 'ref' }>, n: number): boolean {
  return col.v instanceof Uint32Array && col.v.length >= n && Number.isInteger(col.n) && col.n >= 0;
}

/** The items an `arr` column holds over its first `n` rows, or -1 when its lengths are not what rebuild reads. */
function arrayItems(col: Extract<Column, { t: 'arr' }>, n: number): number {
  const lens = col.lens;
  if (!(lens instanceof Uint32Array) || lens.length < n) return -1;
  let total = 0;
  for (let i = 0; i < n; i++) total += lens[i];
  return total;
}

function compileColumn(schema: Schema, path: Set<Schema>): ColumnCheck {
  const def = knownDef(schema, path);
  const values = valuesCheck(schema);
  if (def.type === 'object') {
    const shape = compileShape(schema, path);
    const check: ColumnCheck = (col, n, table) => {
      if (col.t === 'obj') return shape(col.keys, col.cols, n, table);
      if (col.t === 'ref') return refRows(col, n) && check(col.items, col.n, table);
      return values(col, n, table);
    };
    return check;
  }
  path.add(schema);
  try {
    switch (def.type) {
      case 'string':
        return (col, n, table) => stringsOf(col, n, table, undefined) || values(col, n, table);
      case 'enum': {
        const allowed = new Set(Object.values(def.entries ?? {}));
        if ([...allowed].some((x) => typeof x !== 'string')) throw new Unknown('a numeric enum');
        return (col, n, table) => stringsOf(col, n, table, allowed) || values(col, n, table);
      }
      case 'literal': {
        const literals = def.values ?? [];
        if (!literals.every((x) => typeof x === 'string')) return values;
        const allowed = new Set<unknown>(literals);
        return (col, n, table) => stringsOf(col, n, table, allowed) || values(col, n, table);
      }
      case 'number':
        // zod 4 refuses NaN and the infinities; an Int32Array holds neither.
        return (col, n, table) => {
          if (col.t === 'i32') return col.v instanceof Int32Array && col.v.length >= n;
          if (col.t === 'f64') {
            const v = col.v;
            if (!(v instanceof Float64Array) || v.length < n) return false;
            for (let i = 0; i < n; i++) if (!Number.isFinite(v[i])) return false;
            return true;
          }
          return values(col, n, table);
        };
      case 'boolean':
        return (col, n, table) => (col.t === 'bool' ? col.v instanceof Uint8Array && col.v.length >= n : values(col, n, table));
      case 'unknown':
        return () => true;
      case 'optional': {
        // A present key's value: the inner schema's (undefined comes only as a sent value, which the quick look takes).
        const inner = compileColumn(def.innerType!, path);
        return (col, n, table) => inner(col, n, table) || values(col, n, table);
      }
      case 'array': {
        const element = compileColumn(def.element!, path);
        const check: ColumnCheck = (col, n, table) => {
          if (col.t === 'arr') {
            const total = arrayItems(col, n);
            return total >= 0 && element(col.items, total, table);
          }
          if (col.t === 'ref') return refRows(col, n) && check(col.items, col.n, table);
          return values(col, n, table);
        };
        return check;
      }
      case 'record': {
        const keyType = def.keyType?._zod?.def;
        if (!keyType || keyType.type !== 'string' || (keyType.checks && keyType.checks.length > 0)) throw new Unknown('a record not keyed by plain strings');
        const value = compileColumn(def.valueType!, path);
        const check: ColumnCheck = (col, n, table) => {
          if (col.t === 'obj') {
            const { keys, cols } = col;
            if (!Array.isArray(keys) || !Array.isArray(cols) || keys.length !== cols.length) return false;
            for (let j = 0; j < keys.length; j++) {
              const key: unknown = keys[j];
              if (typeof key !== 'string' || key === '__proto__' || keys.indexOf(key) !== j) return false;
              if (!value(cols[j] as Column, n, table)) return false;
            }
            return true;
          }
          if (col.t === 'ref') return refRows(col, n) && check(col.items, col.n, table);
          return values(col, n, table);
        };
        return check;
      }
      default:
        // A union, and any other kind the quick look knows: value by value, when the column holds values as sent.
        return values;
    }
  } finally {
    path.delete(schema);
  }
}
