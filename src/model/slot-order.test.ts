import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inSlotOrder } from './slot-order.ts';

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
