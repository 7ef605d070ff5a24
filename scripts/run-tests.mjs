#!/usr/bin/env node
// `npm test`: typecheck, import rules (lint:deps), unit tests (Vitest), production build, e2e tests (Playwright in
// Chromium).
// Every stage runs even if an earlier one failed, so one run shows everything that is wrong. The last line is the
// total CI reads: `total: N passed, N failed` (a stage that fails without a counted failure counts as one).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

mkdirSync('reports', { recursive: true });
let passed = 0;
let failed = 0;
const lines = [];

function stage(name, cmd, args, countFromReport) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const result = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  const counts = countFromReport?.() ?? { passed: result.status === 0 ? 1 : 0, failed: result.status === 0 ? 0 : 1 };
  if (result.status !== 0 && counts.failed === 0) counts.failed = 1;
  passed += counts.passed;
  failed += counts.failed;
  lines.push(`${name}: ${counts.passed} passed, ${counts.failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

const node = process.execPath;
stage('typecheck', node, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
stage('lint:deps', node, ['scripts/lint-deps.mjs']);

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

stage('build', node, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn']);

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
