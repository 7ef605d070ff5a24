// Deep nesting (issue 17, item 8): refused with the JSON path, in every format, before anything recursive sees it.
import { describe, expect, it } from 'vitest';
import { ImportError } from './errors.ts';
import { importText } from './index.ts';
import { DepthCheckInParts, MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts';

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

function failure(file: string, text: string): ImportError {
  try {
    importText(file, text);
  } catch (e) {
    if (e instanceof ImportError) return e;
    throw e;
  }
  throw new Error('imported');
}

/**
 * Seeded values of objects, arrays and scalars `depth` levels deep (0: a scalar), drawn with `random(n)` (0 … n − 1):
 * one item as deep as asked, the others shallower, in any place.
 */
function nestedValue(random: (n: number) => number): (depth: number) => unknown {
  const value = (depth: number): unknown => {
    if (depth <= 0) return random(2) ? 'x' : null;
    const items = Array.from({ length: 1 + random(3) }, () => value(random(depth)));
    items.splice(random(items.length + 1), 0, value(depth - 1));
    return random(2) ? items : Object.fromEntries(items.map((v, i) => [`k${i}`, v]));
  };
  return value;
}

describe('nesting depth', () => {
  it('counts objects and arrays, not strings that look like them', () => {
    expect(nestsDeeperThan(JSON.parse('{"a": "[[[[[[", "b": [[1]]}'), 3)).toBe(false);
    expect(nestsDeeperThan(JSON.parse('{"a": "[[", "b": [[[1]]]}'), 3)).toBe(true);
    expect(nestsDeeperThan(JSON.parse(arrays(10_000)), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan('plain', 0)).toBe(false);
  });

  it('the same answers by recursion (limits up to 1024) and by its own stack (deeper limits)', () => {
    for (const [n, limit] of [[1024, 1024], [1025, 1024], [2000, 2000], [2001, 2000], [5000, 4999]]) {
      expect(nestsDeeperThan(JSON.parse(arrays(n)), limit)).toBe(n > limit);
      expect(nestsDeeperThan(JSON.parse(objects(n)), limit)).toBe(n > limit);
    }
  });

  it('own keys only: a key named __proto__ counts, inherited properties do not', () => {
    expect(nestsDeeperThan(JSON.parse('{"__proto__": [[[1]]]}'), 3)).toBe(true);
    expect(nestsDeeperThan(Object.create({ inherited: [[[[1]]]] }), 1)).toBe(false);
  });

  it('own keys only even when Object.prototype was given an enumerable property', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = [[[[1]]]];
    try {
      expect(nestsDeeperThan(JSON.parse('{"a": {"b": 1}}'), 2)).toBe(false);
      expect(nestsDeeperThan(JSON.parse('{"a": {"b": [1]}}'), 2)).toBe(true);
    } finally {
      delete proto.polluted;
    }
  });

  it('a part checked where it sits (DepthCheckInParts.deeper) answers as the whole check at every level and limit', () => {
    // Seeded values of objects, arrays and scalars nested 0–12 deep, as JSON.parse makes them.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const value = nestedValue(random);
    let deeperSeen = 0;
    for (let n = 0; n < 300; n++) {
      const parsed = JSON.parse(JSON.stringify({ a: value(1 + random(12)) })) as object;
      for (let limit = 1; limit <= 14; limit++) {
        for (let level = 1; level <= limit; level++) {
          // `parsed` at `level`: past `limit` exactly when it nests more than limit − level + 1 levels itself.
          const expected = nestsDeeperThan(parsed, limit - level + 1);
          expect(new DepthCheckInParts(limit).deeper(parsed, level)).toBe(expected);
          if (expected) deeperSeen++;
        }
        expect(new DepthCheckInParts(limit).deeper(parsed, limit + 1)).toBe(true);
      }
    }
    expect(deeperSeen).toBeGreaterThan(1000);
  });

  it('an object checked besides one array it holds, that array\'s items where they sit, answers as the whole check (deeperBesides)', () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const value = nestedValue(random);
    let deeperSeen = 0;
    let besidesDiffers = 0;
    for (let n = 0; n < 300; n++) {
      // An object with an array (the span's attributes list) among other values, any of them the deepest.
      const list = Array.from({ length: random(4) }, () => value(random(10)));
      const parsed = JSON.parse(JSON.stringify({ a: value(random(6)), attributes: list, b: value(random(4)) })) as Record<string, unknown>;
      const besides = parsed.attributes as unknown[];
      for (let limit = 1; limit <= 13; limit++) {
        for (let level = 1; level <= limit + 1; level++) {
          const parts = new DepthCheckInParts(limit);
          const expected = parts.deeper(parsed, level);
          const rest = parts.deeperBesides(parsed, level, besides);
          // The items sit at level + 2; a scalar item is never too deep.
          const items = besides.some((item) => typeof item === 'object' && item !== null && parts.deeper(item, level + 2));
          expect(rest || items).toBe(expected);
          expect(parts.deeperBesides(parsed, level, undefined)).toBe(expected);
          if (expected) deeperSeen++;
          if (rest !== expected) besidesDiffers++;
        }
      }
    }
    expect(deeperSeen).toBeGreaterThan(1000);
    // The items were left out where they alone were too deep.
    expect(besidesDiffers).toBeGreaterThan(100);
  });

  it('a part checked where it sits: own keys only even when Object.prototype was given an enumerable property', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = [[[[1]]]];
    try {
      const parts = new DepthCheckInParts(3);
      expect(parts.deeper(JSON.parse('{"a": {"b": 1}}') as object, 2)).toBe(false);
      expect(parts.deeper(JSON.parse('{"a": {"b": [1]}}') as object, 2)).toBe(true);
      const o = JSON.parse('{"a": {"b": 1}, "list": [[[1]]]}') as { list: unknown[] };
      expect(parts.deeperBesides(o, 1, o.list)).toBe(false);
      expect(parts.deeperBesides(o, 2, o.list)).toBe(false);
      expect(parts.deeperBesides(o, 3, o.list)).toBe(true);
    } finally {
      delete proto.polluted;
    }
  });

  it.each([
    ['chat.json', `{"messages":[{"role":"user","content":"hi","extra":${arrays(10_000)}}]}`, '$.messages[0].extra[0][0][0][0][0]…[0][0][0]'],
    ['s.session.json', `{"format":"mas-replay-session","version":1,"runs":[{"id":"r","x":${objects(10_000)}}]}`, '$.runs[0].x.a.a.a.a.a….a.a.a'],
    ['attrs.json', `{"gen_ai.system":"x","weird key":${objects(MAX_JSON_DEPTH)}}`, '$["weird key"].a.a.a.a.a.a.a….a.a.a'],
    ['bus.jsonl', `{"id":1}\n{"id":2,"content":${arrays(5_000)}}\n`, 'line 2: $.content[0][0][0][0][0][0][0]…[0][0][0]'],
  ])('%s: an error naming the JSON path of the first value past the limit', (file, text, location) => {
    const e = failure(file, text);
    expect(e.location).toBe(location);
    expect(e.detail).toBe(`objects and arrays nested more than ${MAX_JSON_DEPTH} levels deep (the limit)`);
  });

  it('reads a document nested exactly to the limit', () => {
    const text = `{"format":"unknown-thing","x":${arrays(MAX_JSON_DEPTH - 1)}}`;
    expect(failure('x.json', text).detail).toMatch(/not a recognised trace format/);
  });
});
