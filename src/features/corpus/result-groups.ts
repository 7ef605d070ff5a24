// Result corpora (issue 15): runs that carry only a benchmark result (Run.benchmark: exact match, contains, duration,
// scored by the benchmark's own rule at import) compared by configuration — the file they came from, the team's
// agent_action_type, the dataset (`source`) or the model. Every figure carries the n it is computed over.
import { ownValue } from '../../model/record.ts';
import type { Run } from '../../model/types.ts';

export const RESULT_GROUPINGS = ['file', 'agent_action_type', 'source', 'model'] as const;
export type ResultGrouping = (typeof RESULT_GROUPINGS)[number];

export interface ResultGroup {
  group: string;
  /** Runs with a benchmark result in the group: the n of both accuracies. */
  n: number;
  exactMatch: number;
  contains: number;
  /** Share of n, 0..1 (NaN for an empty group). */
  exactMatchRate: number;
  containsRate: number;
  /** Mean duration in seconds over the runs that record one; `durationN` of them. */
  meanDurationS: number;
  durationN: number;
}

export function hasBenchmark(run: Run): boolean {
  return run.benchmark !== undefined;
}

/** The configuration a run belongs to under `by`; `fileOf` names the library file a run came from. */
export function resultKey(run: Run, by: ResultGrouping, fileOf: (runId: string) => string | undefined): string {
  switch (by) {
    case 'file':
      return fileOf(run.id) ?? '(no file)';
    case 'agent_action_type': {
      const raw = run.raw ? ownValue(run.raw, 'agent_action_type') : undefined;
      return typeof raw === 'string' && raw !== '' ? raw : (run.tags.agent_action_type ?? '(none)');
    }
    case 'source':
      return run.tags.dataset ?? '(none)';
    case 'model':
      return run.models?.[0] ?? '(none)';
  }
}

export function resultGroups(runs: readonly Run[], by: ResultGrouping, fileOf: (runId: string) => string | undefined): ResultGroup[] {
  const groups = new Map<string, ResultGroup>();
  const durationSum = new Map<string, number>();
  for (const run of runs) {
    const b = run.benchmark;
    if (!b) continue;
    const key = resultKey(run, by, fileOf);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { group: key, n: 0, exactMatch: 0, contains: 0, exactMatchRate: NaN, containsRate: NaN, meanDurationS: NaN, durationN: 0 }));
    g.n++;
    g.exactMatch += b.exactMatch;
    g.contains += b.contains;
    if (b.durationS !== undefined && Number.isFinite(b.durationS)) {
      g.durationN++;
      durationSum.set(key, (durationSum.get(key) ?? 0) + b.durationS);
    }
  }
  const out = [...groups.values()];
  for (const g of out) {
    g.exactMatchRate = g.n === 0 ? NaN : g.exactMatch / g.n;
    g.containsRate = g.n === 0 ? NaN : g.contains / g.n;
    g.meanDurationS = g.durationN === 0 ? NaN : (durationSum.get(g.group) ?? 0) / g.durationN;
  }
  return out.sort((a, b) => a.group.localeCompare(b.group, 'en'));
}
