// A quick first look at a value against one of the model's zod schemas (ADR 0076). On the page and in its workers zod
// runs without its compiled parsers (the Content-Security-Policy refuses `new Function`, zod-config.ts) and took ~4 µs
// a step: 4.5 s for a run of a million steps at every reload of the library. This walks the schema's definition once
// and makes plain functions of it (no code is generated). Its answer is used one way only: Valid means zod accepts the
// value and gives back the same values (the same own keys with the same values, key order aside), so the value can be
// kept as it is. Otherwise zod is asked, and its answer and message stand. A schema with a part not known here gets no
// quick look at all.

/** What the quick look says: zod accepts the value as it is (Valid); zod refuses it (Invalid); or ask zod (Unsure). */
export const Look = { Valid: 0, Invalid: 1, Unsure: 2 } as const;
export type Look = (typeof Look)[keyof typeof Look];

/** A schema's quick look: what it says of one value. */
export type QuickLook = (value: unknown) => Look;

/** The part of a zod schema's definition read here (zod 4's `_zod.def`). */
export interface Def {
  type: string;
  checks?: readonly unknown[];
  shape?: Record<string, Schema>;
  catchall?: Schema;
  innerType?: Schema;
  element?: Schema;
  entries?: Record<string, unknown>;
  values?: readonly unknown[];
  options?: readonly Schema[];
  keyType?: Schema;
  valueType?: Schema;
  coerce?: boolean;
}

export interface Schema {
  _zod: { def: Def };
}

const isPlain = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * A quick look for `schema`, or undefined when its definition has a part not known here (a check such as `.min()`, a
 * transform, a default, a lazy or recursive schema): the caller then leaves every value to zod.
 */
export function quickLook(schema: unknown): QuickLook | undefined {
  try {
    return compile(schema as Schema, new Set());
  } catch {
    return undefined;
  }
}

/** Each schema's quick look, made once (null: the schema has a part the quick look does not know). */
const looks = new WeakMap<object, QuickLook | null>();

/** quickLook(schema), made on its first call for that schema and kept while the schema is (every caller's way in). */
export function quickLookOf(schema: object): QuickLook | undefined {
  let look = looks.get(schema);
  if (look === undefined) looks.set(schema, (look = quickLook(schema) ?? null));
  return look ?? undefined;
}

class Unknown extends Error {}

/**
 * A schema's definition, when a look can be made of it: throws for what is not a zod schema, one already on `path`
 * (recursive), one with checks (`.min()`, refinements) or one that coerces. Shared with fast-check-columns.ts.
 */
export function knownDef(schema: Schema, path: ReadonlySet<Schema>): Def {
  const def = schema?._zod?.def;
  if (!def || typeof def.type !== 'string') throw new Unknown('not a zod schema');
  if (path.has(schema)) throw new Unknown('recursive');
  if (def.checks && def.checks.length > 0) throw new Unknown(`${def.type} with checks`);
  if (def.coerce) throw new Unknown('coerced');
  return def;
}

/**
 * An object schema's parts as a look reads them: its keys, each key's schema made into `part`, which keys are required,
 * and whether a key it does not name is kept (loose). Throws for what a look does not know. Shared with
 * fast-check-columns.ts.
 */
export function objectParts<T>(def: Def, part: (field: Schema) => T): { keys: string[]; parts: T[]; index: Map<string, number>; isRequired: boolean[]; required: number[]; loose: boolean } {
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  // A key an object inherits would be read by zod from the prototype: left to zod.
  if (keys.some((k) => k in Object.prototype)) throw new Unknown('a key every object has');
  const parts = keys.map((k) => part(shape[k]));
  const index = new Map(keys.map((k, i) => [k, i]));
  const isRequired = keys.map((k) => shape[k]._zod.def.type !== 'optional');
  const required = keys.flatMap((_k, i) => (isRequired[i] ? [i] : []));
  // Loose (unknown keys kept, as this model's are), or stripped: an object with a key zod would drop is not the same.
  const catchall = def.catchall?._zod?.def.type;
  if (catchall !== undefined && catchall !== 'unknown') throw new Unknown(`an object with a catchall of ${catchall}`);
  return { keys, parts, index, isRequired, required, loose: catchall === 'unknown' };
}

function compile(schema: Schema, path: Set<Schema>): QuickLook {
  const def = knownDef(schema, path);
  path.add(schema);
  try {
    return compileDef(def, path);
  } finally {
    path.delete(schema);
  }
}

function compileDef(def: Def, path: Set<Schema>): QuickLook {
  switch (def.type) {
    case 'string':
      return (v) => (typeof v === 'string' ? Look.Valid : Look.Invalid);
    case 'number':
      // zod 4 refuses NaN and the infinities.
      return (v) => (typeof v === 'number' ? (Number.isFinite(v) ? Look.Valid : Look.Invalid) : Look.Invalid);
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? Look.Valid : Look.Invalid);
    case 'unknown':
      return () => Look.Valid;
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      if ([...values].some((x) => typeof x !== 'string')) throw new Unknown('a numeric enum');
      return (v) => (typeof v === 'string' && values.has(v) ? Look.Valid : Look.Invalid);
    }
    case 'literal': {
      const values = def.values ?? [];
      if (values.some((x) => typeof x !== 'string' && typeof x !== 'boolean' && (typeof x !== 'number' || !Number.isFinite(x)))) throw new Unknown('a literal not a string, boolean or finite number');
      const set = new Set(values);
      return (v) => (set.has(v) ? Look.Valid : Look.Invalid);
    }
    case 'optional': {
      const inner = compile(def.innerType!, path);
      return (v) => (v === undefined ? Look.Valid : inner(v));
    }
    case 'array': {
      const element = compile(def.element!, path);
      return (v) => {
        if (!Array.isArray(v)) return Look.Invalid;
        let look: Look = Look.Valid;
        for (let i = 0; i < v.length; i++) {
          const item = v[i];
          // A hole: zod gives back undefined in its place.
          if (item === undefined && !(i in v)) return Look.Unsure;
          const one = element(item);
          if (one === Look.Invalid) return Look.Invalid;
          if (one === Look.Unsure) look = Look.Unsure;
        }
        return look;
      };
    }
    case 'union': {
      const options = (def.options ?? []).map((o) => compile(o, path));
      // zod takes the first option that accepts the value: a later one may be taken as valid only when each one before
      // is sure to refuse it.
      return (v) => {
        for (const option of options) {
          const one = option(v);
          if (one !== Look.Invalid) return one;
        }
        return Look.Invalid;
      };
    }
    case 'record': {
      const keyType = def.keyType?._zod?.def;
      if (!keyType || keyType.type !== 'string' || (keyType.checks && keyType.checks.length > 0)) throw new Unknown('a record not keyed by plain strings');
      const value = compile(def.valueType!, path);
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return Look.Invalid;
        if (!isPlain(v)) return Look.Unsure;
        let look: Look = Look.Valid;
        for (const key in v) {
          if (!Object.hasOwn(v, key)) return Look.Unsure;
          if (key === '__proto__') return Look.Unsure;
          const one = value((v as Record<string, unknown>)[key]);
          if (one === Look.Invalid) return Look.Invalid;
          if (one === Look.Unsure) look = Look.Unsure;
        }
        return look;
      };
    }
    case 'object': {
      const { keys, parts: checks, index, isRequired, required, loose } = objectParts(def, (field) => compile(field, path));
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return Look.Invalid;
        if (!isPlain(v)) return Look.Unsure;
        const record = v as Record<string, unknown>;
        let look: Look = Look.Valid;
        let requiredSeen = 0;
        // The value's own keys (a step has a few of the schema's many): each known one checked, an unknown one kept.
        for (const key in record) {
          if (!Object.hasOwn(record, key)) return Look.Unsure;
          const i = index.get(key);
          if (i === undefined) {
            // zod's output cannot be relied on to keep an own `__proto__` key as it is.
            if (!loose || key === '__proto__') look = Look.Unsure;
            continue;
          }
          const one = checks[i](record[key]);
          if (one === Look.Invalid) return Look.Invalid;
          if (one === Look.Unsure) look = Look.Unsure;
          if (isRequired[i]) requiredSeen++;
        }
        if (requiredSeen === required.length) return look;
        // A key that must be there is absent: zod refuses it when its schema refuses undefined, else ask zod.
        for (const i of required) {
          if (Object.hasOwn(record, keys[i])) continue;
          if (checks[i](undefined) === Look.Invalid) return Look.Invalid;
        }
        return Look.Unsure;
      };
    }
    default:
      throw new Unknown(`a ${def.type} schema`);
  }
}
