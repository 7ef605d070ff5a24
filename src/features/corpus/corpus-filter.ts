// Filtering and sorting of the corpus table (pure, so the table, the charts and the CSV agree on the same rows).
import { groupKey, type RunMetrics } from '../../model/statistics.ts';

export type SortKey = 'title' | 'task' | 'dataset' | 'level' | 'group' | 'arm' | 'outcome' | 'steps' | 'tokens' | 'overhead' | 'interventions';
export const SORT_KEYS: readonly SortKey[] = ['title', 'task', 'dataset', 'level', 'group', 'arm', 'outcome', 'steps', 'tokens', 'overhead', 'interventions'];

export interface CorpusQuery {
  groupBy: string;
  /** Case-insensitive text in the title, task or id. */
  text: string;
  arm: '' | 'baseline' | 'supervised' | 'other';
  outcome: '' | 'success' | 'failure' | 'unknown';
  /** Only runs whose group-by tag has this value ('' = all). */
  group: string;
  sort: SortKey;
  descending: boolean;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function sortValue(r: RunMetrics, key: SortKey, groupBy: string): string | number {
  switch (key) {
    case 'title':
      return r.title;
    case 'task':
      return r.task;
    case 'dataset':
      return r.tags.dataset ?? '';
    case 'level':
      return r.tags.level ?? '';
    case 'group':
      return groupKey(r, groupBy);
    case 'arm':
      return r.arm ?? 'other';
    case 'outcome':
      return r.outcome;
    default:
      return r[key];
  }
}

export function filterRuns(runs: readonly RunMetrics[], q: CorpusQuery): RunMetrics[] {
  const needle = q.text.trim().toLowerCase();
  const kept = runs.filter(
    (r) =>
      (!needle || r.title.toLowerCase().includes(needle) || r.task.toLowerCase().includes(needle) || r.id.toLowerCase().includes(needle)) &&
      (!q.arm || (r.arm ?? 'other') === q.arm) &&
      (!q.outcome || r.outcome === q.outcome) &&
      (!q.group || groupKey(r, q.groupBy) === q.group),
  );
  const sign = q.descending ? -1 : 1;
  return kept.sort((a, b) => {
    const x = sortValue(a, q.sort, q.groupBy);
    const y = sortValue(b, q.sort, q.groupBy);
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return sign * c || collator.compare(a.id, b.id);
  });
}
