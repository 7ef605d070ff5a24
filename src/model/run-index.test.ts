import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stepTree, stepTreeSlices } from './run-index.ts';
import type { Step } from './types.ts';

const step = (id: string, index: number, parentStepId?: string): Step => ({ id, index, kind: 'message', agentId: 'a', ...(parentStepId === undefined ? {} : { parentStepId }) }) as Step;

describe('stepTree', () => {
  it('gives the steps without a parent in run order, and the nested ones by parent, across slices', () => {
    // Up to 6,000 steps: across two slice boundaries (SLICE 2048), in both the counting and the placing pass.
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat(20), { nil: undefined }), { maxLength: 6000 }), (parents) => {
        const steps = parents.map((p, i) => step(`s${i}`, i, p === undefined ? undefined : `s${p}`));
        const { replaySteps, childrenOf } = stepTree(steps);
        const rows = steps.filter((s) => s.parentStepId === undefined);
        expect(replaySteps.length).toBe(rows.length);
        replaySteps.forEach((s, i) => expect(s).toBe(rows[i]));
        // No hole: every row is a step.
        expect(Object.keys(replaySteps).length).toBe(rows.length);
        expect(replaySteps).not.toBe(steps);
        const nested = new Map<string, Step[]>();
        for (const s of steps) if (s.parentStepId !== undefined) nested.set(s.parentStepId, [...(nested.get(s.parentStepId) ?? []), s]);
        expect([...childrenOf.keys()]).toEqual([...nested.keys()]);
        for (const [parent, list] of nested) expect(childrenOf.get(parent)).toEqual(list);
      }),
      { numRuns: 60 },
    );
  });

  it('reports rising progress below 1 while it works', () => {
    const steps = Array.from({ length: 9000 }, (_, i) => step(`s${i}`, i, i % 3 === 0 ? 's0' : undefined));
    const work = stepTreeSlices(steps);
    const seen: number[] = [];
    for (let r = work.next(); !r.done; r = work.next()) seen.push(r.value);
    expect(seen.length).toBeGreaterThan(4);
    seen.forEach((v, i) => {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
      if (i > 0) expect(v).toBeGreaterThan(seen[i - 1]);
    });
  });
});
