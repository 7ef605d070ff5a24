// Expected values are worked out by hand in the comments (φ(u) = e^(−u²/2)/√(2π): φ(0) = 0.39894228,
// φ(1) = 0.24197072, φ(2) = 0.05399097, φ(3) = 0.00443185, φ(4) = 0.00013383), never taken from the code under test.
import { describe, expect, it } from 'vitest';
import { makeRun } from '../testing/test-runs.ts';
import {
  armOf,
  corpusStatistics,
  defaultGroupBy,
  gaussianKde,
  hasTokenCount,
  linearGrid,
  mean,
  NO_GROUP,
  SIMULATED_SUFFIX,
  percentChange,
  quantile,
  reductionPercent,
  runMetrics,
  sampleVariance,
  shadowRunMetrics,
  silvermanBandwidth,
  standardDeviation,
  tagNames,
  violinShape,
  type RunMetrics,
} from './statistics.ts';

describe('quantiles (type 7)', () => {
  // Sorted [10, 20, 30, 40], n = 4, h = (n − 1)·p = 3p.
  const xs = [40, 10, 30, 20];
  it('interpolates linearly between order statistics', () => {
    // p = 0.25: h = 0.75 → 10 + 0.75·(20 − 10) = 17.5
    expect(quantile(xs, 0.25)).toBeCloseTo(17.5, 12);
    // p = 0.5: h = 1.5 → 20 + 0.5·(30 − 20) = 25
    expect(quantile(xs, 0.5)).toBeCloseTo(25, 12);
    // p = 0.75: h = 2.25 → 30 + 0.25·10 = 32.5
    expect(quantile(xs, 0.75)).toBeCloseTo(32.5, 12);
    // p = 0.9: h = 2.7 → 30 + 0.7·10 = 37
    expect(quantile(xs, 0.9)).toBeCloseTo(37, 12);
  });
  it('returns the extremes at 0 and 1, the single value for n = 1, NaN when empty', () => {
    expect(quantile(xs, 0)).toBe(10);
    expect(quantile(xs, 1)).toBe(40);
    expect(quantile([7], 0.3)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
  });
  it('sorts numerically, not as text', () => {
    // As strings 100 < 9 < 20; numerically the median of [9, 20, 100] is 20.
    expect(quantile([100, 9, 20], 0.5)).toBe(20);
  });
});

describe('mean, sample variance and standard deviation', () => {
  // [2, 4, 4, 4, 5, 5, 7, 9]: sum 40, mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; variance 32/7 = 4.5714286;
  // sd = √4.5714286 = 2.1380899.
  const xs = [2, 4, 4, 4, 5, 5, 7, 9];
  it('uses the n − 1 divisor', () => {
    expect(mean(xs)).toBe(5);
    expect(sampleVariance(xs)).toBeCloseTo(32 / 7, 12);
    expect(standardDeviation(xs)).toBeCloseTo(2.1380899, 6);
  });
  it('is undefined below two values', () => {
    expect(sampleVariance([3])).toBeNaN();
    expect(mean([])).toBeNaN();
  });
});

describe("Silverman's rule of thumb (bw.nrd0)", () => {
  it('takes the smaller of s and IQR/1.34', () => {
    // [1..5]: s = √2.5 = 1.5811388; Q1 = x[1] = 2, Q3 = x[3] = 4, IQR/1.34 = 2/1.34 = 1.4925373 (the smaller);
    // 5^(−1/5) = 0.7247797; h = 0.9 · 1.4925373 · 0.7247797 = 0.9735846.
    expect(silvermanBandwidth([1, 2, 3, 4, 5])).toBeCloseTo(0.9735846, 6);
  });
  it('falls back to s when the IQR is 0', () => {
    // [1, 1, 1, 1, 10]: Q1 = Q3 = 1 → IQR 0. mean 2.8; squared deviations 4·3.24 + 51.84 = 64.8; s² = 64.8/4 = 16.2;
    // s = 4.0249224; h = 0.9 · 4.0249224 · 0.7247797 = 2.6254637.
    expect(silvermanBandwidth([1, 1, 1, 1, 10])).toBeCloseTo(2.6254637, 6);
  });
  it('falls back to |x₁| when all values are equal', () => {
    // [3, 3, 3, 3]: s = IQR = 0 → spread |3| = 3; 4^(−1/5) = 0.7578583; h = 0.9 · 3 · 0.7578583 = 2.0462174.
    expect(silvermanBandwidth([3, 3, 3, 3])).toBeCloseTo(2.0462174, 6);
    // All zeros: spread falls back to 1 → h = 0.9 · 4^(−1/5) = 0.6820725.
    expect(silvermanBandwidth([0, 0, 0, 0])).toBeCloseTo(0.6820725, 6);
  });
});

describe('Gaussian KDE', () => {
  const xs = [1, 2, 3, 4, 5];
  it('matches the formula at hand-picked points (h = 1)', () => {
    // x = 3: (1/5)·(φ(2) + φ(1) + φ(0) + φ(1) + φ(2)) = 0.2 · (0.10798193 + 0.48394145 + 0.39894228) = 0.19817313
    // x = 1: (1/5)·(φ(0) + φ(1) + φ(2) + φ(3) + φ(4)) = 0.2 · 0.69946965 = 0.13989393
    const [at3, at1] = gaussianKde(xs, 1, [3, 1]);
    expect(at3).toBeCloseTo(0.19817313, 7);
    expect(at1).toBeCloseTo(0.13989393, 7);
  });
  it('scales with the bandwidth (h = 2 at x = 3)', () => {
    // u = (3 − xᵢ)/2 = 1, 0.5, 0, −0.5, −1; φ(0.5) = 0.35206533;
    // (1/(5·2))·(2·0.24197072 + 2·0.35206533 + 0.39894228) = 0.1 · 1.58701438 = 0.15870144
    expect(gaussianKde(xs, 2, [3])[0]).toBeCloseTo(0.15870144, 7);
  });
  it('integrates to about 1 over a wide grid', () => {
    const grid = linearGrid(-10, 16, 2601); // spacing 0.01
    const d = gaussianKde(xs, 1, grid);
    let area = 0;
    for (let i = 1; i < d.length; i++) area += ((d[i] + d[i - 1]) / 2) * 0.01;
    expect(area).toBeCloseTo(1, 4);
  });
});

describe('violin shape', () => {
  it('spans the data range with quartiles marked', () => {
    // [1..5] with 5 grid points: grid = 1, 2, 3, 4, 5; Q1 = 2, median = 3, Q3 = 4; symmetric data → symmetric density.
    const v = violinShape([5, 1, 4, 2, 3], { gridSize: 5 })!;
    expect(v.grid).toEqual([1, 2, 3, 4, 5]);
    expect([v.q1, v.median, v.q3, v.min, v.max, v.mean]).toEqual([2, 3, 4, 1, 5, 3]);
    expect(v.density[0]).toBeCloseTo(v.density[4], 12);
    expect(v.density[2]).toBeGreaterThan(v.density[1]);
  });
  it('estimates the density of log10(tokens) on request', () => {
    // [1, 10, 100, 1000, 10000] → log10 = [0, 1, 2, 3, 4]: the same spread as [1..5], so h = 0.9735846 (log10 units).
    // Grid in log space 0, 1, 2, 3, 4 → tokens 1, 10, 100, 1000, 10000. Density at log10 = 2:
    // u = (2 − xᵢ)/h = ±2.0542642, ±1.0271321, 0; φ = 0.04836692, 0.23540716, 0.39894228;
    // (1/(5·0.9735846))·(2·0.04836692 + 2·0.23540716 + 0.39894228) = 0.96649044/4.867923 = 0.19854267.
    // Quartiles stay those of the raw values: Q1 = x[1] = 10, median 100, Q3 = 1000.
    const v = violinShape([10000, 1, 100, 10, 1000], { gridSize: 5, logScale: true })!;
    expect(v.bandwidth).toBeCloseTo(0.9735846, 6);
    v.grid.forEach((g, i) => expect(g).toBeCloseTo([1, 10, 100, 1000, 10000][i], 9));
    expect(v.density[2]).toBeCloseTo(0.19854267, 7);
    expect([v.q1, v.median, v.q3]).toEqual([10, 100, 1000]);
  });
  it('has no density for a single run and nothing for none', () => {
    const one = violinShape([42])!;
    expect(one.median).toBe(42);
    expect(one.density).toEqual([]);
    expect(violinShape([])).toBeNull();
    // Three runs of 500 tokens: a point at 500, no shape.
    const same = violinShape([500, 500, 500])!;
    expect([same.median, same.density.length, same.grid]).toEqual([500, 0, [500]]);
  });
});

describe('changes', () => {
  it('computes % change and % reduction', () => {
    // 200 → 150: (150 − 200)/200 = −25 %; variance 10000 → 2500: 1 − 0.25 = 75 % smaller.
    expect(percentChange(200, 150)).toBe(-25);
    expect(reductionPercent(10000, 2500)).toBe(75);
    expect(percentChange(0, 5)).toBeNaN();
  });
});

function metrics(id: string, patch: Partial<RunMetrics>): RunMetrics {
  return {
    id,
    title: id,
    task: '',
    tags: {},
    format: 'native',
    arm: 'baseline',
    outcome: 'success',
    steps: 1,
    agents: 1,
    tokens: 0,
    tokensEstimated: false,
    overhead: 0,
    interventions: 0,
    durationMs: null,
    simulated: true,
    ...patch,
  };
}

describe('corpus statistics per group', () => {
  // Level 1 — baseline tokens 100, 200, 300 (success, failure, success; 1000, 2000, 3000 ms);
  //           supervised tokens 100, 150, 200, each with 10 overhead tokens (all success; 1000, 1000, 1600 ms).
  const level1: RunMetrics[] = [
    metrics('b1', { tags: { level: '1' }, tokens: 100, durationMs: 1000 }),
    metrics('b2', { tags: { level: '1' }, tokens: 200, outcome: 'failure', durationMs: 2000 }),
    metrics('b3', { tags: { level: '1' }, tokens: 300, durationMs: 3000 }),
    metrics('s1', { tags: { level: '1', arm: 'supervised' }, arm: 'supervised', tokens: 100, overhead: 10, durationMs: 1000 }),
    metrics('s2', { tags: { level: '1', arm: 'supervised' }, arm: 'supervised', tokens: 150, overhead: 10, durationMs: 1000 }),
    metrics('s3', { tags: { level: '1', arm: 'supervised' }, arm: 'supervised', tokens: 200, overhead: 10, durationMs: 1600 }),
  ];
  const others: RunMetrics[] = [
    metrics('x', { tags: { level: '10' }, tokens: 50 }),
    metrics('y', { tags: { level: '2' }, tokens: 70, outcome: 'unknown' }),
    metrics('z', { tags: {}, tokens: 90 }),
    metrics('w', { tags: { level: '2', arm: 'ablation' }, arm: null }),
  ];
  const stats = corpusStatistics([...others, ...level1], 'level');

  it('orders groups naturally with untagged runs last and leaves other arms out', () => {
    expect(stats.groups.map((g) => g.group)).toEqual(['1', '2', '10', NO_GROUP]);
    expect(stats.otherArm).toBe(1);
    expect(stats.runs).toBe(10);
    expect(stats.overall.baseline.n).toBe(6);
  });

  it('never pools simulated and recorded runs into one figure: the overall row and the groups split by provenance', () => {
    // Recorded baselines (all failures) beside simulated supervised runs (all successes): pooled, "+100 pp accuracy".
    const mixed = corpusStatistics(
      [
        metrics('r1', { tags: { level: '1' }, simulated: false, tokens: 1000, outcome: 'failure' }),
        metrics('r2', { tags: { level: '1' }, simulated: false, tokens: 1200, outcome: 'failure' }),
        metrics('m1', { tags: { level: '1', arm: 'supervised' }, arm: 'supervised', simulated: true, tokens: 100 }),
        metrics('m2', { tags: { level: '1' }, simulated: true, tokens: 300 }),
      ],
      'level',
    );
    expect(mixed.overall.baseline.n).toBe(2);
    expect(mixed.overall.supervised.n).toBe(0);
    expect(Number.isNaN(mixed.overall.accuracyChangePp)).toBe(true);
    expect(mixed.overallSimulated?.baseline.n).toBe(1);
    expect(mixed.overallSimulated?.supervised.n).toBe(1);
    expect(mixed.groups.map((g) => [g.group, g.baseline.n, g.supervised.n])).toEqual([
      ['1', 2, 0],
      [`1${SIMULATED_SUFFIX}`, 1, 1],
    ]);
    // A corpus of one provenance has one overall row, as before.
    expect(stats.overallSimulated).toBeUndefined();
  });

  it('computes means, variances, accuracy and changes net of overhead', () => {
    const g = stats.groups[0];
    // Baseline: mean (100+200+300)/3 = 200; variance (100² + 0 + 100²)/2 = 10000; sd 100; accuracy 2/(2+1).
    expect(g.baseline.meanTokens).toBe(200);
    expect(g.baseline.variance).toBe(10000);
    expect(g.baseline.accuracy).toBeCloseTo(2 / 3, 12);
    // Supervised: mean 150; variance (50² + 0 + 50²)/2 = 2500; sd 50; mean overhead 10 → mean net 160; accuracy 3/3.
    expect(g.supervised.meanTokens).toBe(150);
    expect(g.supervised.variance).toBe(2500);
    expect(g.supervised.meanNetTokens).toBe(160);
    expect(g.supervised.accuracy).toBe(1);
    // Net change (160 − 200)/200 = −20 %; before overhead (150 − 200)/200 = −25 %.
    expect(g.netTokenChangePct).toBeCloseTo(-20, 12);
    expect(g.tokenChangePct).toBeCloseTo(-25, 12);
    // Variance 1 − 2500/10000 = 75 % smaller; sd 1 − 50/100 = 50 % smaller; accuracy +(1 − 2/3) = +33.33 pp.
    expect(g.varianceReductionPct).toBeCloseTo(75, 12);
    expect(g.stdReductionPct).toBeCloseTo(50, 12);
    expect(g.accuracyChangePp).toBeCloseTo(33.333333, 5);
    // Latency: supervised mean (1000+1000+1600)/3 = 1200 ms vs baseline 2000 ms → 60 %; extra cost 10/200 = 5 %.
    expect(g.latencyPct).toBeCloseTo(60, 12);
    expect(g.extraCostPct).toBeCloseTo(5, 12);
    // Violins: baseline quartiles over [100, 200, 300]: Q1 h = 0.5 → 150, median 200, Q3 250.
    expect([g.baseline.violin!.q1, g.baseline.violin!.median, g.baseline.violin!.q3]).toEqual([150, 200, 250]);
  });

  it('keeps unknown outcomes out of accuracy', () => {
    const level2 = stats.groups[1];
    expect(level2.baseline.unknown).toBe(1);
    expect(level2.baseline.accuracy).toBeNaN();
  });

  it('lists tag names, most common first', () => {
    expect(tagNames([...others, ...level1])).toEqual(['level', 'arm', 'format']);
  });

  it('opens on level when half the runs carry it, else on the source format', () => {
    expect(defaultGroupBy([...others, ...level1])).toBe('level');
    const untagged = [metrics('u1', { format: 'otlp' }), metrics('u2', { format: 'chat-log' }), metrics('u3', { tags: { level: '1' } })];
    expect(defaultGroupBy(untagged)).toBe('format');
    expect(corpusStatistics(untagged, 'format').groups.map((g) => g.group)).toEqual(['chat-log', 'native', 'otlp']);
  });
});

describe('per-run metrics', () => {
  it('counts overhead from interventions and reads the arm tag', () => {
    const run = makeRun('r', {
      tags: { arm: 'Supervised', level: '2' },
      startTime: 1000,
      endTime: 4500,
      interventions: [
        { id: 'i1', engine: 'supervisor', action: 'approve', reason: 'loop', heuristic: false, tokens: { input: 30, output: 12, total: 42 } },
        { id: 'i2', engine: 'supervisor', action: 'approve', reason: 'loop', heuristic: true },
      ],
    });
    const m = runMetrics(run);
    // makeRun has one action step holding one model call of 15 tokens.
    expect(m).toMatchObject({ arm: 'supervised', tokens: 15, overhead: 42, interventions: 2, steps: 1, durationMs: 3500 });
  });
  it('treats a missing arm as baseline and an unknown one as outside the comparison', () => {
    expect(armOf({})).toBe('baseline');
    expect(armOf({ arm: 'ablation' })).toBeNull();
  });
});

describe('shadow estimates', () => {
  it('become a supervised run with unknown outcome and the estimated tokens', () => {
    const recorded = runMetrics(makeRun('r', { tags: { level: '1' }, startTime: 0, endTime: 10 }));
    const m = shadowRunMetrics(recorded, { runId: 'r', status: 'complete', baseline: 15, supervisedEstimate: 9, supervisorOverhead: 2, interventions: 1, triggers: 1, heuristic: true, source: 'replay' });
    expect(m).toMatchObject({ id: 'r::shadow', arm: 'supervised', outcome: 'unknown', tokens: 9, overhead: 2, tokensEstimated: true, durationMs: null, shadowOf: 'r' });
    expect(m.tags).toEqual({ level: '1', arm: 'supervised' });
  });
});

describe('hasTokenCount', () => {
  it('a run with steps, or a shadow estimate, has a token count; a result line without steps has none', () => {
    expect(hasTokenCount(runMetrics(makeRun('r')))).toBe(true);
    expect(hasTokenCount(runMetrics(makeRun('result', { steps: [], agentRuns: [] })))).toBe(false);
    expect(hasTokenCount({ steps: 0, shadowOf: 'r' })).toBe(true);
  });
});
