// Corpus statistics (SPEC §1 job 2, §4 Corpus): tokens per task as distributions, baseline vs supervised.
// Pure functions over plain numbers and small per-run records, so the same code runs in the statistics worker,
// under Node in tests and in the benchmark.
//
// Definitions used throughout (stated once here, relied on by the charts and their CSVs):
// - Quantiles: Hyndman & Fan type 7 (R's default, numpy's "linear"): with the n values sorted and 0-based,
//   h = (n − 1)·p and Q(p) = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋ + 1] − x[⌊h⌋]).
// - Variance and standard deviation: the sample versions (divisor n − 1); undefined (NaN) below two values.
// - KDE: Gaussian kernel, f(x) = 1/(n·h) · Σ φ((x − xᵢ)/h), with h from Silverman's rule of thumb as R's bw.nrd0
//   computes it: h = 0.9 · min(s, IQR/1.34) · n^(−1/5); when that minimum is 0 it falls back to s, then |x₁|, then 1.
// - Accuracy: successes / (successes + failures); runs with an unknown outcome are left out and counted apart.
// - Net tokens of a run: its own tokens plus the supervisor's (any engine's) overhead tokens recorded on its
//   interventions. The % change of a group compares mean net tokens of the supervised arm with the baseline's.
import { runDuration, summarizeRun } from './summary.ts';
import type { Run } from './types.ts';

const SQRT_2PI = Math.sqrt(2 * Math.PI);

/** Ascending copy as a typed array (numeric sort, no string comparison). */
export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** Type-7 quantile of values already sorted ascending. NaN when empty. */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (p <= 0) return sorted[0];
  if (p >= 1) return sorted[n - 1];
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const next = lo + 1 < n ? sorted[lo + 1] : sorted[lo];
  return sorted[lo] + (h - lo) * (next - sorted[lo]);
}

export function quantile(values: ArrayLike<number>, p: number): number {
  return quantileSorted(sortedCopy(values), p);
}

export function mean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i];
  return sum / n;
}

/** Sample variance (divisor n − 1), computed around the mean in two passes for accuracy. NaN below two values. */
export function sampleVariance(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return NaN;
  const m = mean(values);
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i] - m) ** 2;
  return ss / (n - 1);
}

export function standardDeviation(values: ArrayLike<number>): number {
  return Math.sqrt(sampleVariance(values));
}

/** Silverman's rule of thumb (R's bw.nrd0) over sorted values; NaN below two values. */
export function silvermanBandwidth(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n < 2) return NaN;
  const s = standardDeviation(sorted);
  const iqr = quantileSorted(sorted, 0.75) - quantileSorted(sorted, 0.25);
  let spread = Math.min(s, iqr / 1.34);
  // All values equal, or the middle half collapsed onto one value: fall back as bw.nrd0 does.
  if (!(spread > 0)) spread = s > 0 ? s : Math.abs(sorted[0]) > 0 ? Math.abs(sorted[0]) : 1;
  return 0.9 * spread * n ** -0.2;
}

/**
 * Gaussian KDE of the (sorted) values at each grid point. Kernels further than 8 bandwidths from a grid point add
 * less than 1e-14 of the peak and are skipped, which makes the cost about n · (points within reach) instead of n · grid.
 */
export function gaussianKde(sorted: ArrayLike<number>, bandwidth: number, grid: ArrayLike<number>): Float64Array {
  const n = sorted.length;
  const out = new Float64Array(grid.length);
  if (n === 0 || !(bandwidth > 0)) return out;
  const reach = 8 * bandwidth;
  const norm = 1 / (n * bandwidth * SQRT_2PI);
  let start = 0;
  for (let g = 0; g < grid.length; g++) {
    const x = grid[g];
    while (start < n && sorted[start] < x - reach) start++;
    let sum = 0;
    for (let i = start; i < n; i++) {
      const d = sorted[i] - x;
      if (d > reach) break;
      const u = d / bandwidth;
      sum += Math.exp(-0.5 * u * u);
    }
    out[g] = sum * norm;
  }
  return out;
}

/** Evenly spaced points from `from` to `to`, both included. */
export function linearGrid(from: number, to: number, points: number): number[] {
  if (points < 2 || from === to) return [from];
  const step = (to - from) / (points - 1);
  return Array.from({ length: points }, (_, i) => (i === points - 1 ? to : from + i * step));
}

export interface ViolinShape {
  n: number;
  min: number;
  max: number;
  q1: number;
  median: number;
  q3: number;
  mean: number;
  /** NaN below two values. With fewer than two distinct values no density is drawn; the chart shows the value. */
  bandwidth: number;
  /** Token values where the density was evaluated. */
  grid: number[];
  /** Density at each grid point: per token, or per unit of log10(tokens) when `logScale`. */
  density: number[];
  /** The KDE ran on log10(max(tokens, 1)) (bandwidth in log10 units); quartiles are of the raw values either way. */
  logScale: boolean;
}

export interface ViolinOptions {
  /** Grid points per violin (default 64). */
  gridSize?: number;
  /**
   * How many bandwidths the grid extends beyond the data on each side (default 0: a violin ends at the smallest and
   * largest value observed, so it never suggests token counts nobody spent, and never crosses zero).
   */
  cut?: number;
  /** Estimate the density of log10(tokens) for a log axis: heavy-tailed corpora stay readable. */
  logScale?: boolean;
}

export function violinShape(values: ArrayLike<number>, options: ViolinOptions = {}): ViolinShape | null {
  const sorted = sortedCopy(values);
  const n = sorted.length;
  if (n === 0) return null;
  const logScale = options.logScale === true;
  // The values the density is estimated on: tokens, or log10 of tokens (0 and 1 token both map to 0).
  const support = logScale ? sorted.map((v) => Math.log10(Math.max(v, 1))) : sorted;
  const bandwidth = silvermanBandwidth(support);
  const base = {
    n,
    min: sorted[0],
    max: sorted[n - 1],
    q1: quantileSorted(sorted, 0.25),
    median: quantileSorted(sorted, 0.5),
    q3: quantileSorted(sorted, 0.75),
    mean: mean(sorted),
    bandwidth,
    logScale,
  };
  // One run, or runs that all spent the same: a point, not a shape (a KDE would draw a spike of made-up width).
  if (n < 2 || sorted[0] === sorted[n - 1]) return { ...base, grid: [sorted[0]], density: [] };
  const cut = options.cut ?? 0;
  const grid = linearGrid(support[0] - cut * bandwidth, support[n - 1] + cut * bandwidth, options.gridSize ?? 64);
  const density = Array.from(gaussianKde(support, bandwidth, grid));
  return { ...base, grid: logScale ? grid.map((g) => 10 ** g) : grid, density };
}

/** (to − from) / from in percent; NaN when `from` is 0 or either is not a number. */
export function percentChange(from: number, to: number): number {
  return from === 0 ? NaN : ((to - from) / from) * 100;
}

/** How much smaller the supervised spread is, in percent of the baseline's: (1 − supervised / baseline) · 100. */
export function reductionPercent(baseline: number, supervised: number): number {
  return baseline === 0 ? NaN : (1 - supervised / baseline) * 100;
}

// ---------------------------------------------------------------------------------------------------------------
// Per-run metrics and per-group statistics

export type Arm = 'baseline' | 'supervised';
export const ARMS: readonly Arm[] = ['baseline', 'supervised'];

/** What the corpus needs of one run: small and structured-clone friendly, so 10k of them cross to a worker cheaply. */
export interface RunMetrics {
  id: string;
  title: string;
  task: string;
  tags: Record<string, string>;
  /** The source format (otlp, span-tree, chat-log…): groups recorded runs that carry no tags. */
  format: string;
  /** From the `arm` tag; runs without one count as baseline (a recorded run nobody supervised); other values: null. */
  arm: Arm | null;
  outcome: 'success' | 'failure' | 'unknown';
  steps: number;
  agents: number;
  /** Tokens of the run's own model calls (sum of step usage). */
  tokens: number;
  tokensEstimated: boolean;
  /** Tokens spent by engines on the run (its interventions' own LLM calls). */
  overhead: number;
  interventions: number;
  /** Wall-clock duration in ms, when the run records start and end times. */
  durationMs: number | null;
  simulated: boolean;
  /** Set on a counterfactual made by shadow-replaying the supervisor on this recorded run: never a measurement. */
  shadowOf?: string;
}

/** Why a run without steps (a benchmark's result line) shows no token count: its 0 would read as a measurement. */
export const NO_TOKEN_COUNT = 'No steps recorded (a benchmark result line): no model calls to count';

/**
 * Whether a run's tokens are a measurement (or a shadow run's estimate). A benchmark result line has no steps and so
 * no model calls: its 0 is not a count, and the corpus, the library and the run view neither chart it nor write it as one.
 */
export function hasTokenCount(r: Pick<RunMetrics, 'steps' | 'shadowOf'>): boolean {
  return r.steps > 0 || r.shadowOf !== undefined;
}

export function armOf(tags: Record<string, string>): Arm | null {
  const arm = tags.arm?.trim().toLowerCase();
  if (arm === undefined || arm === '' || arm === 'baseline') return 'baseline';
  return arm === 'supervised' ? 'supervised' : null;
}

export function runMetrics(run: Run): RunMetrics {
  const summary = summarizeRun(run);
  let overhead = 0;
  for (const i of run.interventions) overhead += i.tokens?.total ?? 0;
  return {
    id: run.id,
    title: run.title,
    task: run.task ?? '',
    tags: run.tags,
    format: run.sourceFormat,
    arm: armOf(run.tags),
    outcome: run.outcome.status,
    steps: summary.steps,
    agents: summary.agents.length,
    tokens: summary.tokens.total,
    tokensEstimated: summary.tokens.estimated,
    overhead,
    interventions: run.interventions.length,
    durationMs: runDuration(run) ?? null,
    simulated: run.simulated === true,
  };
}

/** What a shadow replay of the supervisor on one recorded run estimates (SPEC §5.1 token accounting). */
export interface ShadowEstimate {
  runId: string;
  /** Replay finished, was cancelled or failed part-way (then the figures cover the steps done). */
  status: 'complete' | 'cancelled' | 'failed';
  baseline: number;
  supervisedEstimate: number;
  supervisorOverhead: number;
  interventions: number;
  triggers: number;
  /** Every decision came from the LLM-free heuristics. */
  heuristic: boolean;
  /**
   * `replay`: the supervisor was replayed offline for the corpus; `interventions`: the run already carried supervisor
   * interventions (from the engines panel), and the estimate accounts for exactly those.
   */
  source: 'replay' | 'interventions';
}

/**
 * The supervised counterpart of a recorded run as estimated by a shadow replay: tokens are the counterfactual
 * estimate, overhead the supervisor's own; the outcome is unknown (a replay cannot tell whether the answer would
 * have changed) and no duration is claimed.
 */
export function shadowRunMetrics(recorded: RunMetrics, estimate: ShadowEstimate): RunMetrics {
  return {
    ...recorded,
    id: `${recorded.id}::shadow`,
    title: `${recorded.title} (shadow-supervised estimate)`,
    tags: { ...recorded.tags, arm: 'supervised' },
    arm: 'supervised',
    outcome: 'unknown',
    tokens: estimate.supervisedEstimate,
    tokensEstimated: true,
    overhead: estimate.supervisorOverhead,
    interventions: estimate.interventions,
    durationMs: null,
    shadowOf: recorded.id,
  };
}

export interface ArmStatistics {
  n: number;
  meanTokens: number;
  meanOverhead: number;
  /** Mean of tokens + overhead. */
  meanNetTokens: number;
  variance: number;
  std: number;
  successes: number;
  failures: number;
  unknown: number;
  /** successes / (successes + failures); NaN when no outcome is known. */
  accuracy: number;
  /** Mean duration over runs that record one; NaN when none does. */
  meanDurationMs: number;
  withDuration: number;
  /** Distribution of tokens per run (the run's own tokens, as the paper's Figure 3a plots). */
  violin: ViolinShape | null;
}

export interface GroupStatistics {
  group: string;
  baseline: ArmStatistics;
  supervised: ArmStatistics;
  /** % change of mean net tokens, supervised vs baseline (negative = saving). */
  netTokenChangePct: number;
  /** % change of mean tokens before counting overhead. */
  tokenChangePct: number;
  /** Accuracy difference in percentage points. */
  accuracyChangePp: number;
  varianceReductionPct: number;
  stdReductionPct: number;
  /** Mean supervised duration as % of the baseline's (100 = as slow as the baseline). */
  latencyPct: number;
  /** Mean supervisor overhead as % of the baseline's mean tokens. */
  extraCostPct: number;
}

export interface CorpusStatistics {
  groupBy: string;
  /** One entry per group value, naturally sorted; runs lacking the tag fall in "(none)". */
  groups: GroupStatistics[];
  /**
   * All runs together, whatever their group — but never simulated and recorded runs in one figure: when the corpus
   * holds both, this is the recorded runs only and `overallSimulated` the simulated ones (and groups split the same way).
   */
  overall: GroupStatistics;
  /** Set when the corpus mixes simulated and recorded runs: the simulated runs' own overall figures. */
  overallSimulated?: GroupStatistics;
  /** Runs left out of the arm comparison because their `arm` tag is neither baseline nor supervised. */
  otherArm: number;
  runs: number;
}

export const NO_GROUP = '(none)';
/** Appended to a group's value for its simulated runs when a corpus mixes simulated and recorded runs. */
export const SIMULATED_SUFFIX = ' · simulated';

function armStatistics(runs: RunMetrics[], options: ViolinOptions): ArmStatistics {
  const tokens = runs.map((r) => r.tokens);
  let overhead = 0;
  let successes = 0;
  let failures = 0;
  let duration = 0;
  let withDuration = 0;
  for (const r of runs) {
    overhead += r.overhead;
    if (r.outcome === 'success') successes++;
    else if (r.outcome === 'failure') failures++;
    if (r.durationMs !== null) {
      duration += r.durationMs;
      withDuration++;
    }
  }
  const n = runs.length;
  const meanTokens = mean(tokens);
  const meanOverhead = n === 0 ? NaN : overhead / n;
  const variance = sampleVariance(tokens);
  return {
    n,
    meanTokens,
    meanOverhead,
    meanNetTokens: meanTokens + meanOverhead,
    variance,
    std: Math.sqrt(variance),
    successes,
    failures,
    unknown: n - successes - failures,
    accuracy: successes + failures === 0 ? NaN : successes / (successes + failures),
    meanDurationMs: withDuration === 0 ? NaN : duration / withDuration,
    withDuration,
    violin: violinShape(tokens, options),
  };
}

function groupStatistics(group: string, runs: RunMetrics[], options: ViolinOptions): GroupStatistics {
  const baseline = armStatistics(runs.filter((r) => r.arm === 'baseline'), options);
  const supervised = armStatistics(runs.filter((r) => r.arm === 'supervised'), options);
  return {
    group,
    baseline,
    supervised,
    netTokenChangePct: percentChange(baseline.meanTokens, supervised.meanNetTokens),
    tokenChangePct: percentChange(baseline.meanTokens, supervised.meanTokens),
    accuracyChangePp: (supervised.accuracy - baseline.accuracy) * 100,
    varianceReductionPct: reductionPercent(baseline.variance, supervised.variance),
    stdReductionPct: reductionPercent(baseline.std, supervised.std),
    latencyPct: (supervised.meanDurationMs / baseline.meanDurationMs) * 100,
    extraCostPct: (supervised.meanOverhead / baseline.meanTokens) * 100,
  };
}

const naturalOrder = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** A grouping every run has, whatever its tags: its source format (a tag of the same name wins). */
export const FORMAT_GROUP = 'format';

export function groupKey(run: RunMetrics, groupBy: string): string {
  const value = run.tags[groupBy] ?? (groupBy === FORMAT_GROUP ? run.format : undefined);
  return value === undefined || value === '' ? NO_GROUP : value;
}

/** Everything the corpus charts draw, for runs grouped by the tag `groupBy`. */
export function corpusStatistics(runs: readonly RunMetrics[], groupBy: string, options: ViolinOptions = {}): CorpusStatistics {
  const byGroup = new Map<string, RunMetrics[]>();
  const compared: RunMetrics[] = [];
  const simulated: RunMetrics[] = [];
  let otherArm = 0;
  let anySimulated = false;
  let anyRecorded = false;
  for (const r of runs) {
    if (r.simulated) anySimulated = true;
    else anyRecorded = true;
  }
  // Simulated runs (the sample generator's) and recorded runs are never pooled into one figure (issue 13 item 5).
  const mixed = anySimulated && anyRecorded;
  for (const r of runs) {
    if (r.arm === null) {
      otherArm++;
      continue;
    }
    if (mixed && r.simulated) simulated.push(r);
    else compared.push(r);
    const key = mixed && r.simulated ? `${groupKey(r, groupBy)}${SIMULATED_SUFFIX}` : groupKey(r, groupBy);
    let list = byGroup.get(key);
    if (!list) byGroup.set(key, (list = []));
    list.push(r);
  }
  const keys = [...byGroup.keys()].sort((a, b) => (a === NO_GROUP ? 1 : b === NO_GROUP ? -1 : naturalOrder.compare(a, b)));
  return {
    groupBy,
    groups: keys.map((k) => groupStatistics(k, byGroup.get(k)!, options)),
    overall: groupStatistics('all', compared, options),
    ...(mixed ? { overallSimulated: groupStatistics(`all${SIMULATED_SUFFIX}`, simulated, options) } : {}),
    otherArm,
    runs: runs.length,
  };
}

/** Tag names present on any run, most common first, then the source format (the choices for "group by"). */
export function tagNames(runs: readonly RunMetrics[]): string[] {
  const counts = new Map<string, number>();
  for (const r of runs) for (const k of Object.keys(r.tags)) counts.set(k, (counts.get(k) ?? 0) + 1);
  const names = [...counts.entries()].sort((a, b) => b[1] - a[1] || naturalOrder.compare(a[0], b[0])).map(([k]) => k);
  return counts.has(FORMAT_GROUP) ? names : [...names, FORMAT_GROUP];
}

/**
 * The grouping a corpus opens with: level, then dataset, when at least half the runs carry it (the paper's views);
 * else the most common other tag carried by half the runs; else the source format.
 */
export function defaultGroupBy(runs: readonly RunMetrics[]): string {
  const half = runs.length / 2;
  const carried = (tag: string) => runs.filter((r) => r.tags[tag] !== undefined && r.tags[tag] !== '').length >= half;
  for (const tag of ['level', 'dataset']) if (carried(tag)) return tag;
  return tagNames(runs).find((t) => t !== 'arm' && t !== FORMAT_GROUP && carried(t)) ?? FORMAT_GROUP;
}
