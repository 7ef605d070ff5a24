// A Map lookup behind the few keys used last, compared by value (issue 14 goal 2, ADR 0028). Strings that arrive from
// a structured clone (the hand-off of a run to the page) are a new string object per step even when a million steps
// name the same eight agents, and the first Map lookup of each such string computes its hash: a million hashes in a
// pass. Comparing a key with the last few keys by value costs a length test and a few characters instead, and gives
// back the value found for the first string of that value, so later lookups of the result hit cached hashes.

export class RecentLookup<V> {
  private readonly keys: (string | undefined)[];
  private readonly values: V[];
  private next = 0;

  /** `lookup` must give the same value for the same key every time (it is asked once per key while it stays recent). */
  constructor(
    private readonly lookup: (key: string) => V,
    private readonly size = 16,
  ) {
    this.keys = new Array<string | undefined>(size).fill(undefined);
    this.values = new Array<V>(size);
  }

  get(key: string): V {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return this.values[i];
    const value = this.lookup(key);
    keys[this.next] = key;
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.size;
    return value;
  }
}
