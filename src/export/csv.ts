// CSV export (SPEC §3): per-run metrics, and the numbers behind each corpus chart. RFC 4180 quoting; text cells that
// a spreadsheet would run as a formula (leading = + - @, tab, CR) are prefixed with ' — trace text is untrusted.
import { hasTokenCount, type RunMetrics } from '../model/statistics.ts';

export type CsvCell = string | number | boolean | null | undefined;

function cell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows of cells as CSV text, lines ending in CRLF as RFC 4180 asks. Non-finite numbers become empty cells. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** One line per run: identity, every tag (one column per tag name), outcome and the figures the corpus table shows. */
export function runMetricsCsv(runs: readonly RunMetrics[]): string {
  const tagColumns = [...new Set(runs.flatMap((r) => Object.keys(r.tags)))].sort();
  const header = [
    'run_id',
    'title',
    'task',
    ...tagColumns.map((t) => `tag_${t}`),
    'format',
    'arm',
    'outcome',
    'steps',
    'agents',
    'tokens',
    'tokens_estimated',
    'supervisor_overhead_tokens',
    'net_tokens',
    'interventions',
    'duration_ms',
    'simulated',
    'shadow_estimate_of',
  ];
  const rows = runs.map((r) => {
    // A run without steps (a benchmark result line) has no token count: left empty, as the table shows "—", so a
    // spreadsheet's mean does not take its 0 for a measurement.
    const counted = hasTokenCount(r);
    return [
    r.id,
    r.title,
    r.task,
    ...tagColumns.map((t) => r.tags[t]),
    r.format,
    r.arm ?? 'other',
    r.outcome,
    r.steps,
    r.agents,
    counted ? r.tokens : undefined,
    counted ? r.tokensEstimated : undefined,
    counted ? r.overhead : undefined,
    counted ? r.tokens + r.overhead : undefined,
    r.interventions,
    r.durationMs,
    r.simulated,
    r.shadowOf ?? '',
    ];
  });
  return toCsv(header, rows);
}
