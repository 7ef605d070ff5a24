/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vite';
import { llmProxy } from './scripts/llm-proxy.ts';
import { otlpReceiver } from './scripts/otlp-receiver.ts';
import { contentSecurityPolicy, studioHeaders } from './scripts/studio-headers.ts';

export default defineConfig({
  // The strict CSP (SPEC §9) as a meta tag in the build, and as headers with frame-ancestors 'none' from both servers;
  // the OTLP/HTTP receiver (POST /v1/traces, issue 19) on both servers too.
  plugins: [react(), tailwindcss(), contentSecurityPolicy(), studioHeaders(), otlpReceiver()],
  worker: { format: 'es' },
  server: { host: '127.0.0.1', proxy: llmProxy() },
  preview: { host: '127.0.0.1', proxy: llmProxy() },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test-server/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    // One worker per core: Vitest's default leaves one core to its main process, which on a 2-core machine ran the
    // whole suite in one worker (286 s; 181 s with two). The main process only collects results.
    maxWorkers: availableParallelism(),
  },
});
