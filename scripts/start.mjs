#!/usr/bin/env node
// `npm start`: build the studio and serve it on 127.0.0.1, opened on the bundled samples. Works offline.
import { spawn, spawnSync } from 'node:child_process';

const port = process.env.PORT ?? '5173';
const build = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const token = process.env.MAS_REPLAY_OTLP_TOKEN;
// With a token, the page needs it too (for the live event stream): the link carries it in its fragment, which the
// browser never sends to a server; the page keeps it and removes it from the address bar.
const link = `http://127.0.0.1:${port}/?samples=1${token ? `#otlp-token=${encodeURIComponent(token)}` : ''}`;
console.log(`\nMAS Replay Studio: ${link}  (Ctrl+C to stop)`);
console.log(`Send live traces (OTLP/HTTP, protobuf or JSON) with OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${port}`);
if (token) console.log('  …and OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <MAS_REPLAY_OTLP_TOKEN>" (a token is required; open the link above once so the page has it)');
console.log('');
const server = spawn(process.execPath, ['node_modules/vite/bin/vite.js', 'preview', '--port', port, '--strictPort'], { stdio: 'inherit' });
server.on('exit', (code) => process.exit(code ?? 0));
