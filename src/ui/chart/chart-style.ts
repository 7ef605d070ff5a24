// Colours, number formats and labels shared by the corpus charts. Baseline red, supervised blue, as in the
// supervisor paper's figures.
import type { Arm } from '../../model/statistics.ts';

export const ARM_COLOR: Record<Arm, string> = { baseline: '#d62728', supervised: '#1f77b4' };
export const ARM_LABEL: Record<Arm, string> = { baseline: 'Baseline', supervised: 'Supervised' };
export const AXIS = '#475569';
export const GRID = '#e2e8f0';
export const FONT = 'ui-sans-serif, system-ui, sans-serif';

const whole = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const one = new Intl.NumberFormat('en', { maximumFractionDigits: 1, minimumFractionDigits: 1 });

/** Tokens as a whole number with thousands separators. */
export const tokens = (n: number) => (Number.isFinite(n) ? whole.format(n) : '—');
/** Tokens in thousands for axes: 0, 2.5K, 80K. */
export const kTokens = (n: number) => (!Number.isFinite(n) ? '—' : n === 0 ? '0' : `${Number((n / 1000).toFixed(1)).toLocaleString('en')}K`);
/** An axis tick in tokens: plain under a thousand (0, 0.5, 250), then in thousands (2.5K). */
export const tokenTick = (n: number) => (!Number.isFinite(n) ? '—' : Math.abs(n) < 1000 ? Number(n.toFixed(1)).toLocaleString('en') : kTokens(n));
/** An axis tick in tokens²: plain under a thousand, then in thousands (K) under a million, then in millions (M). */
export const squareTokenTick = (n: number) =>
  !Number.isFinite(n) ? '—' : Math.abs(n) < 1e6 ? tokenTick(n) : `${(n / 1e6).toLocaleString('en', { maximumFractionDigits: 1 })}M`;
export const pct = (n: number) => (Number.isFinite(n) ? `${one.format(n)}%` : '—');
export const signedPct = (n: number) => (Number.isFinite(n) ? `${n > 0 ? '+' : n < 0 ? '−' : '±'}${one.format(Math.abs(n))}%` : '—');
export const signedPp = (n: number) => (Number.isFinite(n) ? `${n > 0 ? '+' : n < 0 ? '−' : '±'}${one.format(Math.abs(n))} pp` : '—');
export const accuracy = (a: number) => (Number.isFinite(a) ? `${one.format(a * 100)}%` : '—');

/** "level 2" for tag level = 2; the group-by name in front keeps bare numbers readable. */
export const groupLabel = (groupBy: string, group: string) => (group === '(none)' ? `no ${groupBy}` : /^\d/.test(group) ? `${groupBy} ${group}` : group);
