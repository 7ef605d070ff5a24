// What a batch will cost before it runs (issue 21), per arm. A live run's messages do not exist yet, so each agent's
// answer is a stand-in of AGENT_ANSWER_TOKENS tokens; every turn's prompt is then built as the runner builds it (role
// prompt, task, the conversation so far) and counted with the project's tokenizer, up to the decision agent's turn.
// The engines of the supervised arm decide on what the agents write, so their calls are not assumed here: the
// supervised arm's figure is its agents' part, and the assumptions say so.
import { CostEstimator, tokenCounter, type CostEstimate, type TokenCounter, type TokenCounts } from '../../llm/cost.ts';
import type { BatchSpec } from './batch.ts';
import { turnInput, type VisibleTurn } from './conversation.ts';
import { DECIDER_ID } from './runner.ts';

/** An agent's turn: a few sentences of reasoning and a result. */
export const AGENT_ANSWER_TOKENS = 300;

export interface BatchEstimateOptions {
  maxTokens?: number;
  countTokens?: TokenCounter;
}

export async function estimateBatchCost(spec: Pick<BatchSpec, 'tasks' | 'arms' | 'team'>, options: BatchEstimateOptions = {}): Promise<CostEstimate> {
  const count = options.countTokens ?? (await tokenCounter());
  const est = new CostEstimator(count, options.maxTokens);
  const team = spec.team;
  const turns = team.mode === 'chain' ? Math.min(team.maxTurns, team.roles.length) : team.maxTurns;
  const answer = Math.min(options.maxTokens ?? Infinity, AGENT_ANSWER_TOKENS);
  const standIn = 'word '.repeat(answer).trim();
  est.assumptions.push(
    `${turns} agent turn(s) and the decision agent's per task; every answer ${answer} tokens; ` +
      `${team.mode === 'group-chat' && team.selector === 'llm' ? 'the speaker selector is not counted; ' : ''}` +
      `the supervised arm's engine calls are not counted (they depend on what the agents write), nor a rectifier restart`,
  );
  const perArm: NonNullable<CostEstimate['perArm']> = [];
  for (const arm of spec.arms) {
    const before = est.result();
    for (const task of spec.tasks) {
      est.startRun(`${task.id}:${arm}`);
      const visible: VisibleTurn[] = [];
      for (let t = 0; t < turns; t++) {
        const role = team.roles[t % team.roles.length];
        est.chat(turnInput({ id: role.id, prompt: role.prompt }, task.question, visible), answer);
        visible.push({ speaker: role.id, content: standIn });
      }
      est.chat(turnInput({ id: DECIDER_ID, prompt: team.decider }, task.question, visible), answer);
    }
    const after = est.result();
    const tokens: TokenCounts = {
      input: after.tokens.input - before.tokens.input,
      output: after.tokens.output - before.tokens.output,
      total: after.tokens.total - before.tokens.total,
    };
    perArm.push({ arm, calls: after.calls - before.calls, tokens });
  }
  return { ...est.result(), perArm };
}
