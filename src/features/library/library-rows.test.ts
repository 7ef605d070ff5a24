// A Library row's figures are the model's: its duration is the corpus' (one notion, counted in one place).
import { describe, expect, it } from 'vitest';
import { runMetrics } from '../../model/statistics.ts';
import { recordOf } from '../../model/record.ts';
import type { Run } from '../../model/types.ts';
import { makeRun } from '../../testing/test-runs.ts';
import type { LibraryFile } from '../../store/library.ts';
import { buildRows } from './library-rows.ts';

const file = (runIds: string[]): LibraryFile => ({ id: 'f', name: 'f.json', format: 'native', formatLabel: 'Native', runIds, addedAt: 0, simulated: false, warnings: [] });

describe('buildRows', () => {
  it('gives each run the duration the corpus reads: its own times, else the span of its steps, else none', () => {
    const timed = (id: string, patch: Partial<Run>): Run => {
      const run = makeRun(id, patch);
      run.steps[0] = { ...run.steps[0], startTime: 1_000, endTime: 4_000 };
      run.steps[1] = { ...run.steps[1], startTime: 1_200, endTime: 6_500 };
      return run;
    };
    const runs = [timed('own', { startTime: 0, endTime: 10_000 }), timed('steps', {}), timed('backwards', { startTime: 9_000, endTime: 1_000 }), makeRun('none')];
    const rows = buildRows([file(runs.map((r) => r.id))], recordOf(Object.fromEntries(runs.map((r) => [r.id, r]))));
    expect(rows.map((r) => r.duration)).toEqual([10_000, 5_500, 5_500, undefined]);
    expect(rows.map((r) => r.duration ?? null)).toEqual(runs.map((r) => runMetrics(r).durationMs));
  });
});
