// Token usage of a call: what the server reported, else counted with the o200k counter and marked `estimated`. The
// counter's table (token-table.ts, ADR 0070) is loaded only when a server leaves usage out or an estimate is asked for.
import type { TokenUsage } from '../model/types.ts';

interface OpenAiUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown };
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

export function usageFromResponse(body: unknown): TokenUsage | undefined {
  const u = (body as { usage?: OpenAiUsage } | null)?.usage;
  if (!u || typeof u !== 'object') return undefined;
  const input = num(u.prompt_tokens);
  const output = num(u.completion_tokens) ?? 0;
  if (input === undefined) return undefined;
  const usage: TokenUsage = { input, output, total: num(u.total_tokens) ?? input + output };
  const cached = num(u.prompt_tokens_details?.cached_tokens);
  if (cached !== undefined) usage.cached = cached;
  return usage;
}

let countTokensPromise: Promise<(text: string) => number> | undefined;

export function loadTokenCounter(): Promise<(text: string) => number> {
  countTokensPromise ??= import('./token-table.ts').then(async (m) => {
    const count = await m.loadO200kCounter();
    return (text: string) => (text ? count(text) : 0);
  });
  return countTokensPromise;
}

export async function estimateUsage(inputText: string, outputText: string): Promise<TokenUsage> {
  const count = await loadTokenCounter();
  const input = count(inputText);
  const output = count(outputText);
  return { input, output, total: input + output, estimated: true };
}
