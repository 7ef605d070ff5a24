// `inspect`'s text output names a loop's steps in a line a person can read, however long the loop (`--json` keeps
// every number, SPEC §7).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { runCli } from '../testing/run-cli.ts';
import { stepList } from './inspect.ts';

describe('stepList', () => {
  it('writes consecutive steps as a range and lone steps as numbers', () => {
    expect(stepList([18, 19, 20, 21])).toBe('steps 18–21');
    expect(stepList([3, 4, 9, 12, 13, 14])).toBe('steps 3, 4, 9, 12–14');
    expect(stepList([7])).toBe('step 7');
    expect(stepList([])).toBe('no steps');
  });

  it('stops after twelve pieces and says how many steps are left and the last one', () => {
    const everyOther = Array.from({ length: 500 }, (_, i) => 2 * i + 1);
    expect(stepList(everyOther)).toBe('steps 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23 and 488 more to step 999 (500 in all)');
  });

  it('writes a million consecutive steps in a few characters', () => {
    const steps = Array.from({ length: 1_000_000 }, (_, i) => i + 1);
    expect(stepList(steps)).toBe('steps 1–1000000');
  });
});

describe.skipIf(!HAVE_SHARED)(`inspect's loop line on a real trace (${HAVE_SHARED ? '' : SKIP_REASON})`, () => {
  it('TRAIL b1f9b9ba: find_archived_url ×4 at steps 18–21', () => {
    const r = runCli(['inspect', join(SHARED_TRACES, 'trail/gaia/b1f9b9baefa4c69d1d848e35c130e29d.json')]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/loop \(search_agent\): find_archived_url\(.*\) ×4 at steps 18–21, \d+ tokens/);
  });
});
