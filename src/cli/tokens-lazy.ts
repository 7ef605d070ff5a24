// The CLI bundle's stand-in for src/import/tokens.ts (scripts/build-cli.mjs swaps it in; ADR 0018): the same
// functions, but gpt-tokenizer (its o200k encoding costs about a second and 100 MB to load) is required on the first
// count, so a command on a file that records its token usage never loads it.
import { createRequire } from 'node:module';
import type { TokenUsage } from '../model/types.ts';
import { cachedTokenCounter } from '../import/token-count.ts';

let count: ((text: string) => number) | undefined;

export function estimateTokens(text: string): number {
  if (!text) return 0;
  // The CommonJS build: a synchronous load, as the importers count synchronously.
  count ??= cachedTokenCounter((createRequire(import.meta.url)('gpt-tokenizer') as typeof import('gpt-tokenizer')).countTokens);
  return count(text);
}

export function estimateUsage(inputText: string, outputText: string): TokenUsage {
  const input = estimateTokens(inputText);
  const output = estimateTokens(outputText);
  return { input, output, total: input + output, estimated: true };
}
