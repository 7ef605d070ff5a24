// Engine costs in words (issue 21): the estimate a person sees before pressing Run, and what a finished pass spent,
// split into one-time and per-run costs, with "served from cache" and "estimated" said where they apply.
import type { CostEstimate, EngineCost, OneTimeCost, PerRunCost, TokenCounts } from '../llm/cost.ts';

const n = (x: number) => x.toLocaleString('en');
const plural = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? '' : 's'}`;
const split = (t: TokenCounts) => (t.output > 0 ? ` (${n(t.input)} in, ${n(t.output)} out)` : '');

/** The per-run part of an estimate: every call but the one-time ones (counted apart, or not at all when cached). */
export function estimatePerRun(e: CostEstimate): { calls: number; tokens: TokenCounts } {
  const calls = e.runs.reduce((s, r) => s + r.calls, 0);
  const tokens = { input: 0, output: 0, total: 0 };
  for (const r of e.runs) {
    tokens.input += r.tokens.input;
    tokens.output += r.tokens.output;
    tokens.total += r.tokens.total;
  }
  return { calls, tokens };
}

/** "12 calls · ~34,567 tokens (30,000 in, 4,567 out)": the per-run part of an estimate. */
export function estimateLine(e: CostEstimate): string {
  const { calls, tokens } = estimatePerRun(e);
  if (calls === 0) return 'no call: nothing would be sent';
  return `${plural(calls, 'call')} · ~${n(tokens.total)} tokens${split(tokens)}`;
}

/** The one-time part of an estimate (a pool's embeddings), or undefined when the engine has none. */
export function estimateOneTimeLine(e: CostEstimate): string | undefined {
  const o = e.oneTime;
  if (!o) return undefined;
  return o.cached ? 'one-time pool embedding: cached, no request' : `one-time pool embedding: ${plural(o.calls, 'call')} · ~${n(o.tokens.total)} tokens, then cached`;
}

/** "16 calls · 33,062 tokens (…)" of a finished pass, "estimated" when some usage was counted here. */
export function perRunLine(c: PerRunCost): string {
  return `${plural(c.calls, 'call')} · ${n(c.tokens.total)} tokens${split(c.tokens)}${c.estimated ? ' (estimated: the endpoint returned no usage for some calls)' : ''}`;
}

export function oneTimeLine(o: OneTimeCost): string {
  if (o.cached) return `${o.what}: served from cache, no request`;
  return `${o.what}: ${plural(o.calls, 'call')} · ${n(o.tokens.total)} tokens${o.estimated ? ' (estimated)' : ''}`;
}

/** The whole spend of a pass: per-run plus the one-time cost it paid (nothing when the cache served it). */
export function totalSpent(c: EngineCost): number {
  return c.perRun.tokens.total + (c.oneTime && !c.oneTime.cached ? c.oneTime.tokens.total : 0);
}
