// `inspect --json` on the benchmark's result files: per run `scores {exact_match, contains}` and `duration_s`
// (SPEC §7), checked against the raw lines.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, SKIP_REASON, sharedFiles } from '../testing/fixture-kit.ts';
import { runCliAsync } from '../testing/run-cli.ts';

const RESULT_FILES = sharedFiles('smolagents-bus').filter((p) => !p.includes('/runs/'));

describe.skipIf(!HAVE_SHARED)(`inspect on result files (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('adds scores and duration_s to every run, and nothing of the kind to runs of other files', async () => {
    const [gaia] = RESULT_FILES;
    const busRun = sharedFiles('smolagents-bus/runs')[0];
    const r = await runCliAsync('inspect', [gaia, busRun, '--json']);
    expect(r.status).toBe(0);
    const [results, bus] = JSON.parse(r.stdout).files;
    const lines = readFileSync(gaia, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
    expect(results.runs).toHaveLength(lines.length);
    results.runs.forEach((run: { scores: { exact_match: number; contains: number }; duration_s: number; outcome: string }, i: number) => {
      expect(Object.keys(run.scores)).toEqual(['exact_match', 'contains']);
      expect([0, 1]).toContain(run.scores.exact_match);
      expect([0, 1]).toContain(run.scores.contains);
      expect(run.duration_s).toBe(lines[i].duration);
      expect(run.outcome).toBe(run.scores.exact_match === 1 ? 'success' : 'failure');
    });
    expect(results.runs.reduce((n: number, x: { scores: { exact_match: number } }) => n + x.scores.exact_match, 0)).toBe(4);
    expect(results.runs.reduce((n: number, x: { scores: { contains: number } }) => n + x.scores.contains, 0)).toBe(17);
    expect(bus.runs[0].scores).toBeUndefined();
    expect(bus.runs[0].duration_s).toBeUndefined();
  });
});
