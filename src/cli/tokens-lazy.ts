// The CLI bundle's stand-in for src/import/tokens.ts (scripts/build-cli.mjs swaps it in; ADR 0018): the same
// functions, but the counter (src/model/o200k-table.ts, ADR 0070) is loaded on the first count, so a command on a file
// that records its token usage never loads it. It reads the table that the bundle's build writes beside it
// (dist-cli/o200k.table, a few milliseconds); without that file, gpt-tokenizer's rank file (~0.1 s).
import type { TokenUsage } from '../model/types.ts';
import { cachedTokenCounter } from '../import/token-count.ts';
import { tableCounter } from '../model/o200k-table.ts';
import { nodeO200kTable } from '../llm/token-table.ts';

let count: ((text: string) => number) | undefined;

export function estimateTokens(text: string): number {
  if (!text) return 0;
  // A synchronous load, as the importers count synchronously.
  count ??= cachedTokenCounter(tableCounter(nodeO200kTable()));
  return count(text);
}

export function estimateUsage(inputText: string, outputText: string): TokenUsage {
  const input = estimateTokens(inputText);
  const output = estimateTokens(outputText);
  return { input, output, total: input + output, estimated: true };
}
