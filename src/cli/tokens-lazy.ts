// The CLI bundle's stand-in for src/import/tokens.ts (scripts/build-cli.mjs swaps it in; ADR 0018): the same
// functions, but the counter (o200k-table.ts, ADR 0070) is loaded on the first count, so a command on a file that
// records its token usage never loads it. The bundle's build writes the table beside it (o200k.table: read in a few
// milliseconds); without that file it is read from gpt-tokenizer's rank file (~0.1 s).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { TokenUsage } from '../model/types.ts';
import { cachedTokenCounter } from '../import/token-count.ts';
import { tableCounter, tableFromBuffer, tableFromTiktoken, type O200kTable } from '../import/o200k-table.ts';

/** The table file's name beside the bundle (scripts/build-cli.mjs writes it). */
export const TABLE_FILE = 'o200k.table';

let count: ((text: string) => number) | undefined;

function table(): O200kTable {
  try {
    return tableFromBuffer(readFileSync(new URL(`./${TABLE_FILE}`, import.meta.url)));
  } catch {
    // Not built (the sources run through tsx) or not readable: read the package's rank file instead.
    return tableFromTiktoken(readFileSync(createRequire(import.meta.url).resolve('gpt-tokenizer/data/o200k_base.tiktoken'), 'utf8'));
  }
}

export function estimateTokens(text: string): number {
  if (!text) return 0;
  // A synchronous load, as the importers count synchronously.
  count ??= cachedTokenCounter(tableCounter(table()));
  return count(text);
}

export function estimateUsage(inputText: string, outputText: string): TokenUsage {
  const input = estimateTokens(inputText);
  const output = estimateTokens(outputText);
  return { input, output, total: input + output, estimated: true };
}
