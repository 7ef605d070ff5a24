import { countTokens } from 'gpt-tokenizer';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { O200K_RANK_FILE, tableCounter, tableFromTiktoken } from '../model/o200k-table.ts';
import { cachedTokenCounter, LONG_TEXT } from './token-count.ts';

// The counter the importers use: the table's, with long texts remembered.
const tableCount = tableCounter(tableFromTiktoken(readFileSync(createRequire(import.meta.url).resolve(O200K_RANK_FILE), 'utf8')));

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

// Characters o200k's pattern tells apart, weighted towards the awkward ones: apostrophes and contraction letters, CR/LF
// and slashes after symbols, runs of blanks of every kind, digits, capitals, controls.
const ALPHABET = "aAsStTrReEvVmMlLdDxZ0129'''/// \t\n\r\x0b\x0c\x00\x1f\x7f.,!?-_=<>|{}\"`~";

function randomAscii(next: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return s;
}

describe('cachedTokenCounter', () => {
  it('gives countTokens’ number for random ASCII text, short and long, asked twice', () => {
    const counter = cachedTokenCounter(tableCount);
    const next = random(7);
    for (let k = 0; k < 3000; k++) {
      const s = randomAscii(next, 1 + Math.floor(next() * (k % 10 === 0 ? 600 : 60))).replaceAll('<|', '<');
      expect(counter(s), JSON.stringify(s)).toBe(countTokens(s));
      expect(counter(s), JSON.stringify(s)).toBe(countTokens(s));
    }
  });

  it('gives countTokens’ number for non-ASCII text, whole or among ASCII words', () => {
    const counter = cachedTokenCounter(tableCount);
    for (const s of ['naïve café', '日本語のテキスト', 'emoji 🤖 here', 'ÀÉÎ lower', 'x'.repeat(300) + 'é', 'Kelvin \u212a \u017f']) {
      expect(counter(s)).toBe(countTokens(s));
    }
  });

  it('counts one ASCII character as one token, as countTokens does', () => {
    for (let c = 0; c < 128; c++) expect(countTokens(String.fromCharCode(c)), `code ${c}`).toBe(1);
  });

  it('refuses a special token as countTokens does', () => {
    const counter = cachedTokenCounter(tableCount);
    expect(() => countTokens('a <|endoftext|> b')).toThrow();
    expect(() => counter('a <|endoftext|> b')).toThrow();
    expect(counter('a <| b |> c')).toBe(countTokens('a <| b |> c'));
  });

  const SHARED = join(import.meta.dirname, '../../../shared/traces');
  it.skipIf(!existsSync(SHARED))(`counts the words of every text of the shared traces as countTokens does${existsSync(SHARED) ? '' : ` (${SHARED} is absent: skipped)`}`, () => {
    const counter = cachedTokenCounter(tableCount);
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

  // A counter that remembered texts by anything short of the whole string (a hash, a prefix, the length) would answer
  // the second of each pair with the first one's number.
  it('never answers one text with the number of another of the same length or prefix, and counts a long text once', () => {
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
      ['Abc', 'aBc'],
    ];
    for (const [a, b] of pairs) {
      expect(fake(a)).not.toBe(fake(b));
      expect(counter(a)).toBe(fake(a));
      expect(counter(b)).toBe(fake(b));
      expect(counter(a)).toBe(fake(a));
    }
    // A long text is counted once; a short one each time.
    calls = 0;
    counter(`${long}a`);
    counter(`${long}a`);
    counter('abcdefgh abcdefgh');
    counter('abcdefgh abcdefgh');
    expect(calls).toBe(2);
  });
});
