// The token table as an asset (ADR 0070): emitted into a build, answered by the dev server; both the table that
// o200k-table.ts reads back into the package's counts. The built asset's use by the workers is covered end to end
// (e2e/tokenizer-load.spec.ts, e2e/live-otlp.spec.ts).
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import type { Plugin } from 'vite';
import { tableCounter, tableFromBuffer } from '../src/model/o200k-table.ts';
import { o200kTableAsset } from './o200k-table-asset.ts';

type Hook = (...args: unknown[]) => unknown;
const hook = (plugin: Plugin, name: keyof Plugin) => plugin[name] as unknown as Hook;

function configured(command: 'build' | 'serve'): Plugin {
  const plugin = o200kTableAsset();
  hook(plugin, 'configResolved')({ command });
  return plugin;
}

describe('the token table asset', () => {
  it('resolves only its own id', () => {
    const plugin = configured('build');
    expect(hook(plugin, 'resolveId')('virtual:o200k-table')).toBe('\0virtual:o200k-table');
    expect(hook(plugin, 'resolveId')('virtual:other')).toBeUndefined();
    expect(hook(plugin, 'load')('/src/main.ts')).toBeUndefined();
  });

  it('is emitted into a build, as the table whose counts are the package’s', () => {
    const plugin = configured('build');
    const emitted: { type: string; name: string; source: Uint8Array }[] = [];
    const code = hook(plugin, 'load').call(
      {
        emitFile: (file: { type: string; name: string; source: Uint8Array }) => {
          emitted.push(file);
          return 'ref1';
        },
      },
      '\0virtual:o200k-table',
    );
    expect(code).toBe('export default import.meta.ROLLUP_FILE_URL_ref1;');
    expect(emitted.map((f) => [f.type, f.name])).toEqual([['asset', 'o200k.table']]);
    expect(tableCounter(tableFromBuffer(emitted[0].source))('hello world, Grüße 🎉')).toBe(countTokens('hello world, Grüße 🎉'));
  });

  it('is answered by the dev server at the path its module names', () => {
    const plugin = configured('serve');
    expect(hook(plugin, 'load')('\0virtual:o200k-table')).toBe('export default "/@o200k.table";');
    const routes = new Map<string, (req: unknown, res: unknown) => void>();
    hook(plugin, 'configureServer')({ middlewares: { use: (path: string, handler: (req: unknown, res: unknown) => void) => routes.set(path, handler) } });
    const headers = new Map<string, string>();
    let body: Uint8Array | undefined;
    routes.get('/@o200k.table')!({}, { setHeader: (k: string, v: string) => headers.set(k, v), end: (b: Uint8Array) => (body = b) });
    expect(headers.get('Content-Type')).toBe('application/octet-stream');
    expect(tableCounter(tableFromBuffer(body!))('hello world, Grüße 🎉')).toBe(countTokens('hello world, Grüße 🎉'));
  });
});
