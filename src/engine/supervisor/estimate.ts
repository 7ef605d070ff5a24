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

export const SUPERVISOR_ASSUMPTION = `one supervisor call per filter trigger; decision answers ${DECISION_ANSWER_TOKENS} tokens; the purifier keeps ${Math.round(PURIFIED_SHARE * 100)}% of a long observation; no run_verification follow-up`;

/**
 * The calls the supervisor makes over `run`'s steps (those the filter checks are its action steps; the caller passes
 * the filter, so a live run's messages can be fed as the supervisor gate feeds them): each trigger's prompt is built
 * as the supervisor builds it, over the steps up to the trigger. `from`: the filter has already seen the steps before.
 */
export function estimateTriggers(est: CostEstimator, run: Run, filter: AdaptiveFilter, count: TokenCounter, from = 0): void {
  let index: ReturnType<typeof indexRun> | undefined;
  for (let i = from; i < run.steps.length; i++) {
    const step = run.steps[i];
    const trigger = filter.check(step, i);
    if (trigger === undefined) continue;
    if (trigger.context === 'excessive') {
      const observation = step.observation ?? '';
      est.chat(purifierMessages(observation), count(observation) * PURIFIED_SHARE);
    } else {
      index ??= indexRun(run);
      const w = buildContextWindow(index, step, trigger.context);
      est.chat(decisionMessages(trigger.context, w, ALLOWED_ACTIONS[trigger.context]), DECISION_ANSWER_TOKENS);
    }
  }
}

export async function estimateSupervisorCost(runs: readonly Run[], options: SupervisorEstimateOptions): Promise<CostEstimate> {
  const count = options.countTokens ?? (await tokenCounter());
  const est = new CostEstimator(count, options.maxTokens);
  est.assumptions.push(SUPERVISOR_ASSUMPTION);
  for (const run of runs) {
    est.startRun(run.id);
    estimateTriggers(est, run, new AdaptiveFilter(options.params), count);
  }
  return est.result();
}
