// hashText(JSON.stringify(value)) without the one string of the whole value: content-derived run ids hash a whole
// document, and for a 74 MB chat log that string was 74–148 MB more at the import's memory peak (and its garbage).
// The JSON text is fed to the hash in pieces, the same characters in the same order: the top levels are written out
// here as JSON.stringify writes them (own enumerable keys in their order, `,` and `:` with no spaces, a property whose
// value has no JSON left out, `null` for such an array element), and the values below are JSON.stringify'd, the
// elements of an array a thousand at a time.
import { TextHash } from '../model/hash.ts';

/** Levels written out piece by piece; values deeper down are stringified whole (a chat log's messages). */
const SPLIT_LEVELS = 2;
/** Elements of an array at the last split level stringified per call. */
const CHUNK = 1024;

/**
 * Hashes computed as documents were read in pieces (json-pieces.ts, json-value-stream.ts: while the bar moves, not in a
 * pass of seconds after it), each the hashJson of its document. Importers only read what they are given, so a value
 * is never changed after its hash is recorded.
 */
const knownHashes = new WeakMap<object, string>();

/** Records hashJson(value), computed as `value` was read in pieces. */
export function rememberJsonHash(value: object, hash: string): void {
  knownHashes.set(value, hash);
}

/** The hash recorded for `value` as it was read in pieces, if any (tests: that one was recorded, and is right). */
export function knownJsonHash(value: object): string | undefined {
  return knownHashes.get(value);
}

/**
 * The same hex as `hashText(JSON.stringify(value))` (also for a value with no JSON: that of the text "undefined"); the
 * hash recorded as the value was read, when there is one.
 */
export function hashJson(value: unknown): string {
  const known = typeof value === 'object' && value !== null ? knownHashes.get(value) : undefined;
  if (known !== undefined) return known;
  const hash = new TextHash();
  if (!feed(hash, value, 0)) hash.update('undefined');
  return hash.digest();
}

/** Feeds the JSON of `value`; false (nothing fed) when it has none (undefined, a function, a symbol). */
function feed(hash: TextHash, value: unknown, level: number): boolean {
  if (level >= SPLIT_LEVELS || typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    const text = JSON.stringify(value) as string | undefined;
    if (text === undefined) return false;
    hash.update(text);
    return true;
  }
  if (Array.isArray(value)) {
    hash.update('[');
    if (level + 1 >= SPLIT_LEVELS) {
      // Elements stringified whole: CHUNK of them in one call (one call each cost more than the single stringify),
      // the brackets of each chunk's array left out (`slice` makes a view of the text, not a copy).
      for (let i = 0; i < value.length; i += CHUNK) {
        if (i > 0) hash.update(',');
        const text = JSON.stringify(value.slice(i, i + CHUNK));
        hash.update(text.slice(1, -1));
      }
    } else {
      for (let i = 0; i < value.length; i++) {
        if (i > 0) hash.update(',');
        if (!feed(hash, value[i], level + 1)) hash.update('null');
      }
    }
    hash.update(']');
    return true;
  }
  hash.update('{');
  let first = true;
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    const v = o[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    hash.update(first ? JSON.stringify(key) : `,${JSON.stringify(key)}`);
    hash.update(':');
    first = false;
    feed(hash, v, level + 1);
  }
  hash.update('}');
  return true;
}
