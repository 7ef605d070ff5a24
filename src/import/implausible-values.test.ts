// Implausible values (issue 17, minor): token counts like 1e32 and ids made from 1e999 import with a warning.
import { describe, expect, it } from 'vitest';
import { exportSession } from '../export/native.ts';
import { makeRun } from '../testing/test-runs.ts';
import { implausibleTokenCount, notFiniteId } from './implausible-values.ts';
import { importText } from './index.ts';

describe('the rule', () => {
  it('flags token counts that are not finite, negative or above 10^15', () => {
    expect([1e32, Infinity, NaN, -1, 1e15 + 1].map(implausibleTokenCount)).toEqual([true, true, true, true, true]);
    expect([0, 12, 1e15, 3_000_000].map(implausibleTokenCount)).toEqual([false, false, false, false]);
  });

  it('flags ids spelling a number that is not finite, whole or as a separated part', () => {
    expect(['tau-Infinity', 'NaN', '-Infinity', 'run:NaN:s0', 'x_Infinity'].map(notFiniteId)).toEqual([true, true, true, true, true]);
    expect(['InfinityWar', 'tau-12', 'nano', 'NaNa', 'banana'].map(notFiniteId)).toEqual([false, false, false, false, false]);
  });
});

describe('through the importers', () => {
  it('a tau-bench task_id of 1e999 gives the run id tau-Infinity, imported with a warning', () => {
    const text = '[{"task_id": 1e999, "reward": 0, "info": {}, "traj": [{"role":"system","content":"s"},{"role":"user","content":"hi"},{"role":"assistant","content":"ok"}], "trial": 0}]';
    const r = importText('tau.json', text);
    expect(r.runs.map((run) => run.id)).toEqual(['tau-Infinity']);
    expect(r.warnings).toContainEqual(expect.stringMatching(/^\d+ ids spell a number that is not finite \(first: run id "tau-Infinity"\)/));
  });

  it('a token count of 1e32 is kept and flagged once, with the step', () => {
    const doc = JSON.parse(exportSession({ runs: [makeRun('r1')] })) as { runs: { steps: { usage?: Record<string, number> }[] }[] };
    doc.runs[0].steps[1].usage = { input: 1e32, output: 5, total: 1e32 };
    const r = importText('big.session.json', JSON.stringify(doc));
    expect(r.runs[0].steps[1].usage?.input).toBe(1e32);
    expect(r.warnings).toEqual(['2 token counts are not a finite number between 0 and 10^15 (first: step "r1:s1" input = 1e+32); kept as recorded, totals will be wrong']);
  });

  it('each of the four counts is looked at, the cached one too', () => {
    for (const key of ['input', 'output', 'total', 'cached'] as const) {
      const doc = JSON.parse(exportSession({ runs: [makeRun('r1')] })) as { runs: { steps: { usage?: Record<string, number> }[] }[] };
      doc.runs[0].steps[1].usage = { input: 3, output: 5, total: 8, [key]: -1 };
      const r = importText('neg.session.json', JSON.stringify(doc));
      expect(r.warnings, key).toEqual([`1 token count is not a finite number between 0 and 10^15 (first: step "r1:s1" ${key} = -1); kept as recorded, totals will be wrong`]);
    }
  });

  it('an ordinary file gets no such warning', () => {
    expect(importText('ok.session.json', exportSession({ runs: [makeRun('r1')] })).warnings).toEqual([]);
  });
});
