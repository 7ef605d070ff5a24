// Token counts for traces that did not record usage: counted offline with the o200k_base encoding and marked
// `estimated`, as gpt-tokenizer's `countTokens` counts, on a table (src/model/o200k-table.ts, ADR 0070: in a worker
// the build's 5.1 MB asset, fetched and read in a few ms; in Node the package's rank file, read into one in ~0.1 s).
// It is loaded only by a file that needs it (ADR 0038): the import worker maps a file without it; an estimate asked
// for meanwhile throws and is counted (`tokenEstimatesRefused`), and the worker then loads the counter and maps that
// file again (src/workers/import-files.ts). A file whose usage is recorded never loads it. In Node (tests, benchmarks,
// scripts) the counter is read synchronously by this module's own evaluation below, so the importers count there as
// before. The CLI bundle swaps this module for src/cli/tokens-lazy.ts. Counts go through token-count.ts (long texts
// remembered: ADR 0030, 0082).
import type { TokenUsage } from '../model/types.ts';
import { cachedTokenCounter } from './token-count.ts';
import { O200K_RANK_FILE, tableCounter, tableFromTiktoken } from '../model/o200k-table.ts';

let count: ((text: string) => number) | undefined;
let loading: Promise<void> | undefined;
let refused = 0;

// Node reads the rank file synchronously (`process.getBuiltinModule`, Node ≥ 20.16, gives `require` and `fs` without
// a static import of a Node module, which the browser build could not resolve). Not a top-level await: that would make
// every module importing this one asynchronous and change how the page's code is split into chunks (+5 KB of
// first-paint JS).
const nodeProcess = (globalThis as { process?: { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown } }).process;
const nodeRequire =
  nodeProcess?.versions?.node !== undefined && typeof nodeProcess.getBuiltinModule === 'function'
    ? (nodeProcess.getBuiltinModule('node:module') as typeof import('node:module')).createRequire(import.meta.url)
    : undefined;
const nodeCounter = (require: NodeJS.Require): ((text: string) => number) => {
  const fs = nodeProcess!.getBuiltinModule!('node:fs') as typeof import('node:fs');
  return tableCounter(tableFromTiktoken(fs.readFileSync(require.resolve(O200K_RANK_FILE), 'utf8')));
};
if (nodeRequire) {
  count = cachedTokenCounter(nodeCounter(nodeRequire));
  loading = Promise.resolve();
}

/** Loads a counter (in a worker: a fetch and a read of a few ms, so no progress to tell). */
export type CounterLoader = () => Promise<(text: string) => number>;
let browserLoader: CounterLoader | undefined;

/**
 * How a browser context loads the counter: the import and live workers fetch the build's table
 * (src/llm/token-table.ts). Set before the first load; a browser context without one has no counter.
 */
export function setCounterLoader(loader: CounterLoader): void {
  browserLoader = loader;
}

/**
 * Loads the counter once; the importers' counts need it to have settled. In Node (after `forgetTokenCounter`) it reads
 * the rank file.
 */
export function loadTokenCounter(): Promise<void> {
  const load = (): Promise<(text: string) => number> => {
    if (nodeRequire) return Promise.resolve(nodeCounter(nodeRequire));
    if (browserLoader) return browserLoader();
    return Promise.reject(new Error('no token counter loader is set in this context (setCounterLoader)'));
  };
  loading ??= load().then((countTokens) => {
    count = cachedTokenCounter(countTokens);
  });
  return loading;
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

/**
 * Tests only: forget the counter, as a fresh import worker has none. The next `loadTokenCounter()` loads it again —
 * under Node from the rank file on disk (a test cannot fetch the browser's asset).
 */
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
