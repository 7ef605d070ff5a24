// What a shadow replay will cost before it runs (issue 21): the LLM-free filter decides which steps trigger, and each
// trigger's prompt is built as the supervisor would build it and counted with the project's tokenizer. The answers'
// sizes are assumed from what the supervisor asks for (below); no verification call is assumed.
import { indexRun } from '../../model/run-index.ts';
import type { Run } from '../../model/types.ts';
import { CostEstimator, tokenCounter, type CostEstimate, type TokenCounter } from '../../llm/cost.ts';
import { ALLOWED_ACTIONS } from './actions.ts';
import { buildContextWindow } from './context-window.ts';
import { AdaptiveFilter, type FilterParams } from './filter.ts';
import { decisionMessages, purifierMessages } from './prompts.ts';

/** A decision answer is a short JSON object: a sentence or two of analysis, the action and its parameters. */
export const DECISION_ANSWER_TOKENS = 120;
/** The purifier returns the observation shortened; assumed to keep this share of it. */
export const PURIFIED_SHARE = 0.4;

export interface SupervisorEstimateOptions {
  params: FilterParams;
  /** The settings' maxTokens: no answer is assumed longer. */
  maxTokens?: number;
  countTokens?: TokenCounter;
}

export async function estimateSupervisorCost(runs: readonly Run[], options: SupervisorEstimateOptions): Promise<CostEstimate> {
  const count = options.countTokens ?? (await tokenCounter());
  const est = new CostEstimator(count, options.maxTokens);
  est.assumptions.push(
    `one call per filter trigger; decision answers ${DECISION_ANSWER_TOKENS} tokens; the purifier keeps ${Math.round(PURIFIED_SHARE * 100)}% of a long observation; no run_verification follow-up`,
  );
  for (const run of runs) {
    est.startRun(run.id);
    const index = indexRun(run);
    const filter = new AdaptiveFilter(options.params);
    run.steps.forEach((step, i) => {
      const trigger = filter.check(step, i);
      if (trigger === undefined) return;
      if (trigger.context === 'excessive') {
        const observation = step.observation ?? '';
        est.chat(purifierMessages(observation), count(observation) * PURIFIED_SHARE);
      } else {
        const w = buildContextWindow(index, step, trigger.context);
        est.chat(decisionMessages(trigger.context, w, ALLOWED_ACTIONS[trigger.context]), DECISION_ANSWER_TOKENS);
      }
    });
  }
  return est.result();
}
