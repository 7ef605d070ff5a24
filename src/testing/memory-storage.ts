// A Storage stand-in for tests of stores that persist to localStorage (settings, job markers, the results journal):
// synchronous, its keys enumerable by index as localStorage's are.
export class MemoryStorage {
  readonly map: Map<string, string>;
  constructor(entries: Iterable<[string, string]> = []) {
    this.map = new Map(entries);
  }
  get length() {
    return this.map.size;
  }
  key(index: number) {
    return [...this.map.keys()][index] ?? null;
  }
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, String(v));
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
  /** Every stored value, joined: a secret must not appear anywhere in it. */
  dump() {
    return [...this.map.entries()].map(([k, v]) => `${k}=${v}`).join('\n');
  }
}

export const memoryStorage = (entries: Iterable<[string, string]> = []) => new MemoryStorage(entries);
