import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonParts } from './json-parts.ts';

describe('jsonParts', () => {
  it('joins to JSON.stringify’s text of any value, with or without indent, whatever the sizes', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.constantFrom(0, 1, 2, 4),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 4 }),
        (value, indent, partChars, longArray) => {
          const parts = jsonParts(value, { indent, partChars, longArray });
          expect(parts.join('')).toBe(JSON.stringify(value, null, indent || undefined));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('writes what JSON.stringify leaves out or turns to null as it does (undefined, functions, dates)', () => {
    const value = { a: undefined, b: [1, undefined, () => 1, 4, 5], c: new Date(0), d: { e: [undefined, 2, 3, 4] }, f: () => 1 };
    for (const indent of [0, 2]) expect(jsonParts(value, { indent, longArray: 2, partChars: 3 }).join('')).toBe(JSON.stringify(value, null, indent || undefined));
  });

  it('splits a long array into parts of about the size asked, none holding the whole text', () => {
    const doc = { runs: [{ id: 'r', steps: Array.from({ length: 10_000 }, (_, i) => ({ id: `s${i}`, text: 'x'.repeat(90) })) }] };
    const parts = jsonParts(doc, { indent: 2, partChars: 100_000 });
    const whole = JSON.stringify(doc, null, 2);
    expect(parts.join('')).toBe(whole);
    expect(parts.length).toBeGreaterThan(10);
    for (const part of parts) expect(part.length).toBeLessThan(100_000 + 1_000);
  });
});
