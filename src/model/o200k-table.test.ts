import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer';
import packageRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { createO200KSpecialTokenMap } from 'gpt-tokenizer/encodingParams/o200k_base';
import { HAVE_SHARED, sharedFiles, SKIP_REASON } from '../testing/fixture-kit.ts';
import { asciiPieceEnd, eachO200kPiece, heapMergeCount, O200K_SPECIAL_TOKENS, O200K_SPLIT, stickyO200kSplit, tableCounter, tableFromBuffer, tableFromTiktoken, tableToBuffer } from './o200k-table.ts';

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

  describe('the split’s ASCII fast path (ADR 0082)', () => {
    /** The pattern's own pieces, as [start, end] pairs. */
    const patternPieces = (text: string): [number, number][] => [...text.matchAll(new RegExp(O200K_SPLIT.source, O200K_SPLIT.flags))].map((m) => [m.index, m.index + m[0].length]);
    const fastPieces = (text: string): [number, number][] => {
      const out: [number, number][] = [];
      eachO200kPiece(text, stickyO200kSplit(), (start, end) => out.push([start, end]));
      return out;
    };
    // Characters at every edge of the pattern's classes, ASCII and not: cases of letters, digits, each kind of
    // whitespace, marks, the contraction's letters, and non-ASCII letters, marks, digits, spaces and punctuation.
    const edge = fc.constantFrom(
      ...'aZsStTdDmMlLvVeErRqQ09 \t\n\r\u000b\f\'’/.,!?-_()[]{}<|>\u0000\u001f\u007f',
      'é', 'É', 'ß', 'ǅ', 'ʰ', '中', '\u0301', '٣', '²', '\u00a0', '\u3000', '\u2028', '\ufeff', '…', '—', '🎉', '\ud800', '\udc00',
    );
    const text = fc.oneof(fc.array(edge, { maxLength: 40 }).map((cs) => cs.join('')), fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'grapheme-ascii', maxLength: 60 }));

    it('cuts every text where the pattern does (fast-check)', () => {
      fc.assert(
        fc.property(text, (s) => {
          expect(fastPieces(s)).toEqual(patternPieces(s));
        }),
        { numRuns: 20_000 },
      );
    });

    it('cuts hand-picked ASCII texts where the pattern does: contractions, capitals, digits, blanks, marks', () => {
      const cases = [
        "I'm here, aren't you? We'LL see; DON'T, they've 'S",
        'HTTPServer parseJSON camelCase ABC ABCdef aBC',
        'step 12345: noted item 96\n',
        '  two\n\n  blank\t\tlines \r\n\r\nend   ',
        'x   \n  y',
        ' \t!?\n/\n/x',
        '-- rule ==== done //// path/to/file.ts\n',
        '\ttab\x0bvt\x0cff \x00nul \x1fus \x7fdel',
        "'s's 're 'RE 'rE 'Ve 'lL 'd 'x I'd you'D",
        ' ', '\n', 'a', '1234567', ' 1 2  3', '  ', ' !', '\t!',
      ];
      for (const s of cases) expect(fastPieces(s), JSON.stringify(s)).toEqual(patternPieces(s));
    });

    it('cuts 20,000 random ASCII texts where the pattern does', () => {
      // Weighted towards what the pattern tells apart: apostrophes and contraction letters, CR/LF and slashes after
      // marks, runs of blanks of every kind, digits, capitals, controls.
      const alphabet = "aAsStTrReEvVmMlLdDxZ0129'''/// \t\n\r\x0b\x0c\x00\x1f\x7f.,!?-_=<>|{}\"`~";
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 40 }), (cs) => {
          const s = cs.join('');
          expect(fastPieces(s)).toEqual(patternPieces(s));
        }),
        { numRuns: 20_000, seed: 14 },
      );
    });

    it('gives each ASCII piece itself, and leaves to the pattern only what a non-ASCII character decides', () => {
      const cases: [string, number, number][] = [
        // [text, start, the end the scan gives (-1: the pattern decides)]
        ["don't", 0, 5], ["'LL", 0, 3], [" they'll go", 0, 8], ['ABCdef', 0, 6], ['ABC1', 0, 3], ['!Hello', 0, 6], ['!!Hello', 0, 2],
        ['12345', 0, 3], [' 123', 0, 1], [' //\n\nx', 0, 5], ['  \n  word', 0, 3], ['  \n  word', 3, 4], ['a  ', 1, 3], ['\tx', 0, 2],
        ['caf\u00e9', 0, -1], ['ab\u00a0', 2, -1], [' \u00e9', 0, -1], ['12\u0663', 0, -1], ['x \u2026', 1, -1], ['Ab\u0301', 0, -1], ['ok.', 0, 2],
      ];
      for (const [s, start, end] of cases) expect(asciiPieceEnd(s, start), JSON.stringify([s, start])).toBe(end);
    });
  });

  describe('the merge of a long piece by a heap (heapMergeCount)', () => {
    /** The plain merge, as the package does it: join the lowest-ranked pair, the leftmost of equals, until none. */
    const plainMerge = (key: Uint8Array): number[] => {
      const starts = Array.from({ length: key.length + 1 }, (_, i) => i);
      const rankOf = (i: number): number => {
        if (i + 2 >= starts.length) return Infinity;
        const bytes = key.subarray(starts[i], starts[i + 2]);
        const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
        let r: number | undefined;
        try {
          const s = text.decode(bytes);
          r = rankOfString.get(s.charCodeAt(0) === 0xfeff ? s.slice(1) : s);
        } catch {
          r = rankOfBytes.get(Array.from(bytes).join(','));
        }
        return r ?? Infinity;
      };
      for (;;) {
        let best = Infinity;
        let at = -1;
        for (let i = 0; i + 2 < starts.length; i++) {
          const r = rankOf(i);
          if (r < best) {
            best = r;
            at = i;
          }
        }
        if (at < 0) return starts.slice(0, -1);
        starts.splice(at + 1, 1);
      }
    };
    const ranks = packageRanks as (string | number[])[];
    const rankOfString = new Map<string, number>();
    const rankOfBytes = new Map<string, number>();
    ranks.forEach((v, rank) => {
      if (typeof v === 'string') rankOfString.set(v, rank);
      else if (Array.isArray(v)) rankOfBytes.set(v.join(','), rank);
    });

    it('leaves the parts the plain merge leaves, on random bytes of few kinds (fast-check)', () => {
      // Few distinct bytes, so that pairs repeat and equal ranks meet (the leftmost must win); invalid UTF-8 too.
      const bytes = fc.uint8Array({ minLength: 0, maxLength: 300 }).map((b) => b.map((x) => [97, 98, 108, 101, 32, 61, 0xc3, 0xa9, 0xe4, 0xb8][x % 10]));
      // Texts where joining the rightmost of equal ranks first would leave other parts (found by a search).
      for (const text of ['lllleabbl', ' l=aaa  =l', 'bbbab=lbaa', 'ab=     =a=e']) {
        const b = new TextEncoder().encode(text);
        const parts: number[] = [];
        heapMergeCount(table, b, b.length, parts);
        expect(parts, text).toEqual(plainMerge(b));
      }
      fc.assert(
        fc.property(bytes, (b) => {
          const parts: number[] = [];
          const count = heapMergeCount(table, b, b.length, parts);
          expect(parts).toEqual(plainMerge(b));
          expect(count).toBe(parts.length);
        }),
        { numRuns: 300 },
      );
    });

    it('counts long single pieces as the package does, and counts a run of 400,000 characters (one piece)', () => {
      const texts = ['ab'.repeat(400), 'a'.repeat(3000), '='.repeat(2000), ' '.repeat(1500) + 'x', 'é'.repeat(700), '中文'.repeat(400), 'Zzz'.repeat(300), '\n'.repeat(800)];
      for (const text of texts) expect(ours(text), JSON.stringify(text.slice(0, 12))).toBe(theirs(text));
      // Its time is bench/import's figure; the plain merge took minutes here.
      expect(tableCounter(table)('='.repeat(400_000))).toBe(tableCounter(table)('='.repeat(200_000)) * 2);
    });
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
