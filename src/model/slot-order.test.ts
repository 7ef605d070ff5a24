import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillSlots, inSlotOrder, inSlotOrderSlices, slotMask } from './slot-order.ts';

describe('inSlotOrder', () => {
  it('is every item once, by block of home slots, in their own order within a block, each with its hash', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 3000 }), fc.integer({ min: 4, max: 14 }), (values, bits) => {
        const hashes = Int32Array.from(values);
        const mask = 2 ** bits - 1;
        const { order, orderHashes } = inSlotOrder(hashes, mask);
        expect([...order].sort((a, b) => a - b)).toEqual(values.map((_, i) => i));
        // 1,024 blocks of slots; a table of fewer slots is sorted by slot.
        const blockOf = (h: number) => (h & mask) >>> Math.max(0, bits - 10);
        for (let k = 0; k < order.length; k++) {
          expect(orderHashes[k]).toBe(hashes[order[k]]);
          if (k > 0) {
            const [a, b] = [blockOf(orderHashes[k - 1]), blockOf(orderHashes[k])];
            expect(a).toBeLessThanOrEqual(b);
            if (a === b) expect(order[k - 1]).toBeLessThan(order[k]);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('fillSlots', () => {
  /** Every slot's position, by the id at it; positions whose id was already in the table when they came. */
  function filled(ids: string[], keepLater: boolean, hashOf: (id: string) => number) {
    const mask = slotMask(ids.length);
    const table = new Int32Array(2 * (mask + 1));
    const { order, orderHashes } = inSlotOrder(Int32Array.from(ids, hashOf), mask);
    const repeats: number[] = [];
    const count = fillSlots(table, mask, order, orderHashes, 0, ids.length, (a, b) => ids[a] === ids[b], (_, p) => (repeats.push(p), keepLater));
    const at = new Map<string, number>();
    for (let slot = 0; slot <= mask; slot++) if (table[2 * slot] !== 0) at.set(ids[table[2 * slot] - 1], table[2 * slot] - 1);
    return { count, at, repeats: repeats.sort((a, b) => a - b) };
  }

  it('puts each id once; a repeated id keeps its first or its last position, as told; counts the ids', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { maxLength: 200 }), fc.boolean(), fc.boolean(), (ids, keepLater, collide) => {
        // With every hash equal, each insert probes past every id put in before it.
        const { count, at, repeats } = filled(ids, keepLater, collide ? () => 7 : (id) => id.charCodeAt(0) * 2654435761);
        const distinct = new Set(ids);
        expect(count).toBe(distinct.size);
        for (const id of distinct) expect(at.get(id)).toBe(keepLater ? ids.lastIndexOf(id) : ids.indexOf(id));
        expect(repeats).toEqual(ids.flatMap((id, p) => (ids.indexOf(id) < p ? [p] : [])));
      }),
      { numRuns: 200 },
    );
  });
});

describe('inSlotOrderSlices', () => {
  it('yields rising progress below 1, a slice at a time, and ends with what inSlotOrder gives', () => {
    const hashes = Int32Array.from({ length: 10_000 }, (_, i) => Math.imul(i, 0x9e3779b1));
    const mask = slotMask(hashes.length);
    const work = inSlotOrderSlices(hashes, mask);
    const seen: number[] = [];
    let r = work.next();
    for (; !r.done; r = work.next()) seen.push(r.value);
    // Two passes of 10,000 items in slices of 2,048: ten pauses at least.
    expect(seen.length).toBeGreaterThanOrEqual(9);
    seen.forEach((v, i) => {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
      if (i > 0) expect(v).toBeGreaterThan(seen[i - 1]);
    });
    const whole = inSlotOrder(hashes, mask);
    expect([...r.value.order]).toEqual([...whole.order]);
    expect([...r.value.orderHashes]).toEqual([...whole.orderHashes]);
  });
});
