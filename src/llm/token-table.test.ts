import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { estimateUsage, loadTokenCounter } from './usage.ts';
import { loadO200kCounter } from './token-table.ts';

const TEXTS = ['', 'hello world', 'Über naïve café — “quotes” 🎉', '  code(x) => x ** 2;\n\n', '日本語のテキスト', 'x'.repeat(2000)];

describe("the engines' token counter", () => {
  it('counts as gpt-tokenizer does (in Node, from its rank file)', async () => {
    const count = await loadO200kCounter();
    for (const text of TEXTS) expect(count(text)).toBe(countTokens(text));
  });

  it('gives estimated usage with those counts, and one counter for every caller', async () => {
    expect(await estimateUsage('hello world', 'Über naïve café')).toEqual({
      input: countTokens('hello world'),
      output: countTokens('Über naïve café'),
      total: countTokens('hello world') + countTokens('Über naïve café'),
      estimated: true,
    });
    expect(await loadTokenCounter()).toBe(await loadTokenCounter());
    expect((await loadTokenCounter())('')).toBe(0);
  });
});
