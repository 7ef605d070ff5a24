// What a clarifier pass will cost before it runs (issue 21): the gate decides which edges go to the model, and each
// one's prompt is built as the clarifier builds it and counted with the project's tokenizer. An edge the flagger
// flags is assumed to be asked about (clarifier, addressee, second check on the revised message); any other edge sent
// is assumed to pass after one call. Answer sizes are assumed from what each prompt asks for (below).
import type { Run } from '../../model/types.ts';
import { CostEstimator, tokenCounter, type CostEstimate, type TokenCounter } from '../../llm/cost.ts';
import { DEFAULT_EDGE_GATE, edgeGateLabel, routeEdge, type EdgeGate } from './edge-gate.ts';
import { DEFAULT_WINDOW, edgeStateList, type EdgeState } from './edges.ts';
import { addresseeMessages, clarifierMessages, reviseMessage } from './prompts.ts';

/** `{"type": …, "to_agent": …, "question": "…"}`: a one-sentence question at most. */
export const DECISION_ANSWER_TOKENS = 40;
/** The addressee is asked for one to three sentences. */
export const REPLY_TOKENS = 60;

export interface ClarifierEstimateOptions {
  window?: number;
  gate?: EdgeGate;
  maxTokens?: number;
  countTokens?: TokenCounter;
}

/** The live clarifier's check of one message that passes (one call: the clarifier answers NONE). */
export function estimatePassingEdge(est: CostEstimator, state: EdgeState): void {
  est.chat(clarifierMessages(state), DECISION_ANSWER_TOKENS);
}

export async function estimateClarifierCost(runs: readonly Run[], options: ClarifierEstimateOptions = {}): Promise<CostEstimate> {
  const count = options.countTokens ?? (await tokenCounter());
  const gate = options.gate ?? DEFAULT_EDGE_GATE;
  const est = new CostEstimator(count, options.maxTokens);
  est.assumptions.push(
    `gate ${edgeGateLabel(gate)}; a flagged edge is asked about (3 calls: clarifier, addressee, second check), any other edge sent passes after 1 call; ` +
      `clarifier answers ${DECISION_ANSWER_TOKENS} tokens, addressee replies ${REPLY_TOKENS} tokens`,
  );
  const replyStandIn = 'word '.repeat(REPLY_TOKENS).trim();
  for (const run of runs) {
    est.startRun(run.id);
    const states = edgeStateList(run, options.window ?? DEFAULT_WINDOW);
    for (let i = 0; i < states.length; i++) {
      const state = states.at(i);
      const { route, flag } = routeEdge(state, gate);
      if (route === 'skipped') continue;
      est.chat(clarifierMessages(state), DECISION_ANSWER_TOKENS);
      if (!flag) continue;
      const addressee = flag.toAgent === 'sender' ? state.sender : state.receiver;
      est.chat(addresseeMessages(state, flag.toAgent ?? 'sender', flag.question), REPLY_TOKENS);
      est.chat(clarifierMessages(state, reviseMessage(state.message, addressee.name, flag.question, replyStandIn)), DECISION_ANSWER_TOKENS);
    }
  }
  return est.result();
}
