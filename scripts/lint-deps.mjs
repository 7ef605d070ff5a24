#!/usr/bin/env node
// `npm run lint:deps`: the rooms' import rules (.dependency-cruiser.cjs: which room may import which, no cycles) and
// the engines compiled without the DOM library (tsconfig.engine.json). Any violation fails: there is no list of
// accepted ones. A rule that is wrong is changed in .dependency-cruiser.cjs, with its reason, not worked around.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const DEPCRUISE = 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs';
let failed = false;

function run(label, args) {
  console.log(`lint:deps: ${label}`);
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}

if (!existsSync(DEPCRUISE)) {
  console.error(`lint:deps: ${DEPCRUISE} is missing (npm install adds dependency-cruiser, a devDependency)`);
  failed = true;
} else {
  run('import rules', [DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err']);
}
run('engines without the DOM', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.engine.json']);
process.exit(failed ? 1 : 0);
