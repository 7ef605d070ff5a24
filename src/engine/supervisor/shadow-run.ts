// The shadow-supervised run as a run of its own (SPEC §5.1, issue 15): a recorded run with the supervisor's verdicts
// applied — purified observations in place of the originals, guidance appended — and every model call's tokens
// re-estimated by the same counterfactual rule as the shadow replay's token summary. Always labelled an estimate.
import type { DerivedRun, Intervention, Run, Step } from '../../model/types.ts';
import { armOf } from '../../model/statistics.ts';
import { twoArmCorpus, type TwoArmCorpus } from '../../model/two-arms.ts';
import { loadTokenCounter } from '../../llm/usage.ts';
import type { FilterParams } from './filter.ts';
import { counterfactualSavings, shadowReplay, type ShadowOptions, type ShadowResult } from './shadow.ts';

/** The derived run's id: stable for a given source run, so deriving twice replaces rather than duplicates. */
export function shadowRunId(sourceRunId: string): string {
  return `${sourceRunId}::shadow`;
}

export function isShadowRun(run: Run): boolean {
  return run.derived?.kind === 'shadow-supervised';
}

/** Decided by the LLM-free rules when every verdict is heuristic; otherwise by the endpoint's (recorded) answers. */
export function methodOf(interventions: readonly Intervention[]): DerivedRun['method'] {
  return interventions.every((i) => i.heuristic) ? 'offline-heuristic' : 'endpoint';
}

export interface DeriveOptions {
  /** Thresholds the filter ran with, kept on the run so the estimate says how it was made. */
  params?: FilterParams;
  countTokens: (text: string) => number;
}

/**
 * Build the shadow-supervised run of `source` from a finished shadow replay. Steps keep their ids (so Compare aligns
 * them with the source's); changed model calls carry `usage.estimated`; the outcome is unknown (a replay cannot tell
 * whether the answer would have changed) and the benchmark scores of the source are not carried over.
 */
export function deriveShadowRun(source: Run, result: Pick<ShadowResult, 'interventions' | 'tokens'>, options: DeriveOptions): Run {
  const interventions = result.interventions;
  const newObservation = new Map<string, string>();
  for (const iv of interventions) {
    const text = iv.details?.newObservation;
    if (iv.stepId !== undefined && typeof text === 'string') newObservation.set(iv.stepId, text);
  }
  const { byCall } = counterfactualSavings(source, interventions, options.countTokens);
  const steps = source.steps.map((s): Step => {
    const observation = newObservation.get(s.id);
    const cut = byCall.get(s.id);
    if (observation === undefined && cut === undefined) return s;
    const step: Step = { ...s };
    if (observation !== undefined) step.observation = observation;
    if (cut !== undefined && s.usage) step.usage = { ...s.usage, input: s.usage.input - cut, total: s.usage.total - cut, estimated: true };
    return step;
  });
  const derived: DerivedRun = {
    kind: 'shadow-supervised',
    sourceRunId: source.id,
    estimate: true,
    method: methodOf(interventions),
    tokens: {
      baseline: result.tokens.baseline,
      supervisedEstimate: result.tokens.supervisedEstimate,
      supervisorOverhead: result.tokens.supervisorOverhead,
      netSaving: result.tokens.netSaving,
    },
  };
  if (options.params) derived.thresholds = { tauStep: options.params.tauStep, tauLoop: options.params.tauLoop, tauLen: options.params.tauLen };
  const outcome: Run['outcome'] = { status: 'unknown' };
  if (source.outcome.referenceAnswer !== undefined) outcome.referenceAnswer = source.outcome.referenceAnswer;
  const run: Run = {
    ...source,
    id: shadowRunId(source.id),
    title: `${source.title} (shadow-supervised estimate)`,
    outcome,
    tags: { ...source.tags, arm: 'supervised' },
    steps,
    interventions: [...source.interventions.filter((i) => i.engine !== 'supervisor'), ...interventions],
    derived,
  };
  delete run.benchmark;
  return run;
}

/**
 * Shadow-replay the supervisor on a recorded run and return the derived run. Supervisor interventions the run already
 * carries (an endpoint's verdicts, recorded) are reused for their steps instead of being decided again; without a
 * client the rest are decided by the LLM-free heuristics.
 */
export async function shadowSupervisedRun(source: Run, options: ShadowOptions): Promise<{ run: Run; result: ShadowResult }> {
  const recorded = source.interventions.filter((i) => i.engine === 'supervisor');
  const base = recorded.length > 0 ? { ...source, interventions: source.interventions.filter((i) => i.engine !== 'supervisor') } : source;
  const countTokens = options.countTokens ?? (await loadTokenCounter());
  const result = await shadowReplay(base, { ...options, countTokens, previous: [...(options.previous ?? []), ...recorded] });
  return { run: deriveShadowRun(base, result, { params: options.params, countTokens }), result };
}

/**
 * The two arms of a corpus of recorded runs: derives the shadow-supervised run of every recorded baseline run that
 * has none among `runs` yet (simulated runs are left alone: they stay a group of their own), then splits and figures.
 */
export async function shadowArms(runs: readonly Run[], options: ShadowOptions & { groupBy?: string }): Promise<{ corpus: TwoArmCorpus; derived: Run[] }> {
  const have = new Set(runs.flatMap((r) => (r.derived?.kind === 'shadow-supervised' ? [r.derived.sourceRunId] : [])));
  const derived: Run[] = [];
  for (const run of runs) {
    if (options.signal?.aborted) break;
    if (run.simulated || run.derived || have.has(run.id) || armOf(run.tags) !== 'baseline') continue;
    const made = await shadowSupervisedRun(run, options);
    if (made.result.status === 'complete') derived.push(made.run);
  }
  return { corpus: twoArmCorpus([...runs, ...derived], options.groupBy), derived };
}
