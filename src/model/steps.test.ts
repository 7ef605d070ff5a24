import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countStepKinds, interventionsInRunOrderSlices, replaySteps, stepCounts, stepNumbersById, stepNumbersFor, stepsWithIds } from './steps.ts';
import { finish, SLICE } from './slices.ts';
import type { Intervention, Step } from './types.ts';

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

describe('stepNumbersFor and stepsWithIds (a few ids of a large run)', () => {
  // Runs of rows and nested steps (a parent named before or after its child, chains, unknown parents, shared ids).
  const runs = fc.array(fc.record({ id: fc.integer({ min: 0, max: 30 }), parent: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }) }), { maxLength: 40 }).map((rows) => ({
    steps: rows.map((r, i) => step(`s${r.id}`, i, r.parent === undefined || r.parent === r.id ? undefined : `s${r.parent}`)),
  }));

  it('gives the ids asked for the numbers stepNumbersById gives them', () => {
    fc.assert(
      fc.property(runs, fc.array(fc.integer({ min: 0, max: 32 }), { maxLength: 8 }), (run, asked) => {
        const ids = asked.map((n) => `s${n}`);
        const all = stepNumbersById(run);
        const expected = new Map(ids.flatMap((id) => (all.has(id) ? [[id, all.get(id)!] as const] : [])));
        expect(new Map([...stepNumbersFor(run, ids)].filter(([id]) => ids.includes(id)))).toEqual(expected);
      }),
    );
  });

  it('finds each id\'s step and position as a Map over every step would (the last of two wins)', () => {
    fc.assert(
      fc.property(runs, fc.array(fc.integer({ min: 0, max: 32 }), { maxLength: 8 }), (run, asked) => {
        const ids = asked.map((n) => `s${n}`);
        const byId = new Map(run.steps.map((s, i) => [s.id, { step: s, position: i }]));
        const expected = new Map(ids.flatMap((id) => (byId.has(id) ? [[id, byId.get(id)!] as const] : [])));
        expect(stepsWithIds(run.steps, ids)).toEqual(expected);
      }),
    );
    expect(stepsWithIds([step('a', 0)], []).size).toBe(0);
  });
});

describe('stepCounts', () => {
  const kinds = ['action', 'planning', 'message', 'llm', 'tool', 'final'] as const;
  const steps = fc.array(fc.record({ kind: fc.constantFrom(...kinds), nested: fc.boolean() }), { maxLength: 40 }).map((rows) => rows.map((r, i) => ({ ...step(`s${i}`, i, r.nested ? 's0' : undefined), kind: r.kind })));

  it('reads the step facts: the same rows and kinds, in the same order, as a count over the step list', () => {
    fc.assert(
      fc.property(steps, (list) => {
        const run = { steps: list };
        const counts = stepCounts(run);
        const expected = countStepKinds(replaySteps(run));
        expect(counts.steps).toBe(expected.steps);
        expect([...counts.byKind]).toEqual([...expected.byKind]);
        // Counted once per steps array.
        expect(stepCounts({ steps: list })).toBe(counts);
      }),
    );
  });
});

describe('replaySteps', () => {
  const step = (id: string, parentStepId?: string): Step => ({ id, index: 0, kind: parentStepId ? 'llm' : 'action', agentId: 'a', ...(parentStepId ? { parentStepId } : {}) });
  it('gives the run its own steps when none is nested (no copy of a long chat log), else the rows alone', () => {
    const flat = [step('a'), step('b'), step('c')];
    expect(replaySteps({ steps: flat })).toBe(flat);
    const nested = [step('a'), step('a1', 'a'), step('b')];
    const rows = replaySteps({ steps: nested });
    expect(rows).not.toBe(nested);
    expect(rows.map((s) => s.id)).toEqual(['a', 'b']);
  });
});

describe('interventionsInRunOrderSlices', () => {
  const iv = (id: string, stepId: string | undefined, engine: Intervention['engine'] = 'supervisor'): Intervention => ({ id, engine, stepId, action: 'a', reason: 'r', heuristic: true });

  it("puts an engine's interventions in the order of their steps, with their steps; those without one first; ties as they were", () => {
    const steps = [step('s0', 0), step('s1', 1), step('s2', 2), step('s3', 3)];
    const interventions = [iv('a', 's2'), iv('b', 's0'), iv('x', 's1', 'rectifier'), iv('c', undefined), iv('d', 's2'), iv('e', 'gone'), iv('f', 's1')];
    const { items, found } = finish(interventionsInRunOrderSlices({ steps, interventions }, (i) => i.engine === 'supervisor'));
    expect(items.map((i) => i.id)).toEqual(['c', 'e', 'b', 'f', 'a', 'd']);
    expect([...found.keys()].sort()).toEqual(['s0', 's1', 's2']);
    expect(found.get('s2')).toEqual({ step: steps[2], position: 2 });
  });

  it('works in slices over a long run: the same list as in one piece, in order', () => {
    const n = 3 * SLICE;
    const steps = Array.from({ length: n }, (_, i) => step(`s${i}`, i));
    // Kept in reverse order, every other step: the list must come back in step order.
    const interventions = Array.from({ length: n / 2 }, (_, k) => iv(`i${k}`, `s${n - 1 - 2 * k}`));
    const work = interventionsInRunOrderSlices({ steps, interventions }, () => true);
    let slices = 0;
    let r = work.next();
    for (; !r.done; r = work.next()) slices++;
    expect(slices).toBeGreaterThan(3);
    expect(r.value.items.map((i) => i.stepId)).toEqual(Array.from({ length: n / 2 }, (_, k) => `s${2 * k + 1}`));
  });
});

