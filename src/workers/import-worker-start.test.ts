// The import worker's first message must not wait for its token counter (ADRs 0022, 0038, 0041, 0070): the worker
// reaches the counter's loader (src/llm/token-table.ts, which fetches the build's table) only through a dynamic import,
// and gpt-tokenizer not at all. This follows the worker's imports with esbuild's metafile.
import { build } from 'esbuild';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

describe('import worker start', () => {
  it('reaches its token counter only through a dynamic import, and gpt-tokenizer not at all', async () => {
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
    let tokenizer = false;
    let loaderDynamic = false;
    for (let i = 0; i < queue.length; i++) {
      for (const imp of inputs[queue[i]]?.imports ?? []) {
        if (imp.path.includes('node_modules/gpt-tokenizer/')) tokenizer = true;
        if (imp.path === 'src/llm/token-table.ts' && imp.kind === 'dynamic-import') loaderDynamic = true;
        if (imp.kind !== 'import-statement' || seen.has(imp.path)) continue;
        seen.add(imp.path);
        queue.push(imp.path);
      }
    }
    expect(seen.has('src/import/tokens.ts')).toBe(true); // the walk reached the importers
    expect([...seen].filter((m) => m.includes('node_modules/gpt-tokenizer/'))).toEqual([]);
    expect(tokenizer).toBe(false);
    expect(loaderDynamic).toBe(true);
    expect(seen.has('src/llm/token-table.ts')).toBe(false);
  }, 60_000);
});
