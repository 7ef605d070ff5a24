// Arrays from a trace can hold millions of items; spreading one into a call (`Math.max(...xs)`, `push(...xs)`) puts
// every item on the stack and throws past ~100k. These do the same work in a loop (checked by
// scripts/no-spread-calls.test.ts).

/** Math.max over `values` and `start`, without spreading. */
export function maxOf(values: Iterable<number>, start = -Infinity): number {
  let max = start;
  for (const v of values) max = Math.max(max, v);
  return max;
}

/** Math.min over `values` and `start`, without spreading. */
export function minOf(values: Iterable<number>, start = Infinity): number {
  let min = start;
  for (const v of values) min = Math.min(min, v);
  return min;
}

/** `target.push(...items)` for any number of items. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** The first index of `sorted` (ascending) whose item is not below `value`; `sorted.length` when none. */
export function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
