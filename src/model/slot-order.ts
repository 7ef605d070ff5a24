// The order in which to put items in an open-addressing table so that its inserts walk it from start to end (ADR 0092):
// at a million items the table is larger than the processor's caches, and inserts in item order each read a random
// slot. The table's size, that order and the inserts are shared by the step positions (step-positions.ts) and the span
// forest's ids (import/spans/forest.ts), which differ only in which of two items of one id a slot keeps.
import { finish, SLICE, type Sliced } from './slices.ts';

/** The mask of a table for `items` items: a power of two of slots, at least twice as many as the items (and 16). */
export function slotMask(items: number): number {
  let size = 16;
  while (size < items * 2) size *= 2;
  return size - 1;
}

/** The table is cut into this many blocks of slots (16 KB each for a million items, two Int32 per slot). */
const BLOCKS = 1024;

/**
 * The items (0..hashes.length - 1) sorted by the block of their home slot (`hash & mask`; BLOCKS blocks, or one per
 * slot in a table of fewer slots) by a counting sort, in their own order within a block, each with its hash beside it
 * so that the inserts read both in order. Two items of one hash share a block in their order: the earlier goes in
 * first.
 */
export function inSlotOrder(hashes: Int32Array, mask: number): { order: Int32Array; orderHashes: Int32Array } {
  return finish(inSlotOrderSlices(hashes, mask));
}

/**
 * inSlotOrder in slices: its two passes over the items were one task of 20–60 ms at a million steps on the 2-core
 * machine, within the run view's opening (ADR 0106).
 */
export function* inSlotOrderSlices(hashes: Int32Array, mask: number): Sliced<{ order: Int32Array; orderHashes: Int32Array }> {
  const n = hashes.length;
  const shift = Math.max(0, Math.log2(mask + 1) - Math.log2(BLOCKS));
  const blocks = (mask + 1) >>> shift;
  const start = new Int32Array(blocks + 1);
  for (let from = 0; from < n; from += SLICE) {
    if (from > 0) yield from / (2 * n);
    for (let i = from, to = Math.min(n, from + SLICE); i < to; i++) start[((hashes[i] & mask) >>> shift) + 1]++;
  }
  for (let b = 0; b < blocks; b++) start[b + 1] += start[b];
  const order = new Int32Array(n);
  const orderHashes = new Int32Array(n);
  for (let from = 0; from < n; from += SLICE) {
    yield (n + from) / (2 * n);
    for (let i = from, to = Math.min(n, from + SLICE); i < to; i++) {
      const h = hashes[i];
      const k = start[(h & mask) >>> shift]++;
      order[k] = i;
      orderHashes[k] = h;
    }
  }
  return { order, orderHashes };
}

/**
 * Puts the items order[from..to) (inSlotOrder's order and hashes) in an open-addressing table whose slots hold the
 * item's position + 1 and its hash side by side (`table` has two Int32 per slot, `mask` + 1 slots), by linear probing.
 * `same(a, b)` tells whether the items at positions a and b have one id (asked only when their hashes are equal); when
 * an item's id is in the table already, `repeat(kept, position)` is told and says whether the slot takes the new
 * position (the later item wins) or keeps its own. Returns how many items went into an empty slot.
 */
export function fillSlots(
  table: Int32Array,
  mask: number,
  order: Int32Array,
  orderHashes: Int32Array,
  from: number,
  to: number,
  same: (a: number, b: number) => boolean,
  repeat: (kept: number, position: number) => boolean,
): number {
  let filled = 0;
  for (let k = from; k < to; k++) {
    const p = order[k];
    const h = orderHashes[k];
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const at = table[2 * slot];
      if (at === 0) {
        table[2 * slot] = p + 1;
        table[2 * slot + 1] = h;
        filled++;
        break;
      }
      if (table[2 * slot + 1] === h && same(at - 1, p)) {
        if (repeat(at - 1, p)) table[2 * slot] = p + 1;
        break;
      }
    }
  }
  return filled;
}
