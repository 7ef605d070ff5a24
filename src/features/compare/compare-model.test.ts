import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeRun } from '../../testing/test-runs.ts';
import type { Step } from '../../model/types.ts';
import { stepFacts } from '../../model/step-facts.ts';
import { actionSignature, alignByIndex, alignByLcs, alignSlices, compareFigures, compareRun, compareStep, rowList, sideAt } from './compare-model.ts';

describe('LCS alignment', () => {
  it('matches the longest common subsequence and lists gaps A first', () => {
    // A = x y z w, B = x z q w: the LCS is x z w (length 3); y is only in A, q only in B.
    const rows = rowList(alignByLcs(['x', 'y', 'z', 'w'], ['x', 'z', 'q', 'w'])!);
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
    const rows = rowList(alignByLcs(['s', 'p', 'p', 'p', 'f'], ['s', 'p', 'f'])!);
    expect(rows.filter((r) => r.matched)).toHaveLength(3);
    expect(rows.filter((r) => r.b === null)).toHaveLength(2);
    expect(rows.at(-1)).toEqual({ a: 4, b: 2, matched: true });
  });
  it('aligns by index with matches where signatures agree', () => {
    expect(rowList(alignByIndex(['x', 'y'], ['x', 'z', 'w']))).toEqual([
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
    expect([...c.tokens]).toEqual([5, 15, 25]);
    expect([...c.cumulative]).toEqual([5, 20, 45]);
    expect(c.units.map((_, k) => compareStep(c, k).cumulative)).toEqual([5, 20, 45]);
    expect(c.total).toBe(45);
    expect(c.overhead).toBe(7);
    expect(compareStep(c, 2).interventions.map((i) => i.id)).toEqual(['i']);
    expect(compareStep(c, 1).interventions).toEqual([]);
    expect(c.estimated).toBe(false);
  });
  it("says whether the run holds tokenizer counts, as the model's step facts do (a nested step's count too)", () => {
    const steps: Step[] = [
      { id: 'a1', index: 0, kind: 'action', agentId: 'manager', number: 1 },
      { id: 'l1', index: 1, kind: 'llm', agentId: 'manager', parentStepId: 'a1', usage: { input: 10, output: 5, total: 15, estimated: true } },
    ];
    const run = makeRun('e', { steps });
    expect(compareRun(run).estimated).toBe(true);
    expect(compareRun(run).estimated).toBe(stepFacts(run).tokens.estimated);
  });
});

describe('compare figures', () => {
  const msgs = (prefix: string, tokens: number[]): Step[] =>
    tokens.map((t, i) => ({ id: `${prefix}${i}`, index: i, kind: 'message', agentId: 'manager', usage: { input: t, output: 0, total: t } }));
  const parent = () => makeRun('p', { steps: msgs('p', [100, 200, 300, 400, 500, 600]) });

  it('a fork that stopped early is compared over the steps both runs have, never as a saving of the steps it did not make', () => {
    // Steps 1–4 made (step 2 edited and answered live), then the fork stopped at step 5.
    const fork = makeRun('f', {
      steps: msgs('f', [100, 250, 300, 400]),
      live: { status: 'stopped', note: 'step 5 (WebSurfer): its input changed; the fork stops here' },
    });
    const f = compareFigures(compareRun(parent()), compareRun(fork));
    expect(f.stops).toEqual([{ side: 'b', status: 'stopped', steps: 4, label: 'stopped at step 5 (WebSurfer): its input changed; the fork stops here' }]);
    expect(f.n).toEqual({ a: 4, b: 4 });
    // Over steps 1–4 the fork spent more (1,050 vs 1,000), not 49% less.
    expect(f.tokens).toEqual({ a: 1000, b: 1050 });
    expect(f.net).toEqual({ a: 1000, b: 1050 });
    expect(f.full).toEqual({ a: { steps: 6, tokens: 2100 }, b: { steps: 4, tokens: 1050 } });
  });

  it('two complete runs are compared in full', () => {
    const other = makeRun('o', { steps: msgs('o', [50, 50]), live: { status: 'complete' } });
    const f = compareFigures(compareRun(parent()), compareRun(other));
    expect(f.stops).toEqual([]);
    expect(f.n).toEqual({ a: 6, b: 2 });
    expect(f.tokens).toEqual({ a: 2100, b: 100 });
  });

  it('a run that failed without a step in its note still says so', () => {
    const failed = makeRun('x', { steps: msgs('x', [100, 200]), live: { status: 'failed', note: 'HTTP 500' } });
    const f = compareFigures(compareRun(failed), compareRun(parent()));
    expect(f.stops.map((s) => [s.side, s.label])).toEqual([['a', 'failed: HTTP 500']]);
    expect(f.tokens).toEqual({ a: 300, b: 300 });
  });
});

describe('compareRun: units, tokens and interventions by step id', () => {
  /** The units as compareRun gave them when it looked ids up in Maps filled in step order (the oracle). */
  function unitsByMaps(steps: readonly Step[], interventions: { stepId?: string; tokens?: { total: number } }[]) {
    const byId = new Map<string, Step>();
    for (const s of steps) byId.set(s.id, s);
    const unitOf = new Map<string, number>();
    const units: { id: string; tokens: number; interventions: number }[] = [];
    for (const s of steps) {
      if (s.parentStepId !== undefined) continue;
      unitOf.set(s.id, units.length);
      units.push({ id: s.id, tokens: 0, interventions: 0 });
    }
    const resolve = (step: Step | undefined): number | undefined => {
      for (let s: Step | undefined = step, guard = 0; s && guard < 64; s = s.parentStepId ? byId.get(s.parentStepId) : undefined, guard++) {
        const u = unitOf.get(s.id);
        if (u !== undefined) return u;
      }
      return undefined;
    };
    let pending = 0;
    for (const s of steps) {
      const own = unitOf.get(s.id);
      if (own !== undefined) {
        units[own].tokens += pending;
        pending = 0;
      }
      const total = s.usage?.total ?? 0;
      if (total === 0) continue;
      const u = resolve(s);
      if (u !== undefined) units[u].tokens += total;
      else pending += total;
    }
    if (units.length > 0) units[units.length - 1].tokens += pending;
    for (const i of interventions) {
      const u = i.stepId !== undefined ? resolve(byId.get(i.stepId)) : undefined;
      if (u !== undefined) units[u].interventions++;
    }
    return units;
  }

  it('gives what Maps of every id gave, duplicate ids, nesting and cycles included (fast-check)', () => {
    // Few ids, so that runs repeat them, nest under them, and make parent cycles.
    const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    const step = fc.record({ id, parent: fc.option(id, { nil: undefined }), total: fc.constantFrom(0, 0, 3, 10) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.array(fc.record({ stepId: fc.option(id, { nil: undefined }), total: fc.constantFrom(1, 7) }), { maxLength: 6 }), (specs, ivs) => {
        const steps: Step[] = specs.map((s, i) => ({
          id: s.id,
          index: i,
          kind: s.parent === undefined ? 'action' : 'llm',
          agentId: 'manager',
          ...(s.parent !== undefined ? { parentStepId: s.parent } : {}),
          ...(s.total > 0 ? { usage: { input: s.total, output: 0, total: s.total } } : {}),
        }));
        const interventions = ivs.map((iv, i) => ({ id: `iv${i}`, engine: 'supervisor', action: 'guidance', reason: 'r', ...(iv.stepId !== undefined ? { stepId: iv.stepId } : {}), tokens: { input: iv.total, output: 0, total: iv.total } }));
        const got = compareRun(makeRun('r', { steps, interventions } as never));
        const want = unitsByMaps(steps, interventions);
        expect(got.units.map((_, k) => compareStep(got, k)).map((u) => ({ id: u.step.id, tokens: u.tokens, interventions: u.interventions.length }))).toEqual(want);
        expect(got.overhead).toBe(ivs.reduce((n, iv) => n + iv.total, 0));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('alignSlices: signature codes over both runs', () => {
  /** The signature each unit had as a string (agent name, then SPEC §5.1's action signature): the oracle. */
  const signatures = (run: ReturnType<typeof makeRun>) => {
    const names = new Map(run.agents.map((a) => [a.id, a.name]));
    return run.steps.filter((s) => s.parentStepId === undefined).map((s) => `${names.get(s.agentId) ?? s.agentId}\u0000${actionSignature(s)}`);
  };
  it('lines up as the signature strings did, in both modes (fast-check)', () => {
    const agent = fc.constantFrom('planner', 'coder', 'critic');
    const call = fc.constantFrom('search', 'run', 'ask');
    const step = fc.record({ agent, kind: fc.constantFrom('message', 'action', 'llm'), call: fc.option(call, { nil: undefined }), nested: fc.boolean() });
    const runOf = (id: string, specs: { agent: string; kind: string; call?: string; nested: boolean }[]) =>
      makeRun(id, {
        agents: [{ id: 'planner', name: 'Planner' }, { id: 'coder', name: 'Coder' }, { id: 'critic', name: 'Planner' }],
        steps: specs.map((s, i) => ({
          id: `${id}${i}`,
          index: i,
          kind: s.kind,
          agentId: s.agent,
          ...(s.call ? { toolCalls: [{ name: s.call, arguments: '{}' }] } : {}),
          ...(s.nested && i > 0 ? { parentStepId: `${id}0` } : {}),
        })),
      } as never);
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), fc.array(step, { maxLength: 30 }), (sa, sb) => {
        const a = runOf('a', sa);
        const b = runOf('b', sb);
        for (const mode of ['lcs', 'index'] as const) {
          const got = finishAlign(compareRun(a), compareRun(b), mode);
          const want = mode === 'lcs' ? alignByLcs(signatures(a), signatures(b))! : alignByIndex(signatures(a), signatures(b));
          expect(rowList(got.rows)).toEqual(rowList(want));
          expect(got.matched).toBe(rowList(want).filter((r) => r.matched).length);
        }
      }),
      { numRuns: 500 },
    );
  });
  it('falls back to the index when the runs are too long to match, with columns of the right length', () => {
    const msgs = (id: string, n: number, kind: string) => makeRun(id, { steps: Array.from({ length: n }, (_, i) => ({ id: `${id}${i}`, index: i, kind, agentId: 'x' })) } as never);
    // 5,000 × 5,000 differing steps need 25M cells, more than LCS_MAX_CELLS.
    const got = finishAlign(compareRun(msgs('a', 5000, 'message')), compareRun(msgs('b', 4000, 'planning')), 'lcs');
    expect(got.mode).toBe('index');
    expect(got.fallback).toMatch(/too long to match/);
    expect(got.rows.length).toBe(5000);
    expect(got.rows.a.length).toBe(5000);
    expect(sideAt(got.rows, 4999, 'b')).toBe(3999);
    expect(got.matched).toBe(0);
  });
});

function finishAlign(a: ReturnType<typeof compareRun>, b: ReturnType<typeof compareRun>, mode: 'lcs' | 'index') {
  const work = alignSlices(a, b, mode);
  let r = work.next();
  while (!r.done) r = work.next();
  return r.value;
}
