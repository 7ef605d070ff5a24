#!/usr/bin/env node
// Installs whatever a fresh machine is missing, using only Node's standard library (it runs before npm deps exist).
//   node scripts/setup.mjs            npm dependencies and the CLI bundle (when missing or stale)
//   node scripts/setup.mjs --browser  npm dependencies and Chromium (Debian package) for the e2e tests
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { bundleState } from '../bin/cli-bundle.mjs';

function run(cmd) {
  console.log(`setup: ${cmd}`);
  execSync(cmd, { stdio: 'inherit' });
}

function dependenciesCurrent() {
  const installed = 'node_modules/.package-lock.json';
  if (!existsSync(installed)) return false;
  try {
    const want = JSON.parse(readFileSync('package-lock.json', 'utf8')).packages ?? {};
    const have = JSON.parse(readFileSync(installed, 'utf8')).packages ?? {};
    return Object.entries(want).every(([path, meta]) => path === '' || meta.optional || have[path]?.version === meta.version);
  } catch {
    return false;
  }
}

if (!dependenciesCurrent()) run('npm ci --no-audit --no-fund');
// The CLI bundle (ADR 0018): `npm ci` builds it through `prepare`; rebuilt here when sources changed since.
if (!bundleState(process.cwd()).current) run('node scripts/build-cli.mjs');

if (process.argv.includes('--browser')) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    if (process.getuid?.() !== 0) {
      console.error(`setup: ${chromium} is missing; install Debian's chromium package (sudo apt-get install chromium) or set CHROMIUM_PATH.`);
      process.exit(1);
    }
    run('apt-get update -qq');
    run('DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium');
  }
}
