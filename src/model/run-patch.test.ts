// A derived run crosses from the worker to the page as what differs from its source (ADR 0060): put together on the
// other side of a structured clone, it equals the run the worker made, for any change a derivation may make (real
// shadow-supervised runs: engine/supervisor/shadow-run.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeRun } from '../testing/test-runs.ts';
import { applyRunPatch, runPatch } from './run-patch.ts';
import { countStepFacts, knownStepFacts } from './step-facts.ts';
import type { Run, Step } from './types.ts';

/** As the patch and the page's copy of the source arrive: each through its own structured clone. */
const acrossWorker = (source: Run, run: Run) => applyRunPatch(structuredClone(source), structuredClone(runPatch(source, run)));

function longRun(n: number): Run {
  const steps: Step[] = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, index: i, kind: 'message', agentId: 'manager', output: `message ${i}`, usage: { input: i, output: 1, total: i + 1 } }));
  return makeRun('source', { steps, handoffs: [{ id: 'h0', from: 'manager', to: ['manager'], kind: 'message', content: 'x' }] });
}

describe('runPatch / applyRunPatch', () => {
  it('puts together any derivation of a run: steps changed anywhere, its own fields, arrays kept or replaced', () => {
    const source = longRun(300);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(299), { maxLength: 20 }),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.string(), { nil: undefined }),
        (changed, newHandoffs, dropBenchmark, task) => {
          const steps = source.steps.slice();
          for (const i of changed) steps[i] = { ...steps[i], observation: `changed ${i}`, usage: { input: 0, output: 0, total: 0, estimated: true } };
          const run: Run = { ...source, id: 'source::shadow', title: 'derived', steps, tags: { arm: 'supervised' }, interventions: [] };
          if (newHandoffs) run.handoffs = [];
          if (task !== undefined) run.task = task;
          if (dropBenchmark) delete run.benchmark;
          const patch = runPatch(source, run);
          expect(patch.steps.map(([i]) => i).sort((a, b) => a - b)).toEqual([...changed].sort((a, b) => a - b));
          expect(patch.kept.includes('handoffs')).toBe(!newHandoffs);
          expect(acrossWorker(source, run)).toEqual(run);
        },
      ),
    );
  });

  it('applies to the run it was made from only', () => {
    const source = longRun(3);
    const patch = runPatch(source, { ...source, id: 'd' });
    expect(() => applyRunPatch({ ...source, id: 'other' }, patch)).toThrow(/made from source \(3 steps\), not from other/);
    expect(() => applyRunPatch(longRun(4), patch)).toThrow(/not from source \(4 steps\)/);
  });

  it("carries the derived run's step facts, so the page has them without a pass over its steps", () => {
    const source = longRun(50);
    const steps = source.steps.map((s, i) => (i % 7 === 0 ? { ...s, usage: { input: 1, output: 1, total: 2, estimated: true } } : s));
    const run: Run = { ...source, id: 'source::shadow', steps };
    const derived = acrossWorker(source, run);
    // Known as soon as the run is put together, and equal to what the page would have counted itself.
    expect(knownStepFacts(derived)).toEqual(countStepFacts(run.steps));
    expect(knownStepFacts(derived)!.tokens.estimated).toBe(true);
  });
});
