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
  // Each unit is chosen after rounding, so 59.97 s never reads "60.0 s" nor 119.6 s "1 min 60 s".
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  if (ms < 9_995) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  const whole = Math.round(ms / 60_000);
  return `${Math.floor(whole / 60)} h ${whole % 60} min`;
}

/** A value as indented JSON for display; its String() when it cannot be serialised (a cycle, a BigInt). */
export function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
