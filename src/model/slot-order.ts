// The order in which to put items in an open-addressing table so that its inserts walk it from start to end (ADR 0092):
// at a million items the table is larger than the processor's caches, and inserts in item order each read a random
// slot. Shared by the step positions (step-positions.ts) and the span forest's ids (import/spans/forest.ts).

/** The table is cut into this many blocks of slots (16 KB each for a million items, two Int32 per slot). */
const BLOCKS = 1024;

/**
 * The items (0..hashes.length - 1) sorted by the block of their home slot (`hash & mask`; BLOCKS blocks, or one per
 * slot in a table of fewer slots) by a counting sort, in their own order within a block, each with its hash beside it
 * so that the inserts read both in order. Two items of one hash share a block in their order: the earlier goes in
 * first.
 */
export function inSlotOrder(hashes: Int32Array, mask: number): { order: Int32Array; orderHashes: Int32Array } {
  const n = hashes.length;
  const shift = Math.max(0, Math.log2(mask + 1) - Math.log2(BLOCKS));
  const blocks = (mask + 1) >>> shift;
  const start = new Int32Array(blocks + 1);
  for (let i = 0; i < n; i++) start[((hashes[i] & mask) >>> shift) + 1]++;
  for (let b = 0; b < blocks; b++) start[b + 1] += start[b];
  const order = new Int32Array(n);
  const orderHashes = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const h = hashes[i];
    const k = start[(h & mask) >>> shift]++;
    order[k] = i;
    orderHashes[k] = h;
  }
  return { order, orderHashes };
}
