// Corpus statistics of the rectifier (AgentDropoutV2 Figures 3 and 4): per dataset, how messages ended (passed at
// the 1st / 2nd / 3rd … attempt, or rejected), and how much the ten most often retrieved indicators of two datasets
// overlap (Jaccard). Input is a compact summary of the interventions, so it is cheap to send to a worker.
import type { Intervention, Run } from '../../model/types.ts';
import { RECTIFIER_ENGINE } from './replay.ts';
import { rectifierAudit } from './details.ts';

export interface MessageSummary {
  dataset: string;
  /** 1-based attempt that passed; undefined when rejected. */
  passedAt?: number;
  rejected: boolean;
  /** Names of every indicator retrieved over the message's attempts (with repeats). */
  retrieved: string[];
}

export function datasetOf(run: Run): string {
  return run.tags.dataset ?? run.tags.source ?? run.sourceFormat;
}

/** Audited messages (offline retrieval-only results left out: they have no verdict). */
export function summarizeRun(run: Run): MessageSummary[] {
  const dataset = datasetOf(run);
  const out: MessageSummary[] = [];
  for (const iv of run.interventions as Intervention[]) {
    if (iv.engine !== RECTIFIER_ENGINE || !iv.stepId) continue;
    const d = rectifierAudit(iv);
    if (d?.state !== 'pass' && d?.state !== 'rejected') continue;
    const retrieved = d.attempts.flatMap((a) => a.retrieved.map((r) => r.name).filter((n): n is string => typeof n === 'string'));
    out.push({ dataset, passedAt: d.passedAt, rejected: d.state === 'rejected', retrieved });
  }
  return out;
}

export interface RoundDistribution {
  dataset: string;
  messages: number;
  /** passAt[k-1] = messages that passed at the k-th attempt. */
  passAt: number[];
  rejected: number;
}

export function roundDistribution(messages: readonly MessageSummary[]): RoundDistribution[] {
  const by = new Map<string, RoundDistribution>();
  for (const m of messages) {
    let r = by.get(m.dataset);
    if (!r) by.set(m.dataset, (r = { dataset: m.dataset, messages: 0, passAt: [], rejected: 0 }));
    r.messages++;
    if (m.rejected) r.rejected++;
    else if (m.passedAt !== undefined) {
      while (r.passAt.length < m.passedAt) r.passAt.push(0);
      r.passAt[m.passedAt - 1]++;
    }
  }
  return [...by.values()].sort((a, b) => a.dataset.localeCompare(b.dataset));
}

/** The n most often retrieved indicators of each dataset (ties broken by name, so the set is deterministic). */
export function topIndicators(messages: readonly MessageSummary[], n = 10): Map<string, { name: string; count: number }[]> {
  const counts = new Map<string, Map<string, number>>();
  for (const m of messages) {
    let c = counts.get(m.dataset);
    if (!c) counts.set(m.dataset, (c = new Map()));
    for (const name of m.retrieved) c.set(name, (c.get(name) ?? 0) + 1);
  }
  const out = new Map<string, { name: string; count: number }[]>();
  for (const [dataset, c] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    out.set(
      dataset,
      [...c].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, n),
    );
  }
  return out;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

export interface OverlapMatrix {
  datasets: string[];
  /** values[i][j] = Jaccard of the top-n sets of datasets i and j. */
  values: number[][];
}

export function indicatorOverlap(top: ReadonlyMap<string, readonly { name: string }[]>): OverlapMatrix {
  const datasets = [...top.keys()];
  const sets = datasets.map((d) => new Set(top.get(d)!.map((x) => x.name)));
  return { datasets, values: sets.map((a) => sets.map((b) => jaccard(a, b))) };
}

export interface RectifierStatistics {
  rounds: RoundDistribution[];
  top: { dataset: string; indicators: { name: string; count: number }[] }[];
  overlap: OverlapMatrix;
}

export function rectifierStatistics(messages: readonly MessageSummary[], n = 10): RectifierStatistics {
  const top = topIndicators(messages, n);
  return { rounds: roundDistribution(messages), top: [...top].map(([dataset, indicators]) => ({ dataset, indicators })), overlap: indicatorOverlap(top) };
}
