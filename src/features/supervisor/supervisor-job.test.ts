import { describe, expect, it } from 'vitest';
import type { Intervention, Run } from '../../model/types.ts';
import { supervisorInterventions, tokensOf } from './supervisor-job.ts';

const iv = (id: string, engine: Intervention['engine'], total?: number): Intervention => ({
  id,
  engine,
  stepId: id,
  action: 'approve',
  reason: 'r',
  heuristic: total === undefined,
  ...(total !== undefined ? { tokens: { input: total, output: 0, total } } : {}),
});

describe('supervisor job bookkeeping', () => {
  it("counts only the supervisor's interventions and their tokens", () => {
    const r = { id: 'run', interventions: [iv('a', 'supervisor', 10), iv('h', 'human', 99), iv('b', 'supervisor'), iv('c', 'supervisor', 3)] } as unknown as Run;
    const mine = supervisorInterventions(r);
    expect(mine.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(tokensOf(mine)).toBe(13);
  });
});
