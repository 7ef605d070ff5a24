import { describe, expect, it } from 'vitest';
import { stepNumbersById } from './steps.ts';
import type { Step } from './types.ts';

const step = (id: string, index: number, parentStepId?: string, number?: number): Step => ({ id, index, kind: 'message', agentId: 'a', parentStepId, number });

describe('stepNumbersById', () => {
  it('numbers the rows of the step list from 1, ignores the source numbering, and gives nested steps their row', () => {
    // The source numbers its turns from 0; the step list does not.
    const steps = [step('s0', 0, undefined, 0), step('s0c', 1, 's0'), step('s0cc', 2, 's0c'), step('s1', 3, undefined, 1), step('s2', 4, undefined, 2)];
    const numbers = stepNumbersById({ steps });
    expect([...numbers]).toEqual([
      ['s0', 1],
      ['s1', 2],
      ['s2', 3],
      ['s0c', 1],
      ['s0cc', 1],
    ]);
  });
});
