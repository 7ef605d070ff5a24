// What an LLM stage pass will cost before it runs (issue 21): a Planner call on the first stage, then an Evaluator and
// an Updater call per stage (the closing state included). The prompts are built as the pass builds them, with the
// offline segmentation's task states standing in for the ones the model will write, and counted with the project's
// tokenizer; every answer is assumed readable the first time (no second ask).
import type { Run } from '../../model/types.ts';
import { CostEstimator, tokenCounter, type CostEstimate, type TokenCounter } from '../../llm/cost.ts';
import { DEFAULT_DIGEST_LIMITS, digestSegment, type DigestLimits } from './digest.ts';
import { deriveOfflineStages } from './offline.ts';
import { evaluatorMessages, plannerMessages, updaterMessages } from './prompts.ts';

/** A task state: a handful of subtasks with ids, titles and statuses, the active one and a short summary. */
export const TASK_STATE_TOKENS = 250;
/** A verdict with a confidence and a sentence or two of feedback. */
export const EVALUATION_TOKENS = 80;

export interface StagesEstimateOptions {
  limits?: DigestLimits;
  maxTokens?: number;
  countTokens?: TokenCounter;
}

export async function estimateStagesCost(runs: readonly Run[], options: StagesEstimateOptions = {}): Promise<CostEstimate> {
  const count = options.countTokens ?? (await tokenCounter());
  const limits = options.limits ?? DEFAULT_DIGEST_LIMITS;
  const est = new CostEstimator(count, options.maxTokens);
  est.assumptions.push(`1 planner call, then 1 evaluator + 1 updater call per stage and for the closing state; task states ${TASK_STATE_TOKENS} tokens, evaluations ${EVALUATION_TOKENS} tokens; no second ask`);
  for (const run of runs) {
    est.startRun(run.id);
    const offline = deriveOfflineStages(run);
    const seg = offline.segmentation;
    const n = seg.segments.length;
    if (n === 0) continue;
    const task = run.task ?? run.title ?? '';
    const digests = seg.segments.map((s) => digestSegment(run, seg, s, limits));
    est.chat(plannerMessages(task, digests[0]), TASK_STATE_TOKENS);
    for (let i = 1; i <= n; i++) {
      const prev = offline.stages[i - 1];
      const state = { subtasks: prev.subtasks, nextSubtaskId: prev.nextSubtaskId, summary: prev.summary };
      const active = prev.subtasks.find((s) => s.id === prev.nextSubtaskId);
      est.chat(evaluatorMessages(task, active, digests[i - 1], i), EVALUATION_TOKENS);
      const rule = offline.stages[i] ?? prev;
      const evaluation = { verdict: rule.verdict ?? 'needs refinement', feedback: rule.feedback };
      est.chat(updaterMessages(task, state, evaluation, digests[i - 1], i, i === n ? undefined : digests[i]), TASK_STATE_TOKENS);
    }
  }
  return est.result();
}
