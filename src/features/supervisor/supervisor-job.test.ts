import { describe, expect, it } from 'vitest';
import { testIntervention as iv } from '../../testing/test-runs.ts';
import type { Run } from '../../model/types.ts';
import { supervisorInterventions, tokensOf } from './supervisor-job.ts';

describe('supervisor job bookkeeping', () => {
  it("counts only the supervisor's interventions and their tokens", () => {
    const r = { id: 'run', interventions: [iv('a', 'supervisor', 10), iv('h', 'human', 99), iv('b', 'supervisor'), iv('c', 'supervisor', 3)] } as unknown as Run;
    const mine = supervisorInterventions(r);
    expect(mine.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(tokensOf(mine)).toBe(13);
  });
});
