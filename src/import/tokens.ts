// Token counts for traces that did not record usage: counted offline with the o200k_base encoding and marked
// `estimated`. gpt-tokenizer is large (its o200k ranks take 100–600 ms and ~100 MB to evaluate), so it is loaded
// with a dynamic import, and only by a file that needs it (ADR 0038): the import worker maps a file without it; an
// estimate asked for meanwhile throws and is counted (`tokenEstimatesRefused`), and the worker then loads the counter
// and maps that file again (src/workers/import-files.ts). A file whose usage is recorded never loads it. In Node (tests, benchmarks,
// scripts) the counter is loaded synchronously by this module's own evaluation below, so the importers count there
// as before. The CLI bundle swaps this module for src/cli/tokens-lazy.ts. Counts go through token-count.ts (the same
// numbers, for less CPU: ADR 0030).
import type { TokenUsage } from '../model/types.ts';
import { cachedTokenCounter } from './token-count.ts';

let count: ((text: string) => number) | undefined;
let loading: Promise<void> | undefined;
let refused = 0;

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

/** The counter is loaded (always in Node; in a browser once `loadTokenCounter()` has settled). */
export function tokenCounterLoaded(): boolean {
  return count !== undefined;
}

/**
 * How many estimates were asked for while the counter was not loaded (each threw). An importer may turn the throw into
 * a warning or a failure of its own, so a caller compares this number before and after a mapping, not the error.
 */
export function tokenEstimatesRefused(): number {
  return refused;
}

/** Tests only: forget the counter, as a fresh import worker has none (the next `loadTokenCounter()` loads it again). */
export function forgetTokenCounter(): void {
  count = undefined;
  loading = undefined;
}

export function estimateTokens(text: string): number {
  if (!text) return 0;
  if (!count) {
    refused += 1;
    throw new Error('the token counter is not loaded: await loadTokenCounter() before importing');
  }
  return count(text);
}

export function estimateUsage(inputText: string, outputText: string): TokenUsage {
  const input = estimateTokens(inputText);
  const output = estimateTokens(outputText);
  return { input, output, total: input + output, estimated: true };
}
