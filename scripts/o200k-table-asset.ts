// The token counter's table (src/model/o200k-table.ts, ADR 0070) as an asset of the studio's build, made once from
// gpt-tokenizer's rank file when Vite starts: the import and live workers fetch it and read it as it is (a few ms),
// instead of reading the rank file into a table (~0.1 s on a worker's first count). `import tableUrl from
// 'virtual:o200k-table'` gives its URL: an emitted asset in a build (worker bundles included), a path the dev server
// answers with it. Our own origin, so the CSP's connect-src 'self' covers it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Plugin } from 'vite';
import { O200K_RANK_FILE, tableFromTiktoken, tableToBuffer } from '../src/model/o200k-table.ts';

const ID = 'virtual:o200k-table';
const RESOLVED = `\0${ID}`;
/** Where the dev server answers with the table. */
const DEV_PATH = '/@o200k.table';

let table: Uint8Array | undefined;
/**
 * The table's bytes, made on first use (the rank file read once per process): this asset, and the file beside the CLI
 * bundle (scripts/build-cli.mjs).
 */
export function o200kTableBytes(): Uint8Array {
  // Read here, not through src/llm/token-table.ts: that module's dynamic import of this plugin's virtual module cannot
  // be resolved where Vite bundles its own config.
  table ??= tableToBuffer(tableFromTiktoken(readFileSync(createRequire(import.meta.url).resolve(O200K_RANK_FILE), 'utf8')));
  return table;
}

export function o200kTableAsset(): Plugin {
  let serve = false;
  return {
    name: 'o200k-table-asset',
    configResolved(config) {
      serve = config.command === 'serve';
    },
    resolveId(id) {
      return id === ID ? RESOLVED : undefined;
    },
    load(id) {
      if (id !== RESOLVED) return undefined;
      if (serve) return `export default ${JSON.stringify(DEV_PATH)};`;
      const ref = this.emitFile({ type: 'asset', name: 'o200k.table', source: o200kTableBytes() });
      return `export default import.meta.ROLLUP_FILE_URL_${ref};`;
    },
    configureServer(server) {
      server.middlewares.use(DEV_PATH, (_req, res) => {
        res.setHeader('Content-Type', 'application/octet-stream');
        res.end(o200kTableBytes());
      });
    },
  };
}
