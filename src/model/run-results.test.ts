// Results sent together go into their run as they would have one by one (src/store/job-store.ts keeps them so).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeRun } from '../testing/test-runs.ts';
import type { Intervention, Stage } from './types.ts';
import { withIntervention, withInterventions, withStage, withStages } from './run-results.ts';

const iv = (id: string, tag: number): Intervention => ({ id, engine: 'rectifier', action: 'passed', reason: `r${tag}`, heuristic: false });
const stage = (id: string, index: number, tag: number): Stage => ({ id, index, subtasks: [], layers: [], note: `n${tag}` }) as unknown as Stage;

describe('withInterventions / withStages', () => {
  const id = fc.constantFrom('a', 'b', 'c', 'd');
  it('equal adding the results one at a time, repeated ids and ones already on the run included (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 4 }), fc.array(fc.tuple(id, fc.nat(3)), { maxLength: 12 }), (existing, batch) => {
        const run = makeRun('r', { interventions: [...new Set(existing)].map((x, i) => iv(x, -i - 1)) } as never);
        const ivs = batch.map(([x], k) => iv(x, k));
        expect(withInterventions(run, ivs)).toEqual(ivs.reduce(withIntervention, run));
        const withExisting = makeRun('r', { stages: [...new Set(existing)].map((x, i) => stage(x, i % 2, -i - 1)) } as never);
        const stages = batch.map(([x, index], k) => stage(x, index, k));
        expect(withStages(withExisting, stages)).toEqual(stages.reduce(withStage, withExisting));
      }),
      { numRuns: 1000 },
    );
  });
});
