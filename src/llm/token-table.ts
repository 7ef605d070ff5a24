// Where the o200k token table (src/model/o200k-table.ts, ADR 0070) comes from, in each place the studio runs:
// - in a browser worker, the build's asset (scripts/o200k-table-asset.ts), fetched from our own origin;
// - in the CLI bundle, the file its build writes beside it (dist-cli/o200k.table), read as it is;
// - elsewhere in Node (tests, benches, the CLI through tsx), gpt-tokenizer's rank file, read into one (~0.1 s).
// The engines' counts (usage.ts, cost.ts) and the import and live workers' (src/import/tokens.ts) load it here.
/// <reference path="./o200k-table-url.d.ts" />
import { O200K_RANK_FILE, tableCounter, tableFromBuffer, tableFromTiktoken, type O200kTable } from '../model/o200k-table.ts';

/** The table file's name beside the CLI bundle (scripts/build-cli.mjs writes it). */
export const TABLE_FILE = 'o200k.table';
const BESIDE = './' + TABLE_FILE;

type NodeProcess = { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown };
const nodeProcess = (globalThis as { process?: NodeProcess }).process;
const inNode = nodeProcess?.versions?.node !== undefined && typeof nodeProcess.getBuiltinModule === 'function';

const nodeFs = () => nodeProcess!.getBuiltinModule!('node:fs') as typeof import('node:fs');

/** Node only: the table read from gpt-tokenizer's rank file (~0.1 s). */
function rankFileTable(): O200kTable {
  const module = nodeProcess!.getBuiltinModule!('node:module') as typeof import('node:module');
  return tableFromTiktoken(nodeFs().readFileSync(module.createRequire(import.meta.url).resolve(O200K_RANK_FILE), 'utf8'));
}

/** Node only: the table beside this module (the CLI bundle's), else read from the package's rank file. */
export function nodeO200kTable(): O200kTable {
  const fs = nodeFs();
  // The name in a variable: Vite takes `new URL(<literal>, import.meta.url)` for an asset of the page's build.
  const beside = new URL(BESIDE, import.meta.url);
  if (fs.existsSync(beside)) {
    try {
      return tableFromBuffer(fs.readFileSync(beside));
    } catch {
      // not a table of this version: read the rank file instead
    }
  }
  return rankFileTable();
}

/** The table, from wherever this runs (see the header). */
export async function loadO200kTable(): Promise<O200kTable> {
  if (inNode) return nodeO200kTable();
  const { default: url } = await import('virtual:o200k-table');
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the token table (${url}) could not be fetched: HTTP ${response.status}`);
  // The table comes from the same build as this code: a table refused here is a broken build or transfer, and the
  // load fails as a failed fetch does.
  return tableFromBuffer(new Uint8Array(await response.arrayBuffer()));
}

/** The o200k counter (gpt-tokenizer's `countTokens`), on the table. */
export async function loadO200kCounter(): Promise<(text: string) => number> {
  return tableCounter(await loadO200kTable());
}
