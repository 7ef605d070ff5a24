import { describe, expect, it } from 'vitest';
import { RecentLookup } from './recent-lookup.ts';

describe('RecentLookup', () => {
  it('asks once per key while it is recent, and gives the value found for the first string of that value', () => {
    const asked: string[] = [];
    const lookup = new RecentLookup((key: string) => {
      asked.push(key);
      return { key };
    }, 2);
    const first = lookup.get('agent');
    // An equal string made apart (as a structured clone makes one per step) finds the same value.
    expect(lookup.get(['ag', 'ent'].join(''))).toBe(first);
    lookup.get('b'); // still there
    lookup.get('agent');
    lookup.get('c'); // pushes 'agent' out of two slots
    lookup.get('b'); // still there
    lookup.get('agent');
    expect(asked).toEqual(['agent', 'b', 'c', 'agent']);
  });
});
