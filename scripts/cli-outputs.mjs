#!/usr/bin/env node
// Byte-for-byte check of the command line's output across a change (issue 14, ADR 0019): runs `inspect --json` and
// `inspect` (text) on every trace file under a folder with a given CLI bundle, and either records the outputs or
// compares them with a recording. Stdout, stderr and the exit code must all match.
//   node scripts/cli-outputs.mjs record <bundle.mjs> <out-dir> [traces-dir]
//   node scripts/cli-outputs.mjs compare <bundle.mjs> <out-dir> [traces-dir]
// traces-dir defaults to ../shared/traces (every .json/.jsonl/.ndjson/.gz file in it, and the folder itself).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const [mode, bundleArg, outArg, tracesArg] = process.argv.slice(2);
if (!['record', 'compare'].includes(mode) || !bundleArg || !outArg) {
  console.error('usage: node scripts/cli-outputs.mjs record|compare <bundle.mjs> <out-dir> [traces-dir]');
  process.exit(2);
}
const bundle = resolve(bundleArg);
const out = resolve(outArg);
const traces = resolve(tracesArg ?? join(import.meta.dirname, '../../shared/traces'));

function files(dir) {
  const found = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) for (const f of files(p)) found.push(f);
    else if (/\.(json|jsonl|ndjson|gz)$/i.test(e.name)) found.push(p);
  }
  return found;
}

const cases = files(traces).flatMap((f) => [['inspect', '--json', f], ['inspect', f]]);
cases.push(['inspect', '--json', traces]);
if (mode === 'record') mkdirSync(out, { recursive: true });
let differ = 0;
for (const args of cases) {
  const r = spawnSync(process.execPath, [bundle, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, cwd: traces });
  const got = JSON.stringify({ status: r.status, stdout: r.stdout, stderr: r.stderr });
  const name = `${args.slice(0, -1).join('_')}__${relative(traces, args.at(-1)).replaceAll('/', '__') || 'ALL'}.json`;
  const path = join(out, name);
  if (mode === 'record') writeFileSync(path, got);
  else if (!existsSync(path) || readFileSync(path, 'utf8') !== got) {
    differ++;
    console.log(`DIFFERS  ${args.join(' ')}`);
  }
}
console.log(`${mode === 'record' ? 'recorded' : 'compared'} ${cases.length} outputs${mode === 'compare' ? `: ${differ} differ` : ''}`);
process.exit(differ ? 1 : 0);
