import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { countTokens } from 'gpt-tokenizer';
import packageRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { ranksFromTiktoken } from './o200k-ranks.ts';

const require = createRequire(import.meta.url);
const rankFile = () => readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'utf8');

describe('o200k ranks read from the rank file in pieces', () => {
  it('are the package’s rank array, token by token (strings and byte arrays alike)', async () => {
    const reports: [number, number][] = [];
    const ranks = await ranksFromTiktoken(rankFile(), (done, total) => reports.push([done, total]));
    const expected = packageRanks as (string | number[])[];
    expect(ranks.length).toBe(expected.length);
    let arrays = 0;
    let mismatches = 0;
    for (let i = 0; i < expected.length; i++) {
      const a = ranks[i];
      const b = expected[i];
      if (typeof b !== 'string') arrays++;
      if (typeof a === 'string' || typeof b === 'string' ? a !== b : a.length !== b.length || a.some((x, j) => x !== b[j])) mismatches++;
    }
    expect(mismatches).toBe(0);
    expect(arrays).toBeGreaterThan(1000); // the byte tokens are there and compared, not only the strings
    // Progress came in several pieces and ended at the whole file.
    expect(reports.length).toBeGreaterThan(5);
    expect(reports.at(-1)![0]).toBe(reports.at(-1)![1]);
    expect(reports.every(([done], i) => i === 0 || done > reports[i - 1][0])).toBe(true);
  });

  it('build an encoder that counts as gpt-tokenizer’s countTokens', async () => {
    const ranks = await ranksFromTiktoken(rankFile());
    const ours = GptEncoding.getEncodingApi('o200k_base', () => ranks).countTokens;
    for (const text of ['hello world', 'Über naïve café — “quotes” and emoji 🎉🎉', '  \n\n\t code(x) => x ** 2;  ', '日本語のテキストと中文文本', '\ufeffBOM first', 'x'.repeat(3000)]) {
      expect(ours(text)).toBe(countTokens(text));
    }
  });

  it('say which line is not a rank line', async () => {
    await expect(ranksFromTiktoken('IQ== 0\nnot-a-rank-line\n')).rejects.toThrow('line 2: not "base64 rank"');
    await expect(ranksFromTiktoken('IQ== 0\nIg== minus\n')).rejects.toThrow('line 2');
  });
});
