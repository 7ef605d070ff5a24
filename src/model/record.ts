// Records keyed by text from files, links or storage (run ids, arm names, agent and tool names). A plain `{}` answers
// `constructor`, `toString`… from Object.prototype and turns a `__proto__` store into a prototype change; these
// records have no prototype, so every key, whatever its name, is just a key.

/** An empty record with no prototype. */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A record with no prototype holding the own entries of `sources`, later ones winning. */
export function recordOf<T>(...sources: (Readonly<Record<string, T>> | undefined)[]): Record<string, T> {
  // Object.assign sets each key on the target; without a prototype there is no `__proto__` setter to hit.
  return Object.assign(emptyRecord<T>(), ...sources);
}

/** A record with no prototype from key/value pairs, later ones winning. */
export function recordFromEntries<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out = emptyRecord<T>();
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** The value stored under `key` in `record` itself, never one inherited from a prototype. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Two flat records with the same own keys and identical values (records that arrive as copies: identity says nothing). */
export function sameFlatRecord<T extends object>(a: T | undefined, b: T): boolean {
  if (!a) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof T>;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}
