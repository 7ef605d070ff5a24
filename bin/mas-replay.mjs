#!/usr/bin/env node
// The command line. Runs the bundle built on install (dist-cli/mas-replay.mjs, ADR 0018) in this process when it is
// current; otherwise the TypeScript sources through tsx, with a note on stderr, so it works in any state of the tree.
//   MAS_REPLAY_CLI=bundle|tsx   force one path (bundle: fail when it is not current)
//   MAS_REPLAY_CLI_DEBUG=1      print the path taken on stderr
//   MAS_REPLAY_CLI_NOTE=off     no note when falling back to tsx (tests)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLE, bundleState } from './cli-bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const want = process.env.MAS_REPLAY_CLI;
const state = want === 'tsx' ? { current: false, reason: 'MAS_REPLAY_CLI=tsx' } : bundleState(root);
const debug = (path) => process.env.MAS_REPLAY_CLI_DEBUG && process.stderr.write(`mas-replay: ${path}\n`);

if (state.current) {
  debug(`bundle ${BUNDLE}`);
  await import(pathToFileURL(join(root, BUNDLE)).href);
} else if (want === 'bundle') {
  process.stderr.write(`error: internal: ${state.reason}; run \`node scripts/build-cli.mjs\`\n`);
  process.exit(1);
} else {
  debug('tsx src/cli/main.ts');
  if (want !== 'tsx' && process.env.MAS_REPLAY_CLI_NOTE !== 'off')
    process.stderr.write(`note: ${state.reason}; running the sources through tsx (slower start). \`node scripts/build-cli.mjs\` rebuilds it.\n`);
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  const result = spawnSync(process.execPath, [tsx, join(root, 'src/cli/main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
