#!/usr/bin/env node
// `npm test`: typecheck, import rules (lint:deps), production build, unit tests (Vitest), e2e tests (Playwright in
// Chromium).
// Every stage runs even if an earlier one failed, so one run shows everything that is wrong. The last line is the
// total CI reads: `total: N passed, N failed` (a stage that fails without a counted failure counts as one).
// The typecheck, the import rules and the build run side by side (tsc and dependency-cruiser use one core each, the
// build a few seconds, and none reads what another writes: 33 + 12 + 5 s one after another on two cores); each one's
// output is printed whole when it ends, in that order.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

mkdirSync('reports', { recursive: true });
let passed = 0;
let failed = 0;
const lines = [];

function stage(name, cmd, args, countFromReport) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const result = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  record(name, result.status, (Date.now() - started) / 1000, countFromReport);
}

function record(name, status, seconds, countFromReport, note = '') {
  const counts = countFromReport?.() ?? { passed: status === 0 ? 1 : 0, failed: status === 0 ? 0 : 1 };
  if (status !== 0 && counts.failed === 0) counts.failed = 1;
  passed += counts.passed;
  failed += counts.failed;
  lines.push(`${name}: ${counts.passed} passed, ${counts.failed} failed (${seconds.toFixed(1)} s${note})`);
}

/** Stages without counts run side by side; each is reported as `stage` reports it, in the order given. */
async function sideBySide(stages) {
  const started = Date.now();
  const runs = stages.map(({ name, cmd, args }) => {
    const output = [];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    child.stdout.on('data', (c) => output.push(c));
    child.stderr.on('data', (c) => output.push(c));
    return new Promise((done) => {
      child.on('error', (e) => done({ name, cmd, args, status: 1, output: [Buffer.from(`${e.message}\n`)], ended: Date.now() }));
      child.on('close', (status) => done({ name, cmd, args, status, output, ended: Date.now() }));
    });
  });
  for (const run of runs) {
    const { name, cmd, args, status, output, ended } = await run;
    console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
    process.stdout.write(Buffer.concat(output));
    const others = stages.map((s) => s.name).filter((n) => n !== name);
    record(name, status, (ended - started) / 1000, undefined, `, beside ${others.join(' and ')}`);
  }
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

const node = process.execPath;
await sideBySide([
  { name: 'typecheck', cmd: node, args: ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'] },
  { name: 'lint:deps', cmd: node, args: ['scripts/lint-deps.mjs'] },
  { name: 'build', cmd: node, args: ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'] },
]);

rmSync('reports/vitest.json', { force: true });
stage('unit', node, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=reports/vitest.json'], () => {
  const r = readJson('reports/vitest.json');
  return r ? { passed: r.numPassedTests ?? 0, failed: (r.numFailedTests ?? 0) + countFilesFailedOnTheirOwn(r) } : undefined;
});

function countFilesFailedOnTheirOwn(r) {
  // A test file that failed without a failed test (it did not load, a hook threw) counts once. Vitest's
  // numFailedTestSuites is no help here: it counts every describe block above a failed test too, so one failed test
  // inside a describe was reported as two failures.
  return (r.testResults ?? []).filter((s) => s.status === 'failed' && !(s.assertionResults ?? []).some((a) => a.status === 'failed')).length;
}

if (existsSync('dist/index.html')) {
  rmSync('reports/playwright.json', { force: true });
  stage('e2e', node, ['node_modules/@playwright/test/cli.js', 'test'], () => {
    const r = readJson('reports/playwright.json');
    if (!r?.stats) return undefined;
    return { passed: (r.stats.expected ?? 0) + (r.stats.flaky ?? 0), failed: r.stats.unexpected ?? 0 };
  });
} else {
  lines.push('e2e: not run (the build failed)');
  failed += 1;
}

const total = `total: ${passed} passed, ${failed} failed`;
writeFileSync('reports/summary.txt', `${lines.join('\n')}\n${total}\n`);
console.log(`\n${lines.join('\n')}\n${total}`);
process.exit(failed === 0 ? 0 : 1);
