// SPEC §8, import in Chromium: the synthetic OTLP/JSON file of the Node benchmark (100k spans, ~100 MB) imported by the
// studio's real import worker (the built `import.worker-*.js`, spoken to over its comlink protocol) in headless
// Chromium, against a bare JSON.parse of the same text in the same page. Target: ≤ 1.5 ×.
//
// The worker figure is what opening the file costs a person: the bytes go in (transferred), the worker decodes,
// parses and maps them, and the runs come back to the page (structured clone). The baseline is JSON.parse of the
// already decoded text on the page's thread. Alternating pairs after one warm-up each; medians and their ratio.
//
//   npm run bench:browser-import                   builds the app into a private directory, then measures
//   BENCH_DIST=<dir> tsx bench/browser-import.bench.ts   uses an existing build
//   BENCH_SPANS=… BENCH_RUNS=…                     file size, timed pairs (default 100k spans, 3 pairs)
import { chromium } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateOtlpFile } from './gen-otlp.ts';
import { writeResults } from './results.ts';

const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const TARGET = 1.5;
const ROOT = resolve(import.meta.dirname, '..');

const MIME: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml' };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export function buildApp(outDir: string): void {
  const built = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn', '--manifest', '--outDir', outDir, '--emptyOutDir'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('vite build failed');
}

interface PageFigures {
  parseMs: number[];
  importMs: number[];
  runs: number;
  steps: number;
  failures: string[];
  decodeMs: number;
  cloneMs: number;
}

async function measure(dist: string, file: string): Promise<PageFigures> {
  const worker = readdirSync(join(dist, 'assets')).find((f) => /^import\.worker-.*\.js$/.test(f));
  if (!worker) throw new Error(`no import worker in ${dist}/assets`);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let target = path === '/bench/otlp.json' ? file : normalize(join(dist, path));
    if (target !== file && (!target.startsWith(dist) || !existsSync(target) || statSync(target).isDirectory())) target = join(dist, 'index.html');
    res.writeHead(200, { 'content-type': MIME[extname(target)] ?? 'application/octet-stream' });
    res.end(readFileSync(target));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'] });
  try {
    const page = await browser.newPage();
    // tsx keeps function names with a `__name` helper that page.evaluate bodies would otherwise miss.
    await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    await page.goto(`${base}/`);
    return await page.evaluate(
      async ({ workerUrl, runs }) => {
        const bytes = await (await fetch('/bench/otlp.json')).arrayBuffer();
        const text = new TextDecoder().decode(bytes);
        const w = new Worker(workerUrl, { type: 'module', name: 'import' });
        let nextId = 0;
        // comlink's wire protocol: APPLY a path with RAW arguments; the answer carries the same id.
        const importOnce = () =>
          new Promise<{ loaded: { runs: { steps: unknown[] }[] }[]; failures: { detail: string }[] }>((resolveCall, reject) => {
            const id = `bench-${nextId++}`;
            const copy = bytes.slice(0);
            const onMessage = (e: MessageEvent) => {
              if (e.data?.id !== id) return;
              w.removeEventListener('message', onMessage);
              if (e.data.type === 'HANDLER') reject(new Error(JSON.stringify(e.data.value)));
              else resolveCall(e.data.value);
            };
            w.addEventListener('message', onMessage);
            w.postMessage(
              { id, type: 'APPLY', path: ['importFiles'], argumentList: [{ type: 'RAW', value: [{ name: 'bench-otlp.json', bytes: copy }] }, { type: 'RAW', value: undefined }] },
              [copy],
            );
          });
        const timeIt = async (fn: () => unknown) => {
          const t0 = performance.now();
          await fn();
          return performance.now() - t0;
        };
        // Warm-up: both paths once (worker start, compilation).
        JSON.parse(text);
        const first = await importOnce();
        const parseMs: number[] = [];
        const importMs: number[] = [];
        for (let i = 0; i < runs; i++) {
          parseMs.push(await timeIt(() => JSON.parse(text)));
          importMs.push(await timeIt(importOnce));
        }
        w.terminate();
        // Where the worker's time goes, measured on this thread for scale: decoding the bytes, cloning the result.
        const decodeMs = await timeIt(() => new TextDecoder().decode(bytes));
        const cloneMs = await timeIt(() => structuredClone(first));
        return {
          parseMs,
          importMs,
          decodeMs,
          cloneMs,
          runs: first.loaded.reduce((n, f) => n + f.runs.length, 0),
          steps: first.loaded.reduce((n, f) => n + f.runs.reduce((m, r) => m + r.steps.length, 0), 0),
          failures: first.failures.map((f) => f.detail),
        };
      },
      { workerUrl: `/assets/${worker}`, runs: RUNS },
    );
  } finally {
    await browser.close();
    server.close();
  }
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'mas-bench-browser-'));
  try {
    let dist = process.env.BENCH_DIST;
    if (!dist) {
      dist = join(tmp, 'dist');
      console.log(`building the app into ${dist} …`);
      buildApp(dist);
    }
    const file = join(tmp, 'otlp.json');
    await generateOtlpFile(file, SPANS);
    const size = statSync(file).size;
    const m = await measure(resolve(dist), file);
    if (m.failures.length > 0) throw new Error(`the import failed: ${m.failures.join('; ')}`);
    const parse = median(m.parseMs);
    const imp = median(m.importMs);
    const ratio = imp / parse;
    console.log(`import in Chromium (headless, real import worker): ${SPANS.toLocaleString('en')} spans, ${(size / 1048576).toFixed(1)} MB → ${m.runs} runs, ${m.steps.toLocaleString('en')} steps`);
    console.log(`  JSON.parse in the page: median ${parse.toFixed(0)} ms (${m.parseMs.map((v) => v.toFixed(0)).join(', ')})`);
    console.log(`  import in the worker:   median ${imp.toFixed(0)} ms (${m.importMs.map((v) => v.toFixed(0)).join(', ')}), bytes in, runs back`);
    console.log(`  for scale, on the page's thread: decoding the bytes ${m.decodeMs.toFixed(0)} ms, one structured clone of the imported runs ${m.cloneMs.toFixed(0)} ms`);
    console.log(`  ratio ${ratio.toFixed(2)} — target ≤ ${TARGET}: ${ratio <= TARGET ? 'met' : 'NOT met'}`);
    writeResults(
      'browser-import',
      [
        {
          name: `import of a ${(size / 1048576).toFixed(0)} MB OTLP file in Chromium's import worker vs JSON.parse in the page`,
          value: ratio,
          unit: '×',
          target: `≤ ${TARGET} × JSON.parse`,
          pass: ratio <= TARGET,
          note: `medians of ${RUNS}: ${imp.toFixed(0)} ms vs ${parse.toFixed(0)} ms; the worker time includes decoding and handing the runs back`,
        },
      ],
      { spans: SPANS, bytes: size, runs: m.runs, steps: m.steps, parseMs: m.parseMs, importMs: m.importMs, decodeMs: m.decodeMs, cloneMs: m.cloneMs },
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
