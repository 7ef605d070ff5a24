// Token counts for traces that did not record usage: counted offline with the o200k_base encoding and marked
// `estimated`. gpt-tokenizer is large (its o200k ranks take 100–600 ms and ~100 MB to evaluate), so it is loaded
// with a dynamic import: a worker that imports traces calls `loadTokenCounter()` when it starts and awaits it before
// running an importer (ADR 0022), and its first message is not held up by the ranks. In Node (tests, benchmarks,
// scripts) the counter is loaded synchronously by this module's own evaluation below, so the importers count there
// as before. The CLI bundle swaps this module for src/cli/tokens-lazy.ts. Counts go through token-count.ts (the same
// numbers, for less CPU: ADR 0030).
import type { TokenUsage } from '../model/types.ts';
import { cachedTokenCounter } from './token-count.ts';

let count: ((text: string) => number) | undefined;
let loading: Promise<void> | undefined;

/** Loads gpt-tokenizer once; the importers' counts need it to have settled. */
export function loadTokenCounter(): Promise<void> {
  loading ??= import('gpt-tokenizer').then((m) => {
    count = cachedTokenCounter(m.countTokens);
  });
  return loading;
}

// Node loads it synchronously (`process.getBuiltinModule`, Node ≥ 20.16, gives `require` without a static import of
// a Node module, which the browser build could not resolve). Not a top-level await: that would make every module
// importing this one asynchronous and change how the page's code is split into chunks (+5 KB of first-paint JS).
const nodeProcess = (globalThis as { process?: { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown } }).process;
if (nodeProcess?.versions?.node !== undefined && typeof nodeProcess.getBuiltinModule === 'function') {
  const { createRequire } = nodeProcess.getBuiltinModule('node:module') as typeof import('node:module');
  count = cachedTokenCounter((createRequire(import.meta.url)('gpt-tokenizer') as typeof import('gpt-tokenizer')).countTokens);
  loading = Promise.resolve();
}

export function estimateTokens(text: string): number {
  if (!text) return 0;
  if (!count) throw new Error('the token counter is not loaded: await loadTokenCounter() before importing');
  return count(text);
}

export function estimateUsage(inputText: string, outputText: string): TokenUsage {
  const input = estimateTokens(inputText);
  const output = estimateTokens(outputText);
  return { input, output, total: input + output, estimated: true };
}
