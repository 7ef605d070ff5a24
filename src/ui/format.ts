// Numbers and durations as the views show them (token counts, step times).

/** One formatter for every whole count (toLocaleString makes one per call: lists and progress redraw many). */
const COUNT_FORMAT = new Intl.NumberFormat('en');

/** A count with thousands separators, as 12,345. */
export function formatCount(n: number): string {
  return COUNT_FORMAT.format(n);
}

/** A count and its noun, singular for one: "1 agent", "12,345 steps" (`many` when the plural is not the noun + s). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** The playhead's place as the toolbars show it: "step 3 / 1,200", or "no steps" for a run without any (not "step 1 / 0"). */
export function stepPosition(position: number, total: number): string {
  return total === 0 ? 'no steps' : `step ${formatCount(position + 1)} / ${formatCount(total)}`;
}

export function compact(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A value as indented JSON for display; its String() when it cannot be serialised (a cycle, a BigInt). */
export function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
