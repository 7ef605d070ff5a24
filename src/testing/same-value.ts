// A strict deep equality for values that crossed a hand-off: primitives by Object.is (-0, NaN), the same prototype,
// the same own keys in the same order (a key whose value is undefined counts), the same holes in arrays. Returns the
// path of the first difference, or undefined when the two are the same.
export function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return `${path}: ${String(a)} vs ${String(b)}`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: prototypes differ`;
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) return `${path}: typed arrays are not compared`;
  const ka = Reflect.ownKeys(a);
  const kb = Reflect.ownKeys(b);
  if (ka.length !== kb.length) return `${path}: keys [${ka.map(String).join(',')}] vs [${kb.map(String).join(',')}]`;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return `${path}: key ${i} is ${String(ka[i])} vs ${String(kb[i])}`;
  }
  for (const key of ka) {
    const da = Object.getOwnPropertyDescriptor(a, key)!;
    const db = Object.getOwnPropertyDescriptor(b, key)!;
    if (da.enumerable !== db.enumerable) return `${path}.${String(key)}: enumerability differs`;
    const d = firstDifference(da.value, db.value, `${path}.${String(key)}`);
    if (d !== undefined) return d;
  }
  return undefined;
}
