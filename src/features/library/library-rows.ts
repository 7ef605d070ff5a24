// The library's runs as one list across every open file: one row per run with the figures the table shows, and
// the search, filters and sort over them. Pure: the table (library-table.tsx) renders what this returns.
import { runDuration, summarizeRun, type RunSummary } from '../../model/summary.ts';
import { scoreCounts } from '../../model/annotations.ts';
import type { Run } from '../../model/types.ts';
import type { LibraryFile } from '../../store/library.ts';

export interface LibraryRow {
  run: Run;
  file: LibraryFile;
  summary: RunSummary;
  /** The title shown: the run's title, with the end of its id when another run has the same title. */
  title: string;
  duration?: number;
  scores: number;
  labels: number;
  /** Lower-cased title, id, task and file name, for the search. */
  haystack: string;
}

const summaries = new WeakMap<Run, RunSummary>();

/** Runs are immutable in the store, so a summary is computed once per run object. */
export function summaryOf(run: Run): RunSummary {
  let s = summaries.get(run);
  if (!s) {
    s = summarizeRun(run);
    summaries.set(run, s);
  }
  return s;
}

/** The end of an id that tells apart runs with the same title. */
export function idSuffix(id: string): string {
  return id.length <= 10 ? id : `…${id.slice(-8)}`;
}

export function buildRows(files: readonly LibraryFile[], runs: Record<string, Run>): LibraryRow[] {
  const rows: LibraryRow[] = [];
  const titleCount = new Map<string, number>();
  for (const file of files) {
    for (const id of file.runIds) {
      if (!Object.hasOwn(runs, id)) continue;
      const run = runs[id];
      const title = run.title || run.id;
      titleCount.set(title, (titleCount.get(title) ?? 0) + 1);
      const summary = summaryOf(run);
      const { scores, labels } = scoreCounts(run);
      const duration = runDuration(run);
      rows.push({
        run,
        file,
        summary,
        title,
        duration,
        scores,
        labels,
        haystack: `${title}\n${run.id}\n${run.task ?? ''}\n${file.name}`.toLowerCase(),
      });
    }
  }
  for (const row of rows) if ((titleCount.get(row.title) ?? 0) > 1) row.title = `${row.title} · ${idSuffix(row.run.id)}`;
  return rows;
}

export type Origin = 'all' | 'simulated' | 'recorded';

export interface RowQuery {
  search: string;
  format: string;
  outcome: string;
  origin: Origin;
  fileId: string;
  sort: SortKey;
  descending: boolean;
}

export const EMPTY_QUERY: RowQuery = { search: '', format: '', outcome: '', origin: 'all', fileId: '', sort: 'file', descending: false };

export const SORT_KEYS = ['file', 'run', 'format', 'dataset', 'agents', 'steps', 'tokens', 'duration', 'outcome', 'scores', 'labels', 'origin'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

const sortValue: Record<SortKey, (r: LibraryRow) => string | number> = {
  file: (r) => r.file.name,
  run: (r) => r.title.toLowerCase(),
  format: (r) => r.file.formatLabel,
  dataset: (r) => r.run.tags.dataset ?? '',
  agents: (r) => r.summary.agents.length,
  steps: (r) => r.summary.steps,
  tokens: (r) => r.summary.tokens.total,
  duration: (r) => r.duration ?? -1,
  outcome: (r) => r.summary.outcome,
  scores: (r) => r.scores,
  labels: (r) => r.labels,
  origin: (r) => (r.run.simulated ? 1 : 0),
};

/** The rows a query shows, in its order (a stable sort: equal keys keep the files' order). Linear filter, n log n sort. */
export function queryRows(rows: readonly LibraryRow[], q: RowQuery): LibraryRow[] {
  const needle = q.search.trim().toLowerCase();
  const words = needle === '' ? [] : needle.split(/\s+/);
  const shown = rows.filter(
    (r) =>
      (q.fileId === '' || r.file.id === q.fileId) &&
      (q.format === '' || r.file.formatLabel === q.format) &&
      (q.outcome === '' || r.summary.outcome === q.outcome) &&
      (q.origin === 'all' || (q.origin === 'simulated') === (r.run.simulated === true)) &&
      words.every((w) => r.haystack.includes(w)),
  );
  const key = sortValue[q.sort];
  const sign = q.descending ? -1 : 1;
  const keyed = shown.map((r, i) => ({ r, k: key(r), i }));
  keyed.sort((a, b) => (a.k < b.k ? -sign : a.k > b.k ? sign : a.i - b.i));
  return keyed.map((x) => x.r);
}
