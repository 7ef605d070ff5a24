import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer';
import packageRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { createO200KSpecialTokenMap } from 'gpt-tokenizer/encodingParams/o200k_base';
import { HAVE_SHARED, sharedFiles, SKIP_REASON } from '../testing/fixture-kit.ts';
import { O200K_SPECIAL_TOKENS, O200K_SPLIT, tableCounter, tableFromBuffer, tableFromTiktoken, tableToBuffer } from './o200k-table.ts';

const require = createRequire(import.meta.url);
const rankFile = readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'utf8');
const table = tableFromTiktoken(rankFile);
const count = tableCounter(table);

/** The package's count, or its error's message. */
function theirs(text: string): number | string {
  try {
    return countTokens(text);
  } catch (e) {
    return `throws: ${(e as Error).message}`;
  }
}

function ours(text: string, counter = count): number | string {
  try {
    return counter(text);
  } catch (e) {
    return `throws: ${(e as Error).message}`;
  }
}

describe('the o200k table counter', () => {
  it('splits with the package’s own pattern and refuses its own special tokens', () => {
    expect(O200K_SPLIT.source).toBe(O200K_TOKEN_SPLIT_REGEX.source);
    expect(O200K_SPLIT.flags).toBe(O200K_TOKEN_SPLIT_REGEX.flags);
    expect(O200K_SPECIAL_TOKENS).toEqual([...createO200KSpecialTokenMap().keys()]);
  });

  it('holds every token of the package’s rank array, and counts each token’s own text as the package does', () => {
    const ranks = packageRanks as (string | number[])[];
    expect(table.value.length).toBe(ranks.filter((r) => r !== undefined).length);
    let strings = 0;
    let diffs = 0;
    for (let rank = 0; rank < ranks.length; rank++) {
      const value = ranks[rank];
      if (typeof value !== 'string') continue;
      strings++;
      if (ours(value) !== theirs(value)) diffs++;
    }
    expect(strings).toBeGreaterThan(190_000);
    expect(diffs).toBe(0);
  });

  it('counts as the package every token’s text after a byte-order mark, and with lone surrogates for its U+FFFD', () => {
    // The package decodes a pair's bytes before looking them up, and its decoder drops a leading byte-order mark: so
    // "\ufeff名" is one token there. A piece with a lone surrogate is no token's string; its bytes hold U+FFFD. (Tokens
    // that start with an ASCII character are left out of the first case: 10 s more, and none differs.)
    const ranks = packageRanks as (string | number[])[];
    const diffs: string[] = [];
    let texts = 0;
    for (const value of ranks) {
      if (typeof value !== 'string') continue;
      const cases = value.charCodeAt(0) >= 0x80 ? [`\ufeff${value}`] : [];
      if (value.includes('\ufffd')) cases.push(value.replaceAll('\ufffd', '\ud800'), value.replaceAll('\ufffd', '\udfff'));
      for (const text of cases) {
        texts++;
        if (ours(text) !== theirs(text)) diffs.push(text);
      }
    }
    expect(texts).toBeGreaterThan(10_000);
    expect(diffs).toEqual([]);
  });

  it('counts as the package on hand-picked texts: byte-order marks, lone surrogates, special tokens, long runs', () => {
    const texts = [
      '',
      'hello world',
      'Über naïve café — “quotes” and emoji 🎉🎉 👩‍👩‍👧',
      '  \n\n\t code(x) => x ** 2;  ',
      '日本語のテキストと中文文本, 한국어 텍스트',
      '\ufeffBOM first',
      'text with \ufeff inside and \ufeff\ufeff twice',
      'lone \ud800 high, lone \udc00 low, pair \ud83d\ude00',
      'a <|endoftext|> b',
      '<|im_start|>user',
      '<|not_special|> <| |>',
      'x'.repeat(3000),
      '='.repeat(500),
      ' '.repeat(300) + 'end',
      'données: 12345678901234567890, 3.14159, -42',
      'مرحبا بالعالم',
      '\u0000\u0001\u001f control',
    ];
    for (const text of texts) expect(ours(text), JSON.stringify(text.slice(0, 40))).toBe(theirs(text));
  });

  it('counts as the package on generated text (fast-check)', () => {
    const special = fc.constantFrom(...O200K_SPECIAL_TOKENS, '<|', '|>', '\ufeff', '\ud800', '\udfff', '’s', "'LL");
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 80 }),
      fc.array(fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 12 }), special, fc.string({ unit: 'binary-ascii', maxLength: 6 })), { maxLength: 20 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, (s) => {
        expect(ours(s)).toBe(theirs(s));
      }),
      { numRuns: 3000 },
    );
  });

  it.skipIf(!HAVE_SHARED)(`counts as the package every text of ../shared/traces ${HAVE_SHARED ? '' : SKIP_REASON}`, () => {
    const texts = new Set<string>();
    const walk = (v: unknown): void => {
      if (typeof v === 'string') texts.add(v);
      else if (Array.isArray(v)) for (const x of v) walk(x);
      else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) walk(x);
    };
    const files = sharedFiles('').filter((f) => statSync(f).size < 50e6);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      texts.add(text.slice(0, 100_000)); // the raw text too: JSON's own punctuation and escapes
      try {
        walk(JSON.parse(text));
      } catch {
        for (const line of text.split('\n')) {
          try {
            walk(JSON.parse(line));
          } catch {
            // not JSON: its raw text is in already
          }
        }
      }
    }
    expect(files.length).toBeGreaterThan(50);
    const diffs: string[] = [];
    let chars = 0;
    for (const t of texts) {
      chars += t.length;
      if (ours(t) !== theirs(t)) diffs.push(t.slice(0, 60));
    }
    expect(chars).toBeGreaterThan(1_000_000);
    expect(diffs).toEqual([]);
  });

  it('reads back from its buffer as the same counter, and refuses a buffer that is not one', () => {
    const buffer = tableToBuffer(table);
    const again = tableCounter(tableFromBuffer(buffer));
    for (const text of ['hello world', 'Über naïve café 🎉', 'x'.repeat(500), '\ufeffbom']) expect(ours(text, again)).toBe(theirs(text));
    // Read at an offset that is not a multiple of 4 (a Node Buffer from the pool may start so): copied, same counts.
    const shifted = new Uint8Array(buffer.length + 1);
    shifted.set(buffer, 1);
    expect(ours('shifted text', tableCounter(tableFromBuffer(shifted.subarray(1))))).toBe(theirs('shifted text'));

    expect(() => tableFromBuffer(new Uint8Array(8))).toThrow('too short');
    const wrongMagic = buffer.slice();
    wrongMagic[0] ^= 1;
    expect(() => tableFromBuffer(wrongMagic)).toThrow('not a token table of this version');
    expect(() => tableFromBuffer(buffer.subarray(0, buffer.length - 1))).toThrow('sizes do not add up');
    // A slot naming a token that does not exist.
    const badSlot = buffer.slice();
    const words = new Int32Array(badSlot.buffer, 0, badSlot.length >> 2);
    const n = table.value.length;
    const firstSlot = 5 + 2 * n + 1;
    const filled = table.slots.findIndex((s) => s !== 0);
    words[firstSlot + filled] = n + 5;
    expect(() => tableFromBuffer(badSlot)).toThrow('a slot names no token');
    // A token missing from the slots.
    const dropped = buffer.slice();
    new Int32Array(dropped.buffer, 0, dropped.length >> 2)[firstSlot + filled] = 0;
    expect(() => tableFromBuffer(dropped)).toThrow('do not name every token once');
  });

  it('says which line of a rank file is wrong', () => {
    expect(() => tableFromTiktoken('IQ== 0\nnot-a-rank-line\n')).toThrow('line 2: not "base64 rank"');
    expect(() => tableFromTiktoken('IQ== 0\nIg== minus\n')).toThrow('line 2: not "base64 rank"');
    expect(() => tableFromTiktoken('IQ== 0\nI!== 1\n')).toThrow('line 2: not "base64 rank"');
    expect(() => tableFromTiktoken('IQ== 0\nIg== 0\n')).toThrow('line 2: rank 0 given twice');
    expect(() => tableFromTiktoken('IQ== 0\nIQ== 1\n')).toThrow('line 2: the bytes of rank 0 given again');
    const small = tableFromTiktoken('IQ== 0\nIg== 1\n\n');
    expect(small.value.length).toBe(2);
  });
});
