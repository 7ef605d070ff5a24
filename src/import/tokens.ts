// Token counts for traces that did not record usage: counted offline with the o200k_base encoding and marked
// `estimated`. gpt-tokenizer is large, so this module is only reached from the import worker and the CLI.
import { countTokens } from 'gpt-tokenizer';
import type { TokenUsage } from '../model/types.ts';

export function estimateTokens(text: string): number {
  return text ? countTokens(text) : 0;
}

export function estimateUsage(inputText: string, outputText: string): TokenUsage {
  const input = estimateTokens(inputText);
  const output = estimateTokens(outputText);
  return { input, output, total: input + output, estimated: true };
}
