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
}

export async function estimateRectifierCost(runs: readonly Run[], options: RectifierEstimateOptions): Promise<CostEstimate> {
  const count = options.countTokens ?? (await tokenCounter());
  const params = options.params ?? DEFAULT_RECTIFY_PARAMS;
  const est = new CostEstimator(count, options.maxTokens);
  const texts = options.pool.indicators.map(triggerText);
  const embedding = !params.zeroShot && options.embedModel !== undefined && texts.length > 0;
  if (embedding) {
    const cached = (await options.cache?.get(embeddingKey('trigger', texts, options.embedModel!)))?.length === texts.length;
    const input = cached ? 0 : texts.reduce((n, t) => n + count(t), 0);
    est.setOneTime({
      calls: cached ? 0 : Math.ceil(texts.length / EMBED_BATCH),
      tokens: { input, output: 0, total: input },
      cached,
      what: `embeddings of the ${texts.length} trigger conditions of pool ${options.pool.name}${cached ? ' (served from cache)' : ''}`,
    });
  }
  est.assumptions.push(
    params.zeroShot
      ? `every agent message passes at the first attempt: 1 audit against the general indicator, answering ${AUDIT_ANSWER_TOKENS} tokens`
      : `every agent message passes at the first attempt: 1 keyword call (${KEYWORD_ANSWER_TOKENS} tokens out), ${embedding ? `1 query embedding (${QUERY_TOKENS} tokens), ` : ''}` +
          `${params.k} audits (${AUDIT_ANSWER_TOKENS} tokens out each) of the indicators BM25 ranks highest`,
  );
  const bm25 = params.zeroShot ? undefined : new Bm25Index(texts);
  const none = new Map<string, string | null>();
  for (const run of runs) {
    est.startRun(run.id);
    const index = indexRun(run);
    const task = run.task ?? run.title ?? '';
    run.steps.forEach((step, p) => {
      const agent = index.agentById.get(step.agentId);
      if (!isAuditable(step, agent)) return;
      const name = agent?.name ?? step.agentId;
      const output = messageText(step);
      let active: Indicator[];
      if (params.zeroShot) active = [GENERAL_INDICATORS[params.domain]];
      else {
        est.chat(keywordMessages(task, name, output), KEYWORD_ANSWER_TOKENS);
        if (embedding) est.add(QUERY_TOKENS, 0);
        const query = `${task.slice(0, 400)}\n${output.slice(0, 1200)}`;
        active = bm25!.search(query, params.k).map((s) => options.pool.indicators[s.index]);
      }
      const ctx = { task, agent: name, role: agent?.role ?? agent?.description, seen: seenText(recordedInput(run, p, agent, none)), output };
      for (const indicator of active) est.chat(auditMessages(params.domain, indicator, ctx), AUDIT_ANSWER_TOKENS);
    });
  }
  return est.result();
}
