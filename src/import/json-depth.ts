// How deeply a trace's JSON may nest. Values nested thousands deep parse, but then overflow the stack of whatever
// walks them recursively (an importer, JSON.stringify on export, the structured clone that carries a worker's result
// to the page), and one such file used to fail every file opened with it. Real traces nest under 20 levels.
import { ImportError } from './errors.ts';

/** Objects and arrays nested deeper than this are refused, with the JSON path of the first value past the limit. */
export const MAX_JSON_DEPTH = 256;

/**
 * Whether a parsed value holds an object or array at level `maxDepth + 1`. Strings are not looked into, so this costs
 * a fraction of the JSON.parse before it. Recursive only as deep as the limit (a few hundred frames, never past
 * `maxDepth + 1`): a plain recursive walk makes no array per object and is about twice as fast on a cold start (the
 * command line) as one with a stack of its own, which is kept for limits too deep to recurse.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth > RECURSION_LIMIT) return nestsDeeperThanByStack(value, maxDepth);
  plainOwnOnly = noEnumerableInherited();
  return deeperFrom(value, 1, maxDepth);
}

/** Limits up to this are checked by recursion. */
const RECURSION_LIMIT = 1024;

const PLAIN_PROTOTYPE = Object.prototype;

/**
 * Whether for-in on an object whose prototype is Object.prototype lists only its own keys: true unless something gave
 * Object.prototype an enumerable property. Set by nestsDeeperThan for the walk it starts.
 */
let plainOwnOnly = false;

function noEnumerableInherited(): boolean {
  for (const key in PLAIN_PROTOTYPE) if (key !== undefined) return false;
  return true;
}

/** `skip`: arrays whose items are not looked into (checked already, DepthCheckInParts.restDeeper). */
function deeperFrom(v: object, depth: number, maxDepth: number, skip?: ReadonlySet<object>): boolean {
  if (depth > maxDepth) return true;
  if (skip !== undefined && skip.has(v)) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const child: unknown = v[i];
      if (typeof child === 'object' && child !== null && deeperFrom(child, depth + 1, maxDepth, skip)) return true;
    }
    return false;
  }
  const o = v as Record<string, unknown>;
  // A parsed object inherits from Object.prototype, whose properties are not enumerable: for-in gives only its own
  // keys, and checking each (a call per key, on millions of keys) is needed only for other prototypes.
  const checkOwn = !plainOwnOnly || Object.getPrototypeOf(o) !== PLAIN_PROTOTYPE;
  for (const key in o) {
    if (checkOwn && !Object.hasOwn(o, key)) continue;
    const child = o[key];
    if (typeof child === 'object' && child !== null && deeperFrom(child, depth + 1, maxDepth, skip)) return true;
  }
  return false;
}

/**
 * The depth check of one parsed document done in parts, by an importer that walks the document anyway (the OTLP
 * reader, issue 14): `deeper` checks a part where it is read, while its objects are in the cache (a separate pass over
 * a 100 MB document was ~20 % of its JSON.parse, most of it fetching objects and strings from memory a second time),
 * and `restDeeper` the rest of the document around the arrays whose items were all checked. Together they answer as
 * nestsDeeperThan on the whole document; where they find a value too deep, checkJsonDepth on the whole document gives
 * the error (the first such value in document order, with its path).
 */
export class DepthCheckInParts {
  private readonly plain = noEnumerableInherited();
  constructor(readonly maxDepth = MAX_JSON_DEPTH) {}

  /**
   * Whether `value`, an object or array at level `depth` of its document (1: the document), nests past the limit.
   * `value` is a part of a document JSON.parse made (its objects inherit from Object.prototype, its arrays from
   * Array.prototype): then for-in gives an object's own keys only, unless Object.prototype was given an enumerable
   * property (the general walk then).
   */
  deeper(value: object, depth: number): boolean {
    if (!this.plain) {
      plainOwnOnly = false;
      return deeperFrom(value, depth, this.maxDepth);
    }
    return depth > this.maxDepth || parsedChildrenDeeper(value, depth, this.maxDepth);
  }

  /**
   * deeper() of an object (not an array) at level `depth`, except that the items of `besides`, an array it holds, are
   * not looked into (the array itself counts, at `depth + 1`): the caller checks them as it reads them (an OTLP span's
   * attributes list, item by item with `deeper`), or checks the whole array with `deeper` where it does not read them.
   */
  deeperBesides(value: object, depth: number, besides: unknown[] | undefined): boolean {
    if (besides === undefined || Array.isArray(value)) return this.deeper(value, depth);
    if (!this.plain) {
      plainOwnOnly = false;
      return deeperFrom(value, depth, this.maxDepth, new Set<object>([besides]));
    }
    return depth > this.maxDepth || parsedChildrenDeeper(value, depth, this.maxDepth, besides);
  }

  /**
   * Whether the document nests past the limit anywhere but in the items of `checked` (arrays whose every item was
   * checked with `deeper`). `depth`: the document's level (1 unless it is a part of a larger one).
   */
  restDeeper(document: unknown, checked: ReadonlySet<object>, depth = 1): boolean {
    if (typeof document !== 'object' || document === null) return false;
    plainOwnOnly = this.plain;
    return deeperFrom(document, depth, this.maxDepth, checked);
  }
}

/**
 * deeperFrom for a parsed value at level `depth` ≤ `maxDepth` (DepthCheckInParts.deeper): whether an object or array
 * inside it is past the limit. The same answer with less work per object, for the OTLP reader's spans (~33 objects a
 * span, most of them `{key, value}` and `{stringValue}`): no `skip` set and no prototype test (for-in on JSON.parse's
 * objects gives their own keys), the limit tested before a call rather than in it, and an object's child object whose
 * items are all scalars (an attribute's `value`) read in the loop, without a call of its own.
 */
function parsedChildrenDeeper(
  v: object,
  depth: number,
  maxDepth: number,
  /** A child of `v` (an object) counted at its level but not looked into (DepthCheckInParts.deeperBesides). */
  besides?: object,
): boolean {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const child: unknown = v[i];
      if (typeof child === 'object' && child !== null && (depth >= maxDepth || parsedChildrenDeeper(child, depth + 1, maxDepth))) return true;
    }
    return false;
  }
  const o = v as Record<string, unknown>;
  for (const key in o) {
    const child = o[key];
    if (typeof child !== 'object' || child === null) continue;
    if (depth >= maxDepth) return true;
    if (child === besides) continue;
    if (Array.isArray(child)) {
      if (parsedChildrenDeeper(child, depth + 1, maxDepth)) return true;
      continue;
    }
    // The child object's own items, here (at depth + 2).
    const c = child as Record<string, unknown>;
    for (const k in c) {
      const grandchild = c[k];
      if (typeof grandchild === 'object' && grandchild !== null && (depth + 1 >= maxDepth || parsedChildrenDeeper(grandchild, depth + 2, maxDepth))) return true;
    }
  }
  return false;
}

function nestsDeeperThanByStack(value: unknown, maxDepth: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > maxDepth) return true;
    if (Array.isArray(v)) {
      for (const child of v) {
        if (typeof child !== 'object' || child === null) continue;
        values.push(child);
        depths.push(depth + 1);
      }
    } else {
      for (const child of Object.values(v)) {
        if (typeof child !== 'object' || child === null) continue;
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

function pathKey(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** A long path with its middle cut: the start says where in the trace, the end how the nesting goes on. */
function shortPath(keys: (string | number)[]): string {
  const parts = keys.map(pathKey);
  if (parts.length <= 12) return `$${parts.join('')}`;
  return `$${parts.slice(0, 8).join('')}…${parts.slice(-3).join('')}`;
}

/** The keys down to the first object or array (in document order) at level `maxDepth + 1`, or undefined. */
export function pathPastDepth(value: unknown, maxDepth: number): (string | number)[] | undefined {
  const stack: { value: unknown; depth: number; keys: (string | number)[] }[] = [{ value, depth: 1, keys: [] }];
  while (stack.length > 0) {
    const top = stack.pop()!;
    if (typeof top.value !== 'object' || top.value === null) continue;
    if (top.depth > maxDepth) return top.keys;
    const entries: [string | number, unknown][] = Array.isArray(top.value)
      ? top.value.map((v, i) => [i, v])
      : Object.entries(top.value as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: top.depth + 1, keys: [...top.keys, key] });
    }
  }
  return undefined;
}

/** Refuse a parsed document that nests deeper than `maxDepth`, naming the JSON path (after `where`, e.g. `line 3: `). */
export function checkJsonDepth(file: string, value: unknown, where = '', maxDepth = MAX_JSON_DEPTH): void {
  if (!nestsDeeperThan(value, maxDepth)) return;
  const keys = pathPastDepth(value, maxDepth) ?? [];
  throw new ImportError(file, 'json', `${where}${shortPath(keys)}`, `objects and arrays nested more than ${maxDepth} levels deep (the limit)`);
}
