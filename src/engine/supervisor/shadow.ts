// Shadow replay (SPEC §5.1): walk a recorded run step by step, run the filter and the supervisor on it, and
// estimate what the supervision would have saved. Cancellable, resumable from interventions already made, and a
// failure stops the replay cleanly with everything done so far kept.
import { emptyRecord } from '../../model/record.ts';
import { indexRun } from '../../model/run-index.ts';
import type { Intervention, Run, Step } from '../../model/types.ts';
import { Cancelled } from '../../llm/errors.ts';
import { drivePass, type EnginePass, type PassCallbacks, type PassEvent } from '../pass.ts';
import type { LlmClient } from '../../llm/client.ts';
import { CostTally, engineCost, type EngineCost } from '../../llm/cost.ts';
import { loadTokenCounter } from '../../llm/usage.ts';
import { AdaptiveFilter, type FilterParams, type Trigger } from './filter.ts';
import { SupervisionFailed, superviseTrigger } from './supervisor.ts';
import { didNotShorten, supervisorDetails } from './details.ts';

export interface TokenSummary {
  /** Tokens the run used as recorded (sum over model calls). */
  baseline: number;
  /** Counterfactual: the baseline minus what purified observations would have removed from later prompts. An estimate. */
  supervisedEstimate: number;
  /** The supervisor's own LLM tokens (usage the server reported; tokenizer counts when it reported none). */
  supervisorOverhead: number;
  /** baseline − (supervisedEstimate + supervisorOverhead). */
  netSaving: number;
  netSavingPct: number;
  /** Always true: the supervised figure is a counterfactual, never a measurement. */
  estimate: true;
  overheadEstimated: boolean;
  /** Model calls whose input the estimate changed, per intervention. */
  affectedCalls: Record<string, number>;
  /** Purifications (correct_observation) whose new text is not shorter: they save nothing, and are flagged. */
  notShortened: string[];
}

export interface ShadowProgress {
  /** Steps of the run looked at so far. */
  done: number;
  total: number;
  triggers: number;
  interventions: number;
}

export interface ShadowFailure {
  stepId: string;
  stepNumber?: number;
  agent: string;
  context: string;
  message: string;
}

export type ShadowStatus = 'complete' | 'cancelled' | 'failed';

export interface ShadowResult {
  runId: string;
  status: ShadowStatus;
  triggers: Trigger[];
  /** In step order; those carried over from `previous` included. */
  interventions: Intervention[];
  failure?: ShadowFailure;
  tokens: TokenSummary;
  /** The supervisor's own calls and tokens, as the endpoint reported them (no one-time cost). */
  cost: EngineCost;
}

export type ShadowEvent = PassEvent<ShadowProgress, Intervention> | { type: 'trigger'; trigger: Trigger };

export interface ShadowOptions {
  params: FilterParams;
  /** Without a client the LLM-free heuristics decide (and every intervention is marked heuristic). */
  client?: LlmClient;
  signal?: AbortSignal;
  /** Interventions from an earlier, interrupted replay of this run: their steps are not asked again. */
  previous?: readonly Intervention[];
  /** Token counter for the estimate; defaults to the project's o200k counter (src/llm/usage.ts), loaded on first use. */
  countTokens?: (text: string) => number;
  /** How often to report progress between triggers, in steps. */
  progressEvery?: number;
}

/**
 * The replay as an async generator of events; its return value is the result. Consumers that want callbacks use
 * `shadowReplay`.
 */
export async function* shadowReplaySteps(run: Run, options: ShadowOptions): EnginePass<ShadowEvent, ShadowResult> {
  const index = indexRun(run);
  const filter = new AdaptiveFilter(options.params);
  const previous = new Map((options.previous ?? []).filter((i) => i.engine === 'supervisor' && i.stepId).map((i) => [i.stepId!, i]));
  const triggers: Trigger[] = [];
  const interventions: Intervention[] = [];
  const every = options.progressEvery ?? 500;
  const total = run.steps.length;
  let status: ShadowStatus = 'complete';
  let failure: ShadowFailure | undefined;
  let failedSpent = 0;
  let failedEstimated = false;
  const failedTally = new CostTally();
  const progress = (done: number): ShadowEvent => ({ type: 'progress', progress: { done, total, triggers: triggers.length, interventions: interventions.length } });

  for (let i = 0; i < total; i++) {
    if (options.signal?.aborted) {
      status = 'cancelled';
      break;
    }
    const step = run.steps[i];
    const trigger = filter.check(step, i);
    if (trigger === undefined) {
      if ((i + 1) % every === 0) yield progress(i + 1);
      continue;
    }
    triggers.push(trigger);
    yield { type: 'trigger', trigger };
    const done = previous.get(step.id);
    if (done) {
      interventions.push(done);
      yield { type: 'item', item: done, resumed: true };
      continue;
    }
    try {
      const intervention = await superviseTrigger(trigger, { index, params: options.params, client: options.client, signal: options.signal });
      interventions.push(intervention);
      yield { type: 'item', item: intervention, resumed: false };
    } catch (e) {
      const cause = e instanceof SupervisionFailed ? e.cause : e;
      if (e instanceof SupervisionFailed && e.spent) {
        failedSpent += e.spent.total;
        failedEstimated ||= e.spent.estimated === true;
      }
      if (e instanceof SupervisionFailed) failedTally.add(e.spent, e.llmCallIds.length);
      if (cause instanceof Cancelled || options.signal?.aborted) status = 'cancelled';
      else {
        status = 'failed';
        failure = {
          stepId: step.id,
          stepNumber: step.number,
          agent: index.agentById.get(step.agentId)?.name ?? step.agentId,
          context: trigger.context,
          message: cause instanceof Error ? cause.message : String(cause),
        };
      }
      break;
    }
    yield progress(i + 1);
  }
  if (status === 'complete') yield progress(total);
  const countTokens = options.countTokens ?? (await loadTokenCounter());
  const tokens = accountTokens(run, interventions, countTokens, failedSpent, failedEstimated);
  return { runId: run.id, status, triggers, interventions, failure, tokens, cost: supervisorCost(interventions, failedTally) };
}

/** Calls and tokens of the supervisor's interventions (and of a trigger whose calls failed part-way). */
export function supervisorCost(interventions: readonly Intervention[], failed?: CostTally): EngineCost {
  const t = new CostTally();
  for (const iv of interventions) if (iv.engine === 'supervisor') t.add(iv.tokens, iv.llmCallIds?.length ?? 0);
  if (failed) {
    t.add(failed.tokens, failed.calls);
    if (failed.estimated) t.estimated = true;
  }
  return engineCost(t.perRun());
}

export function shadowReplay(run: Run, options: ShadowOptions & PassCallbacks<ShadowProgress, Intervention>): Promise<ShadowResult> {
  return drivePass(shadowReplaySteps(run, options), options);
}

const isModelCall = (s: Step) => (s.kind === 'llm' || s.kind === 'planning') && s.usage !== undefined;

/** Enough of the observation to recognise it inside a recorded prompt, even if the framework truncated it later. */
function probeOf(observation: string): string {
  return observation.trim().slice(0, 200);
}

/** Per model call, the input tokens the counterfactual removes (negative when guidance lengthened a prompt). */
export interface CounterfactualSavings {
  baseline: number;
  /** Sum of `byCall`. */
  saved: number;
  /** Model-call step id → tokens removed from its input. Only calls the estimate changed are present. */
  byCall: Map<string, number>;
  /** Intervention id → number of model calls whose input it changed. */
  affectedCalls: Record<string, number>;
  /** Ids of purifications whose new text is not shorter than the old: counted as saving nothing. */
  notShortened: string[];
}


/**
 * SPEC §5.1 counterfactual: an observation changed by Δ tokens changes the input of every later model call of the
 * same agent run whose prompt contained it (recorded prompts when present; otherwise ReAct memory, i.e. all of them).
 * A call never loses more than its recorded input.
 */
export function counterfactualSavings(run: Run, interventions: readonly Intervention[], countTokens: (text: string) => number): CounterfactualSavings {
  let baseline = 0;
  const callsByRun = new Map<string, { step: Step; position: number }[]>();
  const position = new Map<string, number>();
  run.steps.forEach((s, i) => {
    position.set(s.id, i);
    if (s.usage) baseline += s.usage.total;
    if (!isModelCall(s)) return;
    const key = s.agentRunId ?? s.agentId;
    const list = callsByRun.get(key);
    const entry = { step: s, position: i };
    if (list) list.push(entry);
    else callsByRun.set(key, [entry]);
  });
  const stepById = new Map(run.steps.map((s) => [s.id, s]));
  let saved = 0;
  const byCall = new Map<string, number>();
  const affectedCalls = emptyRecord<number>(); // intervention ids may come from a file
  const notShortened: string[] = [];
  for (const iv of interventions) {
    const step = iv.stepId ? stepById.get(iv.stepId) : undefined;
    const { originalObservation: original, newObservation: changed } = supervisorDetails(iv) ?? {};
    if (!step || original === undefined || changed === undefined) continue;
    if (didNotShorten(iv, original, changed)) {
      notShortened.push(iv.id);
      affectedCalls[iv.id] = 0;
      continue;
    }
    // A shorter purification never costs tokens, whatever the tokenizer makes of it: at worst it saves nothing.
    const delta = iv.action === 'correct_observation' ? Math.max(0, countTokens(original) - countTokens(changed)) : countTokens(original) - countTokens(changed);
    if (delta === 0) continue;
    const at = position.get(step.id) ?? step.index;
    const probe = probeOf(original);
    let affected = 0;
    for (const { step: call, position: p } of callsByRun.get(step.agentRunId ?? step.agentId) ?? []) {
      if (p <= at || call.parentStepId === step.id) continue;
      if (call.input && call.input.length > 0) {
        if (probe === '' || !call.input.some((m) => m.content.includes(probe))) continue;
      }
      const input = (call.usage?.input ?? 0) - (byCall.get(call.id) ?? 0);
      const cut = delta > 0 ? Math.min(delta, input) : delta;
      saved += cut;
      byCall.set(call.id, (byCall.get(call.id) ?? 0) + cut);
      affected++;
    }
    affectedCalls[iv.id] = affected;
  }
  return { baseline, saved, byCall, affectedCalls, notShortened };
}

/** The run's token summary under the counterfactual of `counterfactualSavings`, with the supervisor's own cost. */
export function accountTokens(
  run: Run,
  interventions: readonly Intervention[],
  countTokens: (text: string) => number,
  failedSpent = 0,
  failedEstimated = false,
): TokenSummary {
  const { baseline, saved, affectedCalls, notShortened } = counterfactualSavings(run, interventions, countTokens);
  let overhead = failedSpent;
  let overheadEstimated = failedEstimated;
  for (const iv of interventions) {
    if (iv.tokens) {
      overhead += iv.tokens.total;
      overheadEstimated ||= iv.tokens.estimated === true;
    }
  }
  const supervisedEstimate = baseline - saved;
  const netSaving = baseline - (supervisedEstimate + overhead);
  return {
    baseline,
    supervisedEstimate,
    supervisorOverhead: overhead,
    netSaving,
    netSavingPct: baseline > 0 ? Math.round((10000 * netSaving) / baseline) / 100 : 0,
    estimate: true,
    overheadEstimated,
    affectedCalls,
    notShortened,
  };
}
