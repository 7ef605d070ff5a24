// What a batch will cost before it runs (issue 21), per arm. A live run's messages do not exist yet, so each agent's
// answer is a stand-in of AGENT_ANSWER_TOKENS tokens (a different text at every turn, as real answers are); every
// turn's prompt is then built as the runner builds it (role prompt, task, the conversation so far) and counted with
// the project's tokenizer, up to the decision agent's turn. In the engine arm (`supervised`) each stand-in message
// then goes through the switched-on engines as the runner's gates send it: the supervisor's filter decides which
// messages it looks at and its prompts are counted as its own estimate counts them (src/engine/supervisor/estimate.ts);
// the rectifier audits and the clarifier checks every message, each assumed to pass at the first call.
import { CostEstimator, tokenCounter, type CostEstimate, type TokenCounter, type TokenCounts } from '../../llm/cost.ts';
import type { Step } from '../../model/types.ts';
import { DEFAULT_WINDOW } from '../clarifier/edges.ts';
import { estimatePassingEdge } from '../clarifier/estimate.ts';
import { gateEdgeState } from '../clarifier/gate.ts';
import { seenText } from '../rectifier/gate.ts';
import { messageAuditor, poolEmbeddingEstimate, AUDIT_ANSWER_TOKENS, type AuditedMessage } from '../rectifier/estimate.ts';
import type { IndicatorPool } from '../rectifier/indicators.ts';
import type { EmbeddingCache } from '../rectifier/retrieval.ts';
import { AdaptiveFilter, filterParams } from '../supervisor/filter.ts';
import { estimateTriggers, SUPERVISOR_ASSUMPTION } from '../supervisor/estimate.ts';
import type { BatchSpec } from './batch.ts';
import { turnInput } from './conversation.ts';
import { asActionStep, enginesOn, type EngineConfig } from './gates.ts';
import { RunBuilder } from './run-builder.ts';
import { DECIDER_ID, teamAgents } from './runner.ts';

/** An agent's turn: a few sentences of reasoning and a result. */
export const AGENT_ANSWER_TOKENS = 300;

export interface BatchEstimateOptions {
  maxTokens?: number;
  countTokens?: TokenCounter;
  /**
   * The embeddings model, when the rectifier's pool will be embedded (an endpoint with a pool): the pool's embedding is
   * the batch's one-time cost (none when `cache` holds it) and each message's retrieval query is embedded.
   */
  embedModel?: string;
  cache?: EmbeddingCache;
}

/** The engines of the engine arm: `spec.engines`, or (batches made before they were wired) the supervisor alone. */
function armEngines(spec: Pick<BatchSpec, 'engines' | 'supervisor'>): EngineConfig {
  return spec.engines ?? { supervisor: { ...spec.supervisor, heuristic: false } };
}

/** What one role message costs the engine arm's engines, in the runner's gate order. */
interface MessageEngines {
  /** A new run: fresh gates (the supervisor's filter has state). */
  startRun(): void;
  /** Before the message is delivered: `step` is the run's last step, the builder's visible turns what came before. */
  review(builder: RunBuilder, step: Step, text: string): void;
  assumptions: string[];
}

function messageEngines(config: EngineConfig, est: CostEstimator, count: TokenCounter, embedModel: string | undefined): MessageEngines {
  const on = enginesOn(config);
  const assumptions: string[] = [];
  let audit: ((msg: AuditedMessage) => void) | undefined;
  const r = config.rectifier;
  if (r) {
    const pool = r.pool && r.pool.indicators.length > 0 && !r.params.zeroShot ? (r.pool as IndicatorPool) : undefined;
    const params = { ...r.params, zeroShot: pool === undefined };
    const embedding = pool !== undefined && embedModel !== undefined;
    audit = messageAuditor(est, pool ?? { name: 'general indicator', indicators: [] }, params, embedding);
    assumptions.push(
      `rectifier: every message passes at the first attempt, ${params.zeroShot ? '1 audit against the general indicator' : `1 keyword call, ${embedding ? '1 query embedding, ' : ''}${params.k} audits of the indicators BM25 ranks highest`} (${AUDIT_ANSWER_TOKENS} tokens out each); no restart`,
    );
  }
  const clarify = config.clarifier && !config.clarifier.heuristic;
  if (clarify) assumptions.push('clarifier: every message is checked once and passes (nobody is asked)');
  else if (config.clarifier) assumptions.push('clarifier: LLM-free flagger, no calls');
  const s = config.supervisor;
  // A fresh filter per run, as the gates are made per run.
  let filter: AdaptiveFilter | undefined;
  if (s && !s.heuristic) assumptions.push(`supervisor: ${SUPERVISOR_ASSUMPTION}`);
  else if (s) assumptions.push('supervisor: LLM-free heuristics, no calls');
  return {
    assumptions,
    review(builder, step, text) {
      const run = builder.snapshot();
      for (const engine of on) {
        if (engine === 'rectifier' && audit) {
          const agent = run.agents.find((a) => a.id === step.agentId);
          audit({ task: builder.task, agent: agent?.name ?? step.agentId, role: agent?.role, seen: seenText(step.input ?? []), output: text });
        } else if (engine === 'clarifier' && clarify) {
          const state = gateEdgeState({ run, step, text, task: builder.task, visible: builder.visible, members: builder.members }, config.clarifier!.window ?? DEFAULT_WINDOW);
          estimatePassingEdge(est, state);
        } else if (engine === 'supervisor' && s && !s.heuristic) {
          filter ??= new AdaptiveFilter(filterParams(s));
          // The supervisor gate sees the messages so far as action steps whose observation is the message; the filter
          // has already checked the earlier ones, so only this one is fed to it.
          const steps = run.steps.map((x) => (x.id === step.id ? asActionStep(x, text) : x.kind === 'message' || x.kind === 'final' ? asActionStep(x) : x));
          estimateTriggers(est, { ...run, steps }, filter, count, steps.length - 1);
        }
      }
    },
    startRun() {
      filter = undefined;
    },
  };
}

export async function estimateBatchCost(
  spec: Pick<BatchSpec, 'tasks' | 'arms' | 'team'> & Partial<Pick<BatchSpec, 'engines' | 'supervisor'>>,
  options: BatchEstimateOptions = {},
): Promise<CostEstimate> {
  const count = options.countTokens ?? (await tokenCounter());
  const est = new CostEstimator(count, options.maxTokens);
  const team = spec.team;
  const turns = team.mode === 'chain' ? Math.min(team.maxTurns, team.roles.length) : team.maxTurns;
  const roles = team.mode === 'chain' ? team.roles.slice(0, turns) : team.roles;
  const answer = Math.min(options.maxTokens ?? Infinity, AGENT_ANSWER_TOKENS);
  const words = 'word '.repeat(Math.max(0, answer - 3)).trim();
  const standIn = (t: number) => `Turn ${t + 1}: ${words}`;
  est.assumptions.push(
    `${turns} agent turn(s) and the decision agent's per task; every answer ${answer} tokens` +
      `${team.mode === 'group-chat' && team.selector === 'llm' ? '; the speaker selector is not counted' : ''}`,
  );
  const config = spec.arms.includes('supervised') && (spec.engines || spec.supervisor) ? armEngines(spec as Pick<BatchSpec, 'engines' | 'supervisor'>) : undefined;
  const engines = config ? messageEngines(config, est, count, options.embedModel) : undefined;
  const r = config?.rectifier;
  if (r?.pool && r.pool.indicators.length > 0 && !r.params.zeroShot && options.embedModel !== undefined) {
    // The pool is embedded once for the whole batch, before its first task (src/engine/live-engines).
    est.setOneTime(await poolEmbeddingEstimate(r.pool as IndicatorPool, options.embedModel, options.cache, count));
  }
  if (engines) for (const a of engines.assumptions) est.assumptions.push(`supervised arm, ${a}`);
  const agents = teamAgents({ ...team, roles });
  const perArm: NonNullable<CostEstimate['perArm']> = [];
  for (const arm of spec.arms) {
    const before = est.result();
    for (const task of spec.tasks) {
      est.startRun(`${task.id}:${arm}`);
      const builder = new RunBuilder(`${task.id}:${arm}`, task.question, agents, { title: task.id, sourceFormat: 'runner', tags: {} });
      const reviewed = arm === 'supervised' ? engines : undefined;
      reviewed?.startRun();
      for (let t = 0; t < turns; t++) {
        const role = roles[t % roles.length];
        const input = turnInput({ id: role.id, prompt: role.prompt }, task.question, builder.visible);
        est.chat(input, answer);
        const text = standIn(t);
        const step = builder.addStep(role.id, text, { origin: 'live', input });
        reviewed?.review(builder, step, text);
        builder.deliver(step, text);
      }
      est.chat(turnInput({ id: DECIDER_ID, prompt: team.decider }, task.question, builder.visible), answer);
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
