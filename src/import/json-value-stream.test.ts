import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ImportError } from './errors.ts';
import { JsonValueStream, type ValueStreamOptions } from './json-value-stream.ts';
import { hashJson, knownJsonHash } from './hash-json.ts';

/** `text` pushed in the pieces cut at `cuts` (positions, any order), then finished: the value. */
function streamed(text: string, cuts: number[] = [], options: ValueStreamOptions = {}): unknown {
  const stream = new JsonValueStream('doc.json', options);
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    stream.push(text.slice(from, cut));
    from = Math.max(from, cut);
  }
  stream.push(text.slice(from));
  stream.finish();
  return stream.value;
}

/** Keys in order, deeply: toStrictEqual does not compare the order of keys, which JSON.parse fixes. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (typeof v === 'object' && v !== null) {
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    return Object.keys(v).map((k) => [k, shape((v as Record<string, unknown>)[k])]);
  }
  return v;
}

const small: ValueStreamOptions = { smallChars: 40, batchChars: 24 };

describe('JsonValueStream', () => {
  it('gives what JSON.parse gives for a chat log, whatever the cuts and sizes', () => {
    const history = Array.from({ length: 300 }, (_, i) => ({ content: `message ${i} "quoted" ] } {"content": x}`, role: i % 2 ? 'user' : 'assistant', name: `agent-${i % 7}` }));
    const doc = { question: 'what?', history, mistake_agent: 'agent-3', nested: { deep: [[1, 2, { a: [history[0]] }]] } };
    for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2), JSON.stringify([doc, doc], null, '\t')]) {
      const want = JSON.parse(text) as unknown;
      expect(shape(streamed(text))).toEqual(shape(want));
      const opened = streamed(text, [1, 17, 500, 501, 9000], small);
      expect(shape(opened)).toEqual(shape(want));
      // An object's hash computed along, as hashJson of the whole value gives it (an array's is left to the importer).
      if (!Array.isArray(want)) expect(knownJsonHash(opened as object)).toBe(hashJson(want));
      else expect(knownJsonHash(opened as object)).toBeUndefined();
      expect(shape(streamed(text, Array.from({ length: text.length }, (_, i) => i), { smallChars: 200, batchChars: 100 }))).toEqual(shape(want));
    }
  });

  it('sets members as JSON.parse does: the last of two equal keys at the first place, index keys first, __proto__ own', () => {
    const text = '{"b":1,"__proto__":{"polluted":true},"a":[1,2,3,4,5,6,7,8,9,10,11,12],"b":"again","7":"seven","0":{"x":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}}';
    const got = streamed(text, [3, 30], small) as Record<string, unknown>;
    expect(Object.keys(got)).toEqual(Object.keys(JSON.parse(text) as object));
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(shape(got)).toEqual(shape(JSON.parse(text)));
    // The text's keys are not in the value's order: no hash along (the importer hashes the value).
    expect(knownJsonHash(got)).toBeUndefined();
  });

  it('equals JSON.parse on any JSON value, written any way, cut anywhere (property)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.nat({ max: 4000 }), { maxLength: 12 }),
        fc.integer({ min: 2, max: 200 }),
        fc.integer({ min: 1, max: 100 }),
        (value, indent, cuts, smallChars, batchChars) => {
          const wrapped = { v: value, list: [value, value, { w: value }] };
          const text = JSON.stringify(wrapped, null, indent);
          const got = streamed(text, cuts, { smallChars, batchChars });
          expect(shape(got)).toEqual(shape(JSON.parse(text)));
          // Computed along when the keys' order allows it, and then hashJson's; always when no key is integer-like.
          const known = knownJsonHash(got as object);
          if (known !== undefined) expect(known).toBe(hashJson(got));
          if (text.length > smallChars && !/"(0|[1-9]\d*)":/.test(text)) expect(known).toBe(hashJson(got));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses what JSON.parse refuses, with an ImportError only (fuzz)', () => {
    const base = JSON.stringify({ history: Array.from({ length: 40 }, (_, i) => ({ content: `m${i}`, n: i, ok: true, x: null })), q: 'z' });
    fc.assert(
      fc.property(fc.nat({ max: base.length - 1 }), fc.constantFrom('', ',', '}', ']', '"', '{', '[', 'x', '\\', ':', ' '), fc.boolean(), fc.array(fc.nat({ max: base.length }), { maxLength: 5 }), (at, insert, replace, cuts) => {
        // The character at `at` replaced, or the insertion put before it (a comma before a bracket: `,]`, `,}`).
        const text = base.slice(0, at) + insert + base.slice(replace ? at + 1 : at);
        let want: unknown;
        let wantError = false;
        try {
          want = JSON.parse(text);
        } catch {
          wantError = true;
        }
        try {
          const got = streamed(text, cuts, small);
          expect(wantError).toBe(false);
          expect(shape(got)).toEqual(shape(want));
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
          expect(wantError).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('says where a syntax error is: its line and column in the file', () => {
    const lines = ['{', '  "history": [', ...Array.from({ length: 30 }, (_, i) => `    {"content": "m${i}", "n": ${i}},`), '    {"content": "bad", "n": 1x},', '    {"content": "end"}', '  ]', '}'];
    const text = lines.join('\n');
    const error = (() => {
      try {
        streamed(text, [100, 300], small);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ImportError);
    const row = lines.findIndex((l) => l.includes('1x')) + 1;
    const column = lines[row - 1].indexOf('1x') + 2;
    expect((error as ImportError).location).toBe(`line ${row}, column ${column}`);
  });

  it('refuses an empty file, text after the document, a document cut short, and opened nesting past the limit', () => {
    const fails = (text: string, options: ValueStreamOptions = small) => {
      try {
        streamed(text, [], options);
      } catch (e) {
        expect(e).toBeInstanceOf(ImportError);
        return (e as ImportError).detail;
      }
      throw new Error('not refused');
    };
    expect(fails('  \n')).toMatch(/empty/);
    expect(fails('{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]} x')).toBe('more text after the end of the JSON document');
    // JSON Lines whose first line was too long to be told so: how to have them read as such.
    expect(fails('{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]}\n{"a": [2]}\n')).toMatch(/more text after the end of the JSON document: if the file is JSON Lines .* name it \.jsonl/);
    expect(fails('{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]')).toMatch(/ends inside/);
    expect(fails('"just a string"')).toMatch(/starts with \{ or \[/);
    // A comma before the end of an object or array, in an opened one: refused where it is, without reading on.
    expect(fails('{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], "b": 2,}')).toMatch(/expected a key/);
    expect(fails('{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,], "b": 2}')).toBe('expected a value');
    expect(fails('{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], "b": }')).toBe('expected a value');
    const deep = `${'['.repeat(20)}${'0,'.repeat(40)}0${']'.repeat(20)}`;
    expect(fails(deep, { smallChars: 10, batchChars: 5, maxDepth: 8 })).toMatch(/nested more than 8 levels/);
    expect(shape(streamed(deep, [], { smallChars: 10, batchChars: 5, maxDepth: 20 }))).toEqual(shape(JSON.parse(deep)));
  });
});
