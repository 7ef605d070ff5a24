// What an engine spends, in one shape for every engine (issue 21): one-time costs (a pool's embeddings, cached
// afterwards) and per-run costs, always the usage the endpoint returned (marked estimated where it returned none);
// and what a pass will cost before it runs, from the run's own sizes counted with the project's tokenizer.
import type { TokenUsage } from '../model/types.ts';
import { loadTokenCounter } from './usage.ts';

export interface TokenCounts {
  input: number;
  output: number;
  total: number;
}

/** Spent once and kept (a pool's embeddings): `cached` when the cache served them and nothing was sent. */
export interface OneTimeCost {
  calls: number;
  tokens: TokenCounts;
  cached: boolean;
  estimated: boolean;
  what: string;
}

export interface PerRunCost {
  calls: number;
  tokens: TokenCounts;
  /** Some call's usage was counted with the tokenizer because the endpoint returned none. */
  estimated: boolean;
}

/** Every engine result carries this. `oneTime` is null for engines with no one-time cost. */
export interface EngineCost {
  oneTime: OneTimeCost | null;
  perRun: PerRunCost;
}

export interface RunCostEstimate {
  runId: string;
  calls: number;
  tokens: TokenCounts;
}

/** What a pass would cost, computed before any request. */
export interface CostEstimate {
  basis: 'estimate';
  /** Every call, one-time calls included. */
  calls: number;
  tokens: TokenCounts;
  oneTime?: { calls: number; tokens: TokenCounts; cached: boolean; what: string };
  runs: RunCostEstimate[];
  /** For a batch: the estimate of each arm. */
  perArm?: { arm: string; calls: number; tokens: TokenCounts }[];
  /** How the output sizes (and any path the answers decide) were assumed. */
  assumptions: string[];
}

export const zeroCounts = (): TokenCounts => ({ input: 0, output: 0, total: 0 });

/** A running sum of calls and usage. */
export class CostTally {
  calls = 0;
  readonly tokens: TokenCounts = zeroCounts();
  estimated = false;

  add(usage: TokenUsage | TokenCounts | undefined, calls = 1): void {
    this.calls += calls;
    if (!usage) return;
    this.tokens.input += usage.input;
    this.tokens.output += usage.output;
    this.tokens.total += usage.total;
    if ((usage as TokenUsage).estimated) this.estimated = true;
  }

  perRun(): PerRunCost {
    return { calls: this.calls, tokens: { ...this.tokens }, estimated: this.estimated };
  }
}

export function engineCost(perRun: PerRunCost, oneTime: OneTimeCost | null = null): EngineCost {
  return { oneTime, perRun };
}

/** The per-run costs of several runs added up (the one-time cost is the same object for all of them). */
export function sumCosts(costs: readonly EngineCost[]): EngineCost {
  const t = new CostTally();
  for (const c of costs) {
    t.add(c.perRun.tokens, c.perRun.calls);
    if (c.perRun.estimated) t.estimated = true;
  }
  return { oneTime: costs.find((c) => c.oneTime)?.oneTime ?? null, perRun: t.perRun() };
}

/** Chat formatting adds a few tokens per message and to prime the answer (as OpenAI documents for its models). */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REPLY = 3;

export type TokenCounter = (text: string) => number;

/** The project's token counter (o200k, gpt-tokenizer's counts: token-table.ts), loaded on first use. */
export function tokenCounter(): Promise<TokenCounter> {
  return loadTokenCounter();
}

/** Input tokens of a chat request. */
export function chatInputTokens(messages: readonly { content: string }[], count: TokenCounter): number {
  let n = TOKENS_PER_REPLY;
  for (const m of messages) n += count(m.content) + TOKENS_PER_MESSAGE;
  return n;
}

/** A running estimate: calls and tokens per run, plus the assumptions that decided them. */
export class CostEstimator {
  private readonly runs: RunCostEstimate[] = [];
  private current: RunCostEstimate | undefined;
  private oneTime: CostEstimate['oneTime'];
  readonly assumptions: string[] = [];

  constructor(
    readonly count: TokenCounter,
    /** The settings' `maxTokens`: no answer is assumed longer. */
    readonly maxOutput = Infinity,
  ) {}

  startRun(runId: string): void {
    this.current = { runId, calls: 0, tokens: zeroCounts() };
    this.runs.push(this.current);
  }

  /** One chat call: the prompt counted exactly, the answer assumed to be `output` tokens (capped at maxTokens). */
  chat(messages: readonly { content: string }[], output: number): number {
    const input = chatInputTokens(messages, this.count);
    this.add(input, Math.min(this.maxOutput, Math.max(0, Math.round(output))));
    return input;
  }

  /** One embeddings call over these inputs. */
  embed(inputs: readonly string[]): void {
    this.add(inputs.reduce((n, t) => n + this.count(t), 0), 0);
  }

  add(input: number, output: number, calls = 1): void {
    if (!this.current) this.startRun('');
    const c = this.current!;
    c.calls += calls;
    c.tokens.input += input;
    c.tokens.output += output;
    c.tokens.total += input + output;
  }

  setOneTime(oneTime: NonNullable<CostEstimate['oneTime']>): void {
    this.oneTime = oneTime;
  }

  result(): CostEstimate {
    const tokens = zeroCounts();
    let calls = 0;
    for (const r of this.runs) {
      calls += r.calls;
      tokens.input += r.tokens.input;
      tokens.output += r.tokens.output;
      tokens.total += r.tokens.total;
    }
    if (this.oneTime && !this.oneTime.cached) {
      calls += this.oneTime.calls;
      tokens.input += this.oneTime.tokens.input;
      tokens.output += this.oneTime.tokens.output;
      tokens.total += this.oneTime.tokens.total;
    }
    const out: CostEstimate = { basis: 'estimate', calls, tokens, runs: this.runs.map((r) => ({ ...r, tokens: { ...r.tokens } })), assumptions: [...this.assumptions] };
    if (this.oneTime) out.oneTime = this.oneTime;
    return out;
  }
}

/** The estimate and the figures in the CLI's JSON (snake_case like the rest of it). */
export function costJson(cost: EngineCost) {
  return {
    one_time: cost.oneTime
      ? { calls: cost.oneTime.calls, tokens: { ...cost.oneTime.tokens }, cached: cost.oneTime.cached, estimated: cost.oneTime.estimated, what: cost.oneTime.what }
      : null,
    per_run: { calls: cost.perRun.calls, tokens: { ...cost.perRun.tokens }, estimated: cost.perRun.estimated },
  };
}

export function estimateJson(e: CostEstimate) {
  return {
    basis: e.basis,
    calls: e.calls,
    tokens: { ...e.tokens },
    ...(e.oneTime ? { one_time: { ...e.oneTime, tokens: { ...e.oneTime.tokens } } } : {}),
    runs: e.runs.map((r) => ({ id: r.runId, calls: r.calls, tokens: { ...r.tokens } })),
    ...(e.perArm ? { per_arm: e.perArm } : {}),
    assumptions: e.assumptions,
  };
}
