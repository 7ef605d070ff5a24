// The import worker's first message must not wait for gpt-tokenizer (ADR 0022, 0038, 0041): the worker reaches it only
// through dynamic imports (its counter loader, o200k-loader.ts, which reads the rank file in pieces). This follows the
// worker's static imports with esbuild's metafile and fails when gpt-tokenizer is among them.
import { build } from 'esbuild';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

describe('import worker start', () => {
  it('does not import gpt-tokenizer statically (it is loaded beside the first message)', async () => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: ['src/workers/import.worker.ts'],
      bundle: true,
      splitting: true,
      format: 'esm',
      outdir: '/tmp/mas-import-worker-start',
      write: false,
      metafile: true,
      logLevel: 'silent',
      // The token table is an asset Vite's build makes (scripts/o200k-table-asset.ts); esbuild knows no such module.
      external: ['virtual:o200k-table'],
    });
    const inputs = result.metafile.inputs;
    const seen = new Set(['src/workers/import.worker.ts']);
    const queue = [...seen];
    let dynamic = false;
    let loaderDynamic = false;
    for (let i = 0; i < queue.length; i++) {
      for (const imp of inputs[queue[i]]?.imports ?? []) {
        if (imp.path.includes('node_modules/gpt-tokenizer/') && imp.kind === 'dynamic-import') dynamic = true;
        if (imp.path === 'src/import/o200k-loader.ts' && imp.kind === 'dynamic-import') loaderDynamic = true;
        if (imp.kind !== 'import-statement' || seen.has(imp.path)) continue;
        seen.add(imp.path);
        queue.push(imp.path);
      }
    }
    expect(seen.has('src/import/tokens.ts')).toBe(true); // the walk reached the importers
    expect([...seen].filter((m) => m.includes('node_modules/gpt-tokenizer/'))).toEqual([]);
    expect(dynamic).toBe(true);
    expect(loaderDynamic).toBe(true);
    expect(seen.has('src/import/o200k-loader.ts')).toBe(false);
  }, 60_000);
});
