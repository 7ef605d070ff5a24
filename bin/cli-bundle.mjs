// Whether the CLI bundle (dist-cli/, built by scripts/build-cli.mjs) is there and current: built after the last
// change to every source it was built from (dist-cli/inputs.json) and to package-lock.json. A few hundred stats.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const BUNDLE = 'dist-cli/mas-replay.mjs';

/** `{ current: true }`, or `{ current: false, reason }` in words for the note on stderr. */
export function bundleState(root) {
  let meta;
  try {
    statSync(join(root, BUNDLE));
    meta = JSON.parse(readFileSync(join(root, 'dist-cli/inputs.json'), 'utf8'));
  } catch {
    return { current: false, reason: 'the CLI bundle is not built' };
  }
  for (const input of meta.inputs ?? []) {
    let mtime;
    try {
      mtime = statSync(join(root, input)).mtimeMs;
    } catch {
      return { current: false, reason: `the CLI bundle is stale (${input} is gone)` };
    }
    if (mtime > meta.builtAt) return { current: false, reason: `the CLI bundle is stale (${input} changed since it was built)` };
  }
  return { current: true };
}
