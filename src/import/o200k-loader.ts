// The browser's token counter (ADRs 0041, 0070): gpt-tokenizer's o200k_base counts, on a table (o200k-table.ts) that
// the build makes from the package's rank file and ships as an asset of our own origin (no third-party request;
// scripts/o200k-table-asset.ts). A worker fetches it and reads it as it is, in a few milliseconds, where building
// the package's encoder took 0.3–0.4 s. The table comes from the same build as this code, so a table refused here is
// a broken build or transfer: the load fails, as for a failed fetch. Node reads the rank file (tokens.ts).
import tableUrl from 'virtual:o200k-table';
import { tableCounter, tableFromBuffer } from './o200k-table.ts';

/** Fetches the table and returns the counter; `onProgress` hears 0 of 1 once fetched, 1 of 1 once read. */
export async function loadO200kCounter(onProgress?: (done: number, total: number) => void): Promise<(text: string) => number> {
  const response = await fetch(tableUrl);
  if (!response.ok) throw new Error(`the token table (${tableUrl}) could not be fetched: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  onProgress?.(0, 1);
  const count = tableCounter(tableFromBuffer(bytes));
  onProgress?.(1, 1);
  return count;
}
