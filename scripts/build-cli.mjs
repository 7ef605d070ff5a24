#!/usr/bin/env node
// Builds the command line into one ESM bundle, dist-cli/mas-replay.mjs (gitignored), so a command starts without
// compiling TypeScript (ADR 0018). Runs from `prepare` (after `npm ci` / `npm install`) and from scripts/setup.mjs
// when the bundle is missing or stale; bin/mas-replay.mjs uses it when current and falls back to tsx otherwise.
//   node scripts/build-cli.mjs           build
//   node scripts/build-cli.mjs --if-stale  build only when missing or older than one of its inputs
//   node scripts/build-cli.mjs --outdir D  build into D instead of dist-cli (tests)
// dist-cli/inputs.json lists the bundle's inputs (sources and package-lock.json) for the staleness check.
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleState } from '../bin/cli-bundle.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--outdir');
const OUT = at === -1 ? join(ROOT, 'dist-cli') : resolve(process.argv[at + 1]);
// Built beside and moved into place whole, so a command started meanwhile finds the old bundle, or none (then tsx).
const TMP = `${OUT}.tmp-${process.pid}`;

if (process.argv.includes('--if-stale') && bundleState(ROOT).current) process.exit(0);

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // Never fail an install over this: the bin runs the sources through tsx instead.
  console.warn('build-cli: esbuild is not installed; the CLI will run through tsx (slower start-up)');
  process.exit(0);
}

/** An esbuild plugin that resolves `module` (a path from the root) to `standIn` wherever it is imported from. */
function swapped(name, module, standIn) {
  const base = module.split('/').pop().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    name,
    setup(build) {
      build.onResolve({ filter: new RegExp(`/${base}$`) }, (args) => {
        const path = resolve(args.resolveDir, args.path);
        return path === join(ROOT, module) ? { path: join(ROOT, standIn) } : undefined;
      });
    },
  };
}

/** The importers' token counter, swapped for the CLI's lazy one (src/cli/tokens-lazy.ts). */
const lazyTokens = swapped('lazy-tokens', 'src/import/tokens.ts', 'src/cli/tokens-lazy.ts');

/**
 * The native importer's schemas, swapped for the CLI's lazy ones (src/cli/schema-lazy.ts, ADR 0048): zod is in
 * schema.cjs, built apart below and required on the first session read. Any other import of them would fail this
 * build (the stand-in has no other export), so none can bring zod back into the bundle unseen.
 */
const lazySchema = swapped('lazy-schema', 'src/model/schema.ts', 'src/cli/schema-lazy.ts');

const started = Date.now();
const result = await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: { 'mas-replay': 'src/cli/main.ts' },
  outdir: TMP,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // gpt-tokenizer: its rank file, read only when the table beside the bundle is missing (src/llm/token-table.ts). The
  // table's virtual module: the browser build's asset, never loaded in Node.
  external: ['gpt-tokenizer', 'virtual:o200k-table'],
  plugins: [lazyTokens, lazySchema],
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
  minify: true,
  sourcemap: true,
});
// zod and the schemas, CommonJS so that schema-lazy.ts can require them synchronously.
const schema = await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: ['src/model/schema.ts'],
  outfile: join(TMP, 'schema.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
  minify: true,
  sourcemap: true,
});
// The token counter's table (src/model/o200k-table.ts, ADR 0070), made from gpt-tokenizer's rank file once here, as
// the studio's build makes its asset (scripts/o200k-table-asset.ts), so that a command that estimates tokens loads it
// in a few milliseconds (src/cli/tokens-lazy.ts).
const tableModule = await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: ['scripts/o200k-table-asset.ts'],
  bundle: true,
  format: 'esm',
  platform: 'node',
  external: ['vite'],
  // Run from a data: URL below: the rank file is resolved from the module's own place in the tree, as in the plugin.
  define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(ROOT, 'scripts/o200k-table-asset.ts')).href) },
  write: false,
  logLevel: 'warning',
});
const { o200kTableBytes } = await import(`data:text/javascript;base64,${Buffer.from(tableModule.outputFiles[0].text).toString('base64')}`);
writeFileSync(join(TMP, 'o200k.table'), o200kTableBytes());
const inputs = [...new Set([...Object.keys(result.metafile.inputs), ...Object.keys(schema.metafile.inputs)])]
  .filter((p) => !p.includes('node_modules/'))
  .concat('package-lock.json', 'scripts/build-cli.mjs', 'scripts/o200k-table-asset.ts')
  .map((p) => relative(ROOT, resolve(ROOT, p)))
  .sort();
writeFileSync(join(TMP, 'inputs.json'), `${JSON.stringify({ builtAt: started, inputs }, null, 1)}\n`);
rmSync(OUT, { recursive: true, force: true });
renameSync(TMP, OUT);
const kb = [...Object.entries(result.metafile.outputs), ...Object.entries(schema.metafile.outputs)].reduce((n, [path, o]) => (path.endsWith('.map') ? n : n + o.bytes), 0) / 1024;
console.log(`build-cli: ${relative(ROOT, join(OUT, 'mas-replay.mjs'))} from ${inputs.length} inputs, ${kb.toFixed(0)} KB, ${Date.now() - started} ms`);
if (!existsSync(join(OUT, 'mas-replay.mjs'))) process.exit(1);
