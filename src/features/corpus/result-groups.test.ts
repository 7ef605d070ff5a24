import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { importText } from '../../import/index.ts';
import type { Run } from '../../model/types.ts';
import { resultGroups } from './result-groups.ts';

const RESULT_FILES = sharedFiles('smolagents-bus').filter((p) => !p.includes('/runs/'));

describe('result groups', () => {
  it('counts exact match, contains and duration per configuration, with n on each', () => {
    const run = (id: string, source: string, exactMatch: 0 | 1, contains: 0 | 1, durationS?: number): Run => ({
      ...makeRun(id),
      tags: { dataset: source },
      benchmark: { source: 'benchmark', rule: 'x', exactMatch, contains, ...(durationS === undefined ? {} : { durationS }) },
    });
    const runs = [run('a', 'gaia', 1, 1, 10), run('b', 'gaia', 0, 1), run('c', 'math', 0, 0, 4), makeRun('no-result')];
    const groups = resultGroups(runs, 'source', () => undefined);
    expect(groups.map((g) => [g.group, g.n, g.exactMatch, g.contains, g.durationN, g.meanDurationS])).toEqual([
      ['gaia', 2, 1, 2, 1, 10],
      ['math', 1, 0, 0, 1, 4],
    ]);
    expect(groups[0].exactMatchRate).toBe(0.5);
  });

  // Issue 15: a file's totals equal what the benchmark publishes for it (gaia 63 tasks / 4 exact / 17 contains,
  // math 100 / 16 / 53), counted here through the import and the grouping by file.
  it.skipIf(!HAVE_SHARED)(`the shared result files total as published (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, async () => {
    const runs: Run[] = [];
    const fileOf = new Map<string, string>();
    for (const path of RESULT_FILES) {
      const imported = importText(basename(path), readFileSync(path, "utf8"));
      for (const r of imported.runs) fileOf.set(r.id, basename(path).includes('__gaia__') ? 'gaia' : 'math');
      runs.push(...imported.runs);
    }
    const groups = resultGroups(runs, 'file', (id) => fileOf.get(id));
    expect(groups.map((g) => [g.group, g.n, g.exactMatch, g.contains])).toEqual([
      ['gaia', 63, 4, 17],
      ['math', 100, 16, 53],
    ]);
    for (const g of groups) expect(g.durationN).toBe(g.n);
  });
});
