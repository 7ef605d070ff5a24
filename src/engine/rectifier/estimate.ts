// What a rectify-or-reject pass will cost before it runs (issue 21). One-time: the pool's trigger conditions are
// embedded in batches of EMBED_BATCH (nothing when the cache holds them). Per auditable message, assuming it passes at
// the first attempt (no regeneration): one keyword call, one query embedding, and K audits of the indicators that BM25
// retrieval picks offline (a stand-in for the embedding ranking, whose prompts differ only in the indicator's text).
// Every prompt is built as the gate builds it and counted with the project's tokenizer.
import { indexRun } from '../../model/run-index.ts';
import type { Run } from '../../model/types.ts';
import { CostEstimator, tokenCounter, type CostEstimate, type TokenCounter } from '../../llm/cost.ts';
import { DEFAULT_RECTIFY_PARAMS, seenText, type RectifyParams } from './gate.ts';
import { GENERAL_INDICATORS, triggerText, type Indicator, type IndicatorPool } from './indicators.ts';
import { auditMessages, keywordMessages } from './prompts.ts';
import { isAuditable, messageText, recordedInput } from './replay.ts';
import { Bm25Index, EMBED_BATCH, embeddingKey, type EmbeddingCache } from './retrieval.ts';

/** `{"scenario_keywords": […], "action_keywords": […]}` with a handful of short phrases. */
export const KEYWORD_ANSWER_TOKENS = 40;
/** The retrieval query built from the keywords. */
export const QUERY_TOKENS = 30;
/** An audit verdict: a flag, a short analysis and a suggestion. */
export const AUDIT_ANSWER_TOKENS = 120;

export interface RectifierEstimateOptions {
  pool: IndicatorPool;
  params?: RectifyParams;
  /** With an embeddings model the pool is embedded once (checked against the cache when one is given). */
  embedModel?: string;
  cache?: EmbeddingCache;
  maxTokens?: number;
  countTokens?: TokenCounter;
  /** Messages of a run whose prompts are counted (SAMPLED_ABOVE); more are sampled. */
  sampleMessages?: number;
}

/**
 * A run with more agent messages than this has the prompts of this many counted, spread evenly over it, and scaled to
 * all of them. Counted exactly, each message's prompts took ~0.5 ms in Node and ~0.75 ms in the browser's worker: a
 * run of a million messages had its estimate after minutes; now after a few seconds, within the spread of what the
 * counted prompts give (ADR 0086).
 */
export const SAMPLED_ABOVE = 4000;

/** The pool's one-time embedding: its trigger conditions in batches of EMBED_BATCH, nothing when the cache holds them. */
export async function poolEmbeddingEstimate(pool: IndicatorPool, embedModel: string, cache: EmbeddingCache | undefined, count: TokenCounter): Promise<NonNullable<CostEstimate['oneTime']>> {
  const texts = pool.indicators.map(triggerText);
  const cached = (await cache?.get(embeddingKey('trigger', texts, embedModel)))?.length === texts.length;
  const input = cached ? 0 : texts.reduce((n, t) => n + count(t), 0);
  return {
    calls: cached ? 0 : Math.ceil(texts.length / EMBED_BATCH),
    tokens: { input, output: 0, total: input },
    cached,
    what: `embeddings of the ${texts.length} trigger conditions of pool ${pool.name}${cached ? ' (served from cache)' : ''}`,
  };
}

/** One message as the audit sees it: the task, the agent, what it had seen and what it wrote. */
export interface AuditedMessage {
  task: string;
  agent: string;
  role?: string;
  seen: string;
  output: string;
}

/**
 * The calls one message costs when it passes at the first attempt: keywords, the query's embedding and K audits of
 * the indicators BM25 ranks highest, or one audit against the domain's general indicator (zero-shot).
 */
export function messageAuditor(est: CostEstimator, pool: IndicatorPool, params: RectifyParams, embedding: boolean): (msg: AuditedMessage) => void {
  const bm25 = params.zeroShot ? undefined : new Bm25Index(pool.indicators.map(triggerText));
  return (msg) => {
    let active: Indicator[];
    if (params.zeroShot) active = [GENERAL_INDICATORS[params.domain]];
    else {
      est.chat(keywordMessages(msg.task, msg.agent, msg.output), KEYWORD_ANSWER_TOKENS);
      if (embedding) est.add(QUERY_TOKENS, 0);
      const query = `${msg.task.slice(0, 400)}\n${msg.output.slice(0, 1200)}`;
      active = bm25!.search(query, params.k).map((s) => pool.indicators[s.index]);
    }
    for (const indicator of active) est.chat(auditMessages(params.domain, indicator, msg), AUDIT_ANSWER_TOKENS);
  };
}

export async function estimateRectifierCost(runs: readonly Run[], options: RectifierEstimateOptions): Promise<CostEstimate> {
  const count = options.countTokens ?? (await tokenCounter());
  const params = options.params ?? DEFAULT_RECTIFY_PARAMS;
  const est = new CostEstimator(count, options.maxTokens);
  const texts = options.pool.indicators.map(triggerText);
  const embedding = !params.zeroShot && options.embedModel !== undefined && texts.length > 0;
  if (embedding) est.setOneTime(await poolEmbeddingEstimate(options.pool, options.embedModel!, options.cache, count));
  est.assumptions.push(
    params.zeroShot
      ? `every agent message passes at the first attempt: 1 audit against the general indicator, answering ${AUDIT_ANSWER_TOKENS} tokens`
      : `every agent message passes at the first attempt: 1 keyword call (${KEYWORD_ANSWER_TOKENS} tokens out), ${embedding ? `1 query embedding (${QUERY_TOKENS} tokens), ` : ''}` +
          `${params.k} audits (${AUDIT_ANSWER_TOKENS} tokens out each) of the indicators BM25 ranks highest`,
  );
  const none = new Map<string, string | null>();
  const most = options.sampleMessages ?? SAMPLED_ABOVE;
  for (const run of runs) {
    est.startRun(run.id);
    const index = indexRun(run);
    const task = run.task ?? run.title ?? '';
    const positions: number[] = [];
    run.steps.forEach((step, p) => {
      if (isAuditable(step, index.agentById.get(step.agentId))) positions.push(p);
    });
    const sampled = positions.length > most;
    // Every message, or an even spread of `most` of them, counted into an estimator of the run's own.
    const own = sampled ? new CostEstimator(count, options.maxTokens) : est;
    const audit = messageAuditor(own, options.pool, params, embedding);
    const picked = sampled ? Array.from({ length: most }, (_, i) => positions[Math.floor(((i + 0.5) * positions.length) / most)]) : positions;
    for (const p of picked) {
      const step = run.steps[p];
      const agent = index.agentById.get(step.agentId);
      audit({ task, agent: agent?.name ?? step.agentId, role: agent?.role ?? agent?.description, seen: seenText(recordedInput(run, p, agent, none)), output: messageText(step) });
    }
    if (sampled) {
      // Scaled to every message, calls and tokens as the sample has them.
      const { calls, tokens } = own.result();
      const scale = positions.length / most;
      est.add(Math.round(tokens.input * scale), Math.round(tokens.output * scale), Math.round(calls * scale));
      est.assumptions.push(
        `${run.title ?? run.id}: the prompts of ${most.toLocaleString('en')} of its ${positions.length.toLocaleString('en')} agent messages, spread evenly over the run, counted and scaled to all of them`,
      );
    }
  }
  return est.result();
}
