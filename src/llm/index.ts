// Public surface of the endpoint client.
export * from './errors.ts';
export * from './settings.ts';
export { TokenBudget } from './budget.ts';
export { CallRecorder, Cassette, replaySettings, REPLAY_BASE_URL } from './recorder.ts';
export { ConcurrencyLimiter } from './limiter.ts';
export { LlmClient, canonicalJson, parseRetryAfter, type ChatRequest, type ChatResult, type EmbedResult, type LlmClientOptions } from './client.ts';
export { estimateUsage, usageFromResponse } from './usage.ts';
export {
  CostTally,
  CostEstimator,
  chatInputTokens,
  costJson,
  engineCost,
  estimateJson,
  sumCosts,
  tokenCounter,
  zeroCounts,
  type CostEstimate,
  type EngineCost,
  type OneTimeCost,
  type PerRunCost,
  type RunCostEstimate,
  type TokenCounter,
  type TokenCounts,
} from './cost.ts';
