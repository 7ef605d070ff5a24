// The shadow-supervised run derived from real recorded runs (TRAIL GAIA, offline) and from a run carrying recorded
// endpoint verdicts: verdicts applied at their steps, tokens re-estimated by the counterfactual rule, labelled.
import { describe, expect, it } from 'vitest';
import { exportSession } from '../../export/native.ts';
import { applyRunPatch, runPatch } from '../../model/run-patch.ts';
import { HAVE_SHARED, importShared, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { importText } from '../../import/index.ts';
import { summarizeRun } from '../../model/summary.ts';
import type { Intervention, Run } from '../../model/types.ts';
import { filterParams } from './filter.ts';
import { PRESETS } from './presets.ts';
import { shadowReplay } from './shadow.ts';
import { shadowArms, shadowRunId, shadowSupervisedRun } from './shadow-run.ts';

const words = (t: string) => (t.match(/\S+/g) ?? []).length;
const params = filterParams(PRESETS.gaia);

describe.skipIf(!HAVE_SHARED)(`shadow-supervised runs of real TRAIL runs (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  const files = sharedFiles('trail/gaia');

  it('applies every verdict at its step and re-estimates tokens to the replay\'s supervised estimate', async () => {
    let changedObservations = 0;
    for (const path of files) {
      for (const source of importShared(path).runs) {
        const { run, result } = await shadowSupervisedRun(source, { params, countTokens: words });
        expect(run.id).toBe(shadowRunId(source.id));
        expect(run.derived).toMatchObject({ kind: 'shadow-supervised', sourceRunId: source.id, estimate: true, method: 'offline-heuristic' });
        expect(run.derived!.tokens.supervisedEstimate).toBe(result.tokens.supervisedEstimate);
        // The same number by both routes: the summary of the derived run's steps and the replay's estimate.
        expect(summarizeRun(run).tokens.total).toBe(result.tokens.supervisedEstimate);
        expect(summarizeRun(source).tokens.total).toBe(result.tokens.baseline);
        expect(run.steps.map((s) => s.id)).toEqual(source.steps.map((s) => s.id));
        const stepById = new Map(run.steps.map((s) => [s.id, s]));
        for (const iv of result.interventions) {
          const step = stepById.get(iv.stepId!);
          expect(step).toBeDefined();
          const replaced = iv.details?.newObservation;
          if (typeof replaced === 'string') {
            expect(step!.observation).toBe(replaced);
            changedObservations++;
          }
        }
        expect(run.interventions.filter((i) => i.engine === 'supervisor')).toEqual(result.interventions);
        // The source is left as recorded.
        expect(source.interventions.filter((i) => i.engine === 'supervisor')).toHaveLength(0);
        const changed = run.steps.filter((s, i) => s.usage && s.usage.total !== source.steps[i].usage?.total);
        expect(changed.every((s) => s.usage!.estimated === true)).toBe(true);
        expect(run.outcome.status).toBe('unknown');
        expect(run.tags.arm).toBe('supervised');
      }
    }
    expect(changedObservations).toBeGreaterThan(0);
  });

  it('is the same run when derived twice, and survives a native session round trip', async () => {
    const source = importShared(files[0]).runs[0];
    const a = (await shadowSupervisedRun(source, { params, countTokens: words })).run;
    const b = (await shadowSupervisedRun(source, { params, countTokens: words })).run;
    expect(b).toEqual(a);
    const back = importText('derived.json', exportSession({ runs: [a] }));
    expect(back.format).toBe('native');
    expect(back.runs[0]).toEqual(a);
  });
});

function smallRun(): Run {
  const page = Array.from({ length: 500 }, (_, i) => `<span class="x">w${i}</span>`).join(' ');
  return {
    id: 'r', title: 'small', sourceFormat: 'native', models: [], outcome: { status: 'success', finalAnswer: '4', referenceAnswer: '4' }, tags: {},
    agents: [{ id: 'a', name: 'alpha' }], agentRuns: [{ id: 'ar', agentId: 'a' }],
    steps: [
      { id: 's1', index: 0, kind: 'action', agentId: 'a', agentRunId: 'ar', number: 1, observation: page, toolCalls: [{ name: 'visit', arguments: '{}' }] },
      { id: 'c2', index: 1, kind: 'llm', agentId: 'a', agentRunId: 'ar', usage: { input: 4000, output: 20, total: 4020 } },
    ],
    handoffs: [], annotations: [], interventions: [], orphanSpans: 0,
  };
}

describe('shadow-supervised run from recorded endpoint verdicts', () => {
  it('uses the recorded verdict for its step and says the endpoint decided', async () => {
    const source = smallRun();
    const recorded: Intervention = {
      id: 'supervisor:s1', engine: 'supervisor', stepId: 's1', context: 'excessive', action: 'correct_observation', reason: 'long', heuristic: false,
      tokens: { input: 300, output: 40, total: 340 },
      details: { originalObservation: source.steps[0].observation, newObservation: 'the page, purified by the endpoint' },
    };
    source.interventions = [recorded];
    const { run, result } = await shadowSupervisedRun(source, { params, countTokens: words });
    expect(run.derived!.method).toBe('endpoint');
    expect(run.interventions).toEqual([recorded]);
    expect(run.steps[0].observation).toBe('the page, purified by the endpoint');
    const delta = words(source.steps[0].observation!) - words('the page, purified by the endpoint');
    expect(run.steps[1].usage).toEqual({ input: 4000 - delta, output: 20, total: 4020 - delta, estimated: true });
    expect(result.tokens.supervisorOverhead).toBe(340);
    expect(run.derived!.tokens.netSaving).toBe(delta - 340);
    // Recorded answers keep their place in the outcome; the estimate claims none.
    expect(run.outcome).toEqual({ status: 'unknown', referenceAnswer: '4' });
  });

  it('offline, decides with the heuristics and matches a plain shadow replay', async () => {
    const source = smallRun();
    const { run } = await shadowSupervisedRun(source, { params, countTokens: words });
    const plain = await shadowReplay(source, { params, countTokens: words });
    expect(run.derived!.method).toBe('offline-heuristic');
    expect(run.derived!.tokens.supervisedEstimate).toBe(plain.tokens.supervisedEstimate);
    expect(run.steps[1].usage!.total).toBe(plain.tokens.supervisedEstimate);
  });
});

describe.skipIf(!HAVE_SHARED)(`two arms of the real TRAIL runs (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('baseline arm measured, estimate arm = their shadow-supervised runs, figures agree with the replays', async () => {
    const runs = sharedFiles('trail/gaia').flatMap((p) => importShared(p).runs);
    const { corpus, derived } = await shadowArms(runs, { params, countTokens: words });
    expect(derived).toHaveLength(runs.length);
    expect(corpus.baseline.n).toBe(runs.length);
    expect(corpus.estimate.n).toBe(runs.length);
    expect(corpus.baseline.meanTokens.basis).toBe('measured');
    expect(corpus.estimate.meanTokens.basis).toBe('estimated');
    let baseline = 0;
    let estimate = 0;
    for (const d of derived) {
      baseline += d.derived!.tokens.baseline;
      estimate += d.derived!.tokens.supervisedEstimate + d.derived!.tokens.supervisorOverhead;
    }
    expect(corpus.netSaving.value).toBeCloseTo((baseline - estimate) / runs.length, 6);
    expect(corpus.netSaving.value).toBeGreaterThan(0);
    // Deriving again from runs that already include their estimates adds none.
    expect((await shadowArms([...runs, ...derived], { params, countTokens: words })).derived).toHaveLength(0);
  });
});

describe.skipIf(!HAVE_SHARED)(`shadow-supervised runs of real TRAIL runs, across the worker (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  // ADR 0060: the worker sends what differs from the source; the page puts the run together from its own copy.
  it('arrive equal to the run the worker derived, carrying only the steps the supervisor changed', async () => {
    let changed = 0;
    let total = 0;
    for (const path of sharedFiles('trail/gaia')) {
      for (const source of importShared(path).runs) {
        const { run } = await shadowSupervisedRun(source, { params, countTokens: words });
        const patch = runPatch(source, run);
        expect(applyRunPatch(structuredClone(source), structuredClone(patch))).toEqual(run);
        expect(patch.kept).toContain('agents');
        changed += patch.steps.length;
        total += source.steps.length;
      }
    }
    // The supervisor changed some steps of these runs, and far from all of them.
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(total / 2);
  });
});
