import { countTokens } from 'gpt-tokenizer';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedTokenCounter, LONG_TEXT, pieceEnd } from './token-count.ts';

// gpt-tokenizer's o200k pre-tokenizer pattern (src/encodingParams/constants of the package), written out here so
// that the scanner is checked against the regex itself, not against a copy of its logic.
const CONTRACTION = String.raw`(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`;
const O200K = new RegExp(
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTION}|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTION}|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  'gu',
);

function regexPieces(s: string): string[] {
  return Array.from(s.matchAll(O200K), (m) => m[0]);
}

function scannerPieces(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    const end = pieceEnd(s, i);
    out.push(s.slice(i, end));
    i = end;
  }
  return out;
}

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Characters the pattern tells apart, weighted towards the awkward ones: apostrophes and contraction letters, CR/LF
// and slashes after symbols, runs of blanks of every kind, digits, capitals, controls.
const ALPHABET = "aAsStTrReEvVmMlLdDxZ0129'''/// \t\n\r\x0b\x0c\x00\x1f\x7f.,!?-_=<>|{}\"`~";

function randomAscii(next: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return s;
}

describe('pieceEnd: the o200k pre-tokenizer on ASCII', () => {
  it('splits as the regex does, on hand-picked cases', () => {
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
      ' ',
      '\n',
      'a',
      '1234567',
      ' 1 2  3',
      '  ',
      ' !',
      '\t!',
    ];
    for (const s of cases) expect(scannerPieces(s), JSON.stringify(s)).toEqual(regexPieces(s));
  });

  it('splits as the regex does, on 20,000 random ASCII strings', () => {
    const next = random(14);
    for (let k = 0; k < 20_000; k++) {
      const s = randomAscii(next, 1 + Math.floor(next() * 40));
      expect(scannerPieces(s), JSON.stringify(s)).toEqual(regexPieces(s));
    }
  });
});

describe('cachedTokenCounter', () => {
  it('gives countTokens’ number for random ASCII text, short and long, asked twice', () => {
    const counter = cachedTokenCounter(countTokens);
    const next = random(7);
    for (let k = 0; k < 3000; k++) {
      const s = randomAscii(next, 1 + Math.floor(next() * (k % 10 === 0 ? 600 : 60))).replaceAll('<|', '<');
      expect(counter(s), JSON.stringify(s)).toBe(countTokens(s));
      expect(counter(s), JSON.stringify(s)).toBe(countTokens(s));
    }
  });

  it('gives countTokens’ number for non-ASCII text (which goes to the library whole)', () => {
    const counter = cachedTokenCounter(countTokens);
    for (const s of ['naïve café', '日本語のテキスト', 'emoji 🤖 here', 'ÀÉÎ lower', 'x'.repeat(300) + 'é', 'Kelvin \u212a \u017f']) {
      expect(counter(s)).toBe(countTokens(s));
    }
  });

  it('counts one ASCII character as one token, as countTokens does', () => {
    for (let c = 0; c < 128; c++) expect(countTokens(String.fromCharCode(c)), `code ${c}`).toBe(1);
  });

  it('refuses a special token as countTokens does', () => {
    const counter = cachedTokenCounter(countTokens);
    expect(() => countTokens('a <|endoftext|> b')).toThrow();
    expect(() => counter('a <|endoftext|> b')).toThrow();
    expect(counter('a <| b |> c')).toBe(countTokens('a <| b |> c'));
  });

  const SHARED = join(import.meta.dirname, '../../../shared/traces');
  it.skipIf(!existsSync(SHARED))(`counts the words of every text of the shared traces as countTokens does${existsSync(SHARED) ? '' : ` (${SHARED} is absent: skipped)`}`, () => {
    const counter = cachedTokenCounter(countTokens);
    const root = SHARED;
    const strings: string[] = [];
    const collect = (v: unknown): void => {
      if (typeof v === 'string') strings.push(v);
      else if (Array.isArray(v)) for (const x of v) collect(x);
      else if (v && typeof v === 'object') for (const x of Object.values(v)) collect(x);
    };
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.json$/.test(name) && statSync(path).size < 2_000_000) {
          try {
            collect(JSON.parse(readFileSync(path, 'utf8')));
          } catch {
            // not one JSON document (JSON Lines): left out
          }
        }
      }
    };
    walk(root);
    expect(strings.length).toBeGreaterThan(1000);
    let checked = 0;
    for (const s of strings) {
      if (s.includes('<|')) continue;
      expect(counter(s), s.slice(0, 80)).toBe(countTokens(s));
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  // A counter that remembered texts or pieces by anything short of the whole string (a hash, a prefix, the length, codes without the length)
  // would answer the second of each pair with the first one's number.
  it('never answers one text or piece with the number of another of the same length, prefix or codes', () => {
    let calls = 0;
    const fake = (s: string): number => {
      calls++;
      let n = 0;
      for (let i = 0; i < s.length; i++) n = (n * 31 + s.charCodeAt(i)) % 1000;
      return n + s.length * 1000;
    };
    const counter = cachedTokenCounter(fake);
    const long = 'p'.repeat(LONG_TEXT * 2);
    const pairs: [string, string][] = [
      [`${long}a`, `${long}b`],
      [`${long} one`, `${long} two`],
      ['abcdefgh', 'abcdefgi'],
      ['ab', 'ac'],
      ['abcd', 'abce'],
      ['ab', '\0ab'],
      ['Abc', 'aBc'],
    ];
    // One character is one token without asking (as countTokens gives for every ASCII character).
    const expected = (s: string) => scannerPieces(s).reduce((t, p) => t + (p.length === 1 ? 1 : fake(p)), 0);
    for (const [a, b] of pairs) {
      const expectA = expected(a);
      const expectB = expected(b);
      expect(expectA).not.toBe(expectB);
      expect(counter(a)).toBe(expectA);
      expect(counter(b)).toBe(expectB);
      expect(counter(a)).toBe(expectA);
    }
    // Repeated texts and pieces are counted by the library once.
    calls = 0;
    counter(`${long}a`);
    counter('abcdefgh abcdefgh abcdefgh');
    expect(calls).toBe(1); // the piece ' abcdefgh' (with its space) was new
  });
});
