#!/usr/bin/env node
// `npm start`: build the studio and serve it on 127.0.0.1, opened on the bundled samples. Works offline.
import { spawn, spawnSync } from 'node:child_process';

const port = process.env.PORT ?? '5173';
const build = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
console.log(`\nMAS Replay Studio: http://127.0.0.1:${port}/?samples=1  (Ctrl+C to stop)`);
console.log(`Send live traces (OTLP/HTTP, protobuf or JSON) with OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${port}`);
if (process.env.MAS_REPLAY_OTLP_TOKEN) console.log('  …and OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <MAS_REPLAY_OTLP_TOKEN>" (a token is required)');
console.log('');
const server = spawn(process.execPath, ['node_modules/vite/bin/vite.js', 'preview', '--port', port, '--strictPort'], { stdio: 'inherit' });
server.on('exit', (code) => process.exit(code ?? 0));
