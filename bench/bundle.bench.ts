// SPEC §8, first load: the JS shipped before first paint, gzipped, must be ≤ 250 KB, and the tokenizer and the heavy
// views must load lazily. "Before first paint" = the entry chunk of index.html and every chunk it imports statically
// (transitively), read from Vite's build manifest; dynamic imports and workers are not in it.
//
//   npm run bench:bundle                 builds the app (with a manifest) into a private directory, then measures
//   BENCH_DIST=<dir> tsx bench/bundle.bench.ts   uses an existing build made with `--manifest`
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildApp } from './browser-import.bench.ts';
import { writeResults, type Figure } from './results.ts';

const BUDGET_KB = 250;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

/**
 * Modules that must load lazily (SPEC §8: tokenizers and heavy views): each must be a dynamic entry of its own that
 * the first-paint chunks do not import. A module imported statically would be bundled into the entry instead and
 * have no manifest entry, which fails the check too. Add a new heavy view's page here.
 */
const LAZY = [
  { what: 'run view', src: 'src/features/run-view/run-page.tsx' },
  { what: 'compare view', src: 'src/features/compare/compare-page.tsx' },
  { what: 'corpus view', src: 'src/features/corpus/corpus-page.tsx' },
  { what: 'engines view', src: 'src/features/supervisor/engines-page.tsx' },
  // Made in the export worker since ADR 0063: no page chunk holds it, and zod's mark is not in the first-paint text.
  { what: 'native exporter (zod)', src: 'src/export/native.ts', worker: 'export.worker' },
  { what: 'model schema (zod)', src: 'src/model/schema.ts' },
];
/** Text only zod's code carries (as e2e/first-paint-js reads it). */
const ZOD_MARK = 'ZodError';
/** Text only the tokenizer's data carries: it must not be in the first-paint JS. */
const TOKENIZER_MARK = '<|endoftext|>';

export function firstPaintChunks(manifest: Record<string, ManifestChunk>): string[] {
  const entry = Object.entries(manifest).find(([key, c]) => c.isEntry && key.endsWith('index.html'));
  if (!entry) throw new Error('the manifest has no index.html entry');
  const seen = new Set<string>();
  const walk = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const k of manifest[key]?.imports ?? []) walk(k);
  };
  walk(entry[0]);
  return [...seen];
}

export function measureBundle(dist: string): { figures: Figure[]; details: Record<string, unknown> } {
  const manifestPath = join(dist, '.vite', 'manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`${manifestPath} is missing: build with --manifest`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, ManifestChunk>;
  const keys = firstPaintChunks(manifest);
  const chunks = keys.map((key) => {
    const bytes = readFileSync(join(dist, manifest[key].file));
    return { key, file: manifest[key].file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const gzipKb = chunks.reduce((n, c) => n + c.gzip, 0) / 1024;
  // A chunk's manifest key names its source (facade) module; a lazily loaded module is its own dynamic entry. The
  // chunk texts are checked too, for modules bundled into a first-paint chunk under another name.
  const firstPaintText = chunks.map((c) => readFileSync(join(dist, c.file), 'utf8')).join('\n');
  const inWorker = (l: (typeof LAZY)[number]) =>
    'worker' in l && manifest[l.src] === undefined && readdirSync(join(dist, 'assets')).some((f) => f.startsWith(`${l.worker}-`)) && !firstPaintText.includes(ZOD_MARK);
  const eager = LAZY.filter((l) => (!manifest[l.src]?.isDynamicEntry && !inWorker(l)) || keys.includes(l.src));
  const tokenizerInline = firstPaintText.includes(TOKENIZER_MARK) || keys.some((k) => k.includes('gpt-tokenizer'));
  const lazyOk = eager.length === 0 && !tokenizerInline;
  const dynamic = Object.entries(manifest)
    .filter(([, c]) => c.isDynamicEntry)
    .map(([key, c]) => ({ key, file: c.file, gzip: gzipSync(readFileSync(join(dist, c.file)), { level: 9 }).length }));
  return {
    figures: [
      { name: 'JS before first paint (entry chunk and its static imports), gzip', value: gzipKb, unit: 'KB', target: `≤ ${BUDGET_KB} KB`, pass: gzipKb <= BUDGET_KB, note: chunks.map((c) => `${c.file} ${(c.gzip / 1024).toFixed(1)} KB`).join(', ') },
      {
        name: 'tokenizer and heavy views (run, compare, corpus, engines) outside the first-paint JS',
        value: eager.length + (tokenizerInline ? 1 : 0),
        unit: 'modules loaded eagerly',
        target: '0',
        pass: lazyOk,
        note: lazyOk ? 'all load on first use' : `eager: ${[...eager.map((e) => e.what), ...(tokenizerInline ? ['tokenizer data inlined'] : [])].join(', ')}`,
      },
    ],
    details: { firstPaint: chunks, lazyChunks: dynamic },
  };
}

function main(): void {
  const tmp = process.env.BENCH_DIST ? undefined : mkdtempSync(join(tmpdir(), 'mas-bench-bundle-'));
  try {
    const dist = process.env.BENCH_DIST ?? join(tmp!, 'dist');
    if (tmp) {
      console.log(`building the app into ${dist} …`);
      buildApp(dist);
    }
    const { figures, details } = measureBundle(dist);
    console.log('first load (SPEC §8)');
    for (const f of figures) console.log(`  ${f.name}: ${f.value.toFixed(f.unit === 'KB' ? 1 : 0)} ${f.unit} — target ${f.target}: ${f.pass ? 'met' : 'NOT met'}${f.note ? `\n    ${f.note}` : ''}`);
    writeResults('bundle', figures, details);
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
