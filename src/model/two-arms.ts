// A corpus of recorded runs in two arms (issue 15, SPEC §1 job 2): the recorded runs as the baseline arm (measured)
// and their shadow-supervised runs as the estimate arm (counterfactual). Every figure says which it is. Simulated
// runs are a third group with their own arms, never pooled with recorded ones. Pure: the shadow runs are made by the
// supervisor engine (engine/supervisor/shadow-run.ts) and passed in with the recorded runs.
import { corpusStatistics, runMetrics, type ArmStatistics, type CorpusStatistics, type RunMetrics } from './statistics.ts';
import type { Run } from './types.ts';

/** measured: recorded by the system that ran; estimated: a counterfactual or a tokenizer count, never a measurement. */
export type Basis = 'measured' | 'estimated';

export interface Figure {
  value: number;
  basis: Basis;
  /** Runs the figure is computed over. */
  n: number;
}

export interface ArmFigures {
  arm: 'baseline' | 'estimate';
  n: number;
  /** Mean tokens per task (the run's own model calls). */
  meanTokens: Figure;
  variance: Figure;
  std: Figure;
  /** Mean supervisor (engine) tokens per task. */
  meanOverhead: Figure;
  /** Mean of tokens + overhead. */
  meanNetTokens: Figure;
  /** Why a figure of this arm is an estimate, in words (empty for a fully measured arm). */
  notes: string[];
}

export interface TwoArmCorpus {
  baseline: ArmFigures;
  estimate: ArmFigures;
  /**
   * Mean net tokens saved per task over the pairs (a recorded run and its estimate), positive = saving: baseline
   * tokens + overhead − (estimated tokens + supervisor overhead). Always an estimate.
   */
  netSaving: Figure;
  netSavingPct: Figure;
  /** Per-run metrics of both arms (estimate rows carry `shadowOf`), for the violins and the table. */
  rows: RunMetrics[];
  /** Violins, variance and per-group figures of the two arms (the estimate arm is the `supervised` side). */
  statistics: CorpusStatistics;
  /** Recorded baseline runs that have no shadow-supervised run yet. */
  withoutEstimate: string[];
  /** Recorded runs left out: tagged with another arm (a measured supervised run is not an estimate). */
  otherRecorded: number;
  /** Simulated runs, grouped by their own arm tags; null when there are none. Never pooled with recorded runs. */
  simulated: CorpusStatistics | null;
}

function figures(arm: ArmFigures['arm'], stats: ArmStatistics, rows: RunMetrics[]): ArmFigures {
  const notes: string[] = [];
  let tokenBasis: Basis = 'measured';
  if (arm === 'estimate') {
    tokenBasis = 'estimated';
    notes.push('tokens are the shadow replay\'s counterfactual estimate (SPEC §5.1), not a measurement');
  } else if (rows.some((r) => r.tokensEstimated)) {
    tokenBasis = 'estimated';
    notes.push(`${rows.filter((r) => r.tokensEstimated).length} run(s) recorded no usage: their tokens are tokenizer counts`);
  }
  const netBasis: Basis = tokenBasis;
  const n = stats.n;
  return {
    arm,
    n,
    meanTokens: { value: stats.meanTokens, basis: tokenBasis, n },
    variance: { value: stats.variance, basis: tokenBasis, n },
    std: { value: stats.std, basis: tokenBasis, n },
    meanOverhead: { value: stats.meanOverhead, basis: 'measured', n },
    meanNetTokens: { value: stats.meanNetTokens, basis: netBasis, n },
    notes,
  };
}

/** A shadow-supervised run as an estimate-arm row: counterfactual tokens, no outcome, no duration claimed. */
export function estimateRow(run: Run): RunMetrics {
  const m = runMetrics(run);
  return { ...m, arm: 'supervised', outcome: 'unknown', tokensEstimated: true, durationMs: null, shadowOf: run.derived?.sourceRunId };
}

/**
 * Split `runs` (recorded runs and the shadow-supervised runs derived from them, in any order) into the two arms and
 * compute their figures, grouped by the tag `groupBy`.
 */
export function twoArmCorpus(runs: readonly Run[], groupBy = 'dataset'): TwoArmCorpus {
  const baselineRuns: Run[] = [];
  const derived: Run[] = [];
  const simulated: Run[] = [];
  let otherRecorded = 0;
  for (const run of runs) {
    if (run.simulated) simulated.push(run);
    else if (run.derived?.kind === 'shadow-supervised') derived.push(run);
    else if (runMetrics(run).arm === 'baseline') baselineRuns.push(run);
    else otherRecorded++;
  }
  const baselineIds = new Set(baselineRuns.map((r) => r.id));
  // One estimate per source run (the last given wins), and only for sources in the baseline arm.
  const estimateBySource = new Map<string, Run>();
  for (const d of derived) if (baselineIds.has(d.derived!.sourceRunId)) estimateBySource.set(d.derived!.sourceRunId, d);

  const baselineRows = baselineRuns.map((r) => ({ ...runMetrics(r), arm: 'baseline' as const }));
  const estimateRows = [...estimateBySource.values()].map(estimateRow);
  const rows = [...baselineRows, ...estimateRows];
  const statistics = corpusStatistics(rows, groupBy);
  const baseline = figures('baseline', statistics.overall.baseline, baselineRows);
  const estimate = figures('estimate', statistics.overall.supervised, estimateRows);
  const byId = new Map(baselineRows.map((r) => [r.id, r]));
  let saved = 0;
  let pairedBaseline = 0;
  for (const e of estimateRows) {
    const b = byId.get(e.shadowOf!)!;
    saved += b.tokens + b.overhead - (e.tokens + e.overhead);
    pairedBaseline += b.tokens + b.overhead;
  }
  const pairs = estimateRows.length;
  return {
    baseline,
    estimate,
    netSaving: { value: pairs === 0 ? NaN : saved / pairs, basis: 'estimated', n: pairs },
    netSavingPct: { value: pairedBaseline === 0 ? NaN : (saved / pairedBaseline) * 100, basis: 'estimated', n: pairs },
    rows,
    statistics,
    withoutEstimate: baselineRuns.filter((r) => !estimateBySource.has(r.id)).map((r) => r.id),
    otherRecorded,
    simulated: simulated.length > 0 ? corpusStatistics(simulated.map(runMetrics), groupBy) : null,
  };
}
