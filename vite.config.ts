/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vite';
import { llmProxy } from './scripts/llm-proxy.ts';
import { o200kTableAsset } from './scripts/o200k-table-asset.ts';
import { otlpReceiver } from './scripts/otlp-receiver.ts';
import { contentSecurityPolicy, studioHeaders } from './scripts/studio-headers.ts';

const TEST_FILES = ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test-server/**/*.test.ts', 'scripts/**/*.test.ts'];
// Read only when Vitest loads this config (a few ms), not for a build or the dev server.
const ISOLATED = process.env.VITEST ? testFilesOnDisk().filter((f) => needsIsolation(readFileSync(f, 'utf8'))) : [];

export default defineConfig({
  // The strict CSP (SPEC §9) as a meta tag in the build, and as headers with frame-ancestors 'none' from both servers;
  // the OTLP/HTTP receiver (POST /v1/traces, issue 19) on both servers too.
  // The token counter's table, an asset of its own (ADR 0070): in the worker bundles, which are built apart.
  plugins: [react(), tailwindcss(), contentSecurityPolicy(), studioHeaders(), otlpReceiver(), o200kTableAsset()],
  worker: { format: 'es', plugins: () => [o200kTableAsset()] },
  server: { host: '127.0.0.1', proxy: llmProxy() },
  preview: { host: '127.0.0.1', proxy: llmProxy() },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    // One worker per core: Vitest's default leaves one core to its main process, which on a 2-core machine ran the
    // whole suite in one worker (286 s; 181 s with two). The main process only collects results.
    maxWorkers: availableParallelism(),
    // Two projects, the same files in all. A file that only imports modules and calls them shares its worker's module
    // graph with the files run before it there (isolate: false): each worker loads src/import, src/model, zod, … once
    // instead of once per file, which was about a third of the suite's CPU time (2 cores: 377 → 273 CPU-s). A file
    // that touches anything global (a DOM environment, vi.mock, stubbed globals or spies, fake IndexedDB, a zustand
    // store, process.env) keeps a fresh module graph of its own, found by reading it (needsIsolation below), so a new
    // test that does such things is isolated without anyone listing it.
    projects: [
      { extends: true, test: { name: 'shared', include: TEST_FILES, exclude: ISOLATED, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});

/** What makes a test file change state that outlives it in its worker: it then runs with a module graph of its own. */
function needsIsolation(source: string): boolean {
  return /@vitest-environment|\bvi\.(mock|doMock|unmock|hoisted|stubGlobal|stubEnv|spyOn|useFakeTimers|setSystemTime|resetModules)\b|fake-indexeddb|\.setState\(|\buse[A-Z]\w*\.getState\(|\b(globalThis|window|document|navigator|localStorage|sessionStorage|indexedDB)\.|\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env|process\.chdir/.test(
    source,
  );
}

function testFilesOnDisk(): string[] {
  const out: string[] = [];
  for (const dir of ['src', 'test-server', 'scripts'])
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) if (/\.test\.tsx?$/.test(f) && !(dir !== 'src' && f.endsWith('.tsx'))) out.push(`${dir}/${f.replaceAll('\\', '/')}`);
  return out.sort();
}
