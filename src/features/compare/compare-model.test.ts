import { describe, expect, it } from 'vitest';
import { makeRun } from '../../testing/test-runs.ts';
import type { Step } from '../../model/types.ts';
import { actionSignature, alignByIndex, alignByLcs, compareRun, sideAt } from './compare-model.ts';

describe('LCS alignment', () => {
  it('matches the longest common subsequence and lists gaps A first', () => {
    // A = x y z w, B = x z q w: the LCS is x z w (length 3); y is only in A, q only in B.
    const rows = alignByLcs(['x', 'y', 'z', 'w'], ['x', 'z', 'q', 'w'])!;
    expect(rows).toEqual([
      { a: 0, b: 0, matched: true },
      { a: 1, b: null, matched: false },
      { a: 2, b: 1, matched: true },
      { a: null, b: 2, matched: false },
      { a: 3, b: 3, matched: true },
    ]);
  });
  it('handles a loop repeated more often in one run', () => {
    // A = s p p p f, B = s p f: LCS s p f; two of A's p steps stay unmatched.
    const rows = alignByLcs(['s', 'p', 'p', 'p', 'f'], ['s', 'p', 'f'])!;
    expect(rows.filter((r) => r.matched)).toHaveLength(3);
    expect(rows.filter((r) => r.b === null)).toHaveLength(2);
    expect(rows.at(-1)).toEqual({ a: 4, b: 2, matched: true });
  });
  it('aligns by index with matches where signatures agree', () => {
    expect(alignByIndex(['x', 'y'], ['x', 'z', 'w'])).toEqual([
      { a: 0, b: 0, matched: true },
      { a: 1, b: 1, matched: false },
      { a: null, b: 2, matched: false },
    ]);
  });
  it('keeps a side on its previous step through a gap', () => {
    const rows = alignByLcs(['x', 'y', 'z'], ['x', 'z'])!;
    // rows: (0,0) (1,–) (2,1) → at row 1 side b is still on step 0.
    expect(sideAt(rows, 1, 'b')).toBe(0);
    expect(sideAt(rows, 1, 'a')).toBe(1);
  });
});

describe('compare run', () => {
  it('signs actions by tool calls, else by the first code block', () => {
    const base: Step = { id: 's', index: 0, kind: 'action', agentId: 'a' };
    expect(actionSignature({ ...base, toolCalls: [{ name: 'web_search', arguments: ' {"q":"x"} ' }] })).toBe('web_search({"q":"x"})');
    expect(actionSignature({ ...base, output: 'Thought\n```py\nprint(1)\n```' })).toBe('python_interpreter(print(1))');
  });
  it('gives nested and in-between usage to the right step, so the curve ends at the run total', () => {
    const run = makeRun('r', {
      steps: [
        { id: 'p', index: 0, kind: 'planning', agentId: 'manager', usage: { input: 4, output: 1, total: 5 } },
        { id: 'a1', index: 1, kind: 'action', agentId: 'manager', number: 1 },
        { id: 'l1', index: 2, kind: 'llm', agentId: 'manager', parentStepId: 'a1', usage: { input: 10, output: 5, total: 15 } },
        { id: 'a2', index: 3, kind: 'action', agentId: 'manager', number: 2 },
        { id: 'l2', index: 4, kind: 'llm', agentId: 'manager', parentStepId: 'a2', usage: { input: 20, output: 5, total: 25 } },
      ],
      interventions: [{ id: 'i', engine: 'supervisor', stepId: 'l2', action: 'provide_guidance', reason: 'loop', heuristic: true, tokens: { input: 3, output: 4, total: 7 } }],
    });
    const c = compareRun(run);
    // One unit per row of the step list: the planning step keeps its own 5, each action its nested call; total 45.
    expect(c.steps.map((s) => s.tokens)).toEqual([5, 15, 25]);
    expect(c.steps.map((s) => s.cumulative)).toEqual([5, 20, 45]);
    expect(c.total).toBe(45);
    expect(c.overhead).toBe(7);
    expect(c.steps[2].interventions.map((i) => i.id)).toEqual(['i']);
  });
});
