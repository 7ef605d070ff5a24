// The first-paint JS (SPEC §8: ≤ 250 KB gzip, tokenizer and heavy views lazy) is guarded by `npm run bench`, which
// is not part of the test suite: a page-side module that imported a value from the importers once pulled every
// importer and the tokenizer's data into the entry chunk (1,133 KB) and no test noticed. This follows the static
// imports from the page's entry (dynamic imports are the lazy edges) with esbuild's metafile, and fails when one of the
// modules that must load lazily is reachable that way, printing the chain that reaches it.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const ENTRY = 'src/main.tsx';
/** Modules that must stay out of the first paint (paths as esbuild's metafile names them, relative to the root). */
const LAZY = [
  /node_modules\/gpt-tokenizer\//,
  /^src\/import\/index\.ts$/,
  /^src\/features\/run-view\/run-page\.tsx$/,
  /^src\/features\/compare\/compare-page\.tsx$/,
  /^src\/features\/corpus\/corpus-page\.tsx$/,
  /^src\/features\/supervisor\/engines-page\.tsx$/,
  /^src\/export\/native\.ts$/,
];

async function staticallyReachable(): Promise<Map<string, string | undefined>> {
  const out = mkdtempSync(join(tmpdir(), 'mas-first-paint-'));
  try {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [ENTRY],
      bundle: true,
      splitting: true,
      format: 'esm',
      outdir: out,
      write: false,
      metafile: true,
      logLevel: 'silent',
      jsx: 'automatic',
      loader: { '.svg': 'file', '.png': 'file', '.css': 'empty' },
      // The token table's URL, a module Vite's build makes (scripts/o200k-table-asset.ts): esbuild knows no such module.
      external: ['virtual:o200k-table'],
    });
    const inputs = result.metafile.inputs;
    const via = new Map<string, string | undefined>([[ENTRY, undefined]]);
    const queue = [ENTRY];
    for (let i = 0; i < queue.length; i++) {
      for (const imp of inputs[queue[i]]?.imports ?? []) {
        if (imp.kind !== 'import-statement' || via.has(imp.path)) continue;
        via.set(imp.path, queue[i]);
        queue.push(imp.path);
      }
    }
    return via;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function chain(via: Map<string, string | undefined>, to: string): string {
  const path: string[] = [];
  for (let at: string | undefined = to; at !== undefined; at = via.get(at)) path.push(at);
  return path.reverse().join(' → ');
}

describe('first-paint imports', () => {
  it('reach none of the modules that must load lazily', async () => {
    const via = await staticallyReachable();
    expect(via.size).toBeGreaterThan(20); // the walk found the app, not an empty graph
    const eager = [...via.keys()].filter((m) => LAZY.some((re) => re.test(m))).map((m) => chain(via, m));
    expect(eager).toEqual([]);
  }, 60_000);
});
