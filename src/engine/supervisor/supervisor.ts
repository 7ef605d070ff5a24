// One supervisor decision: from a filter trigger to an Intervention record, through the endpoint or, without one,
// through the LLM-free heuristics.
import type { RunIndex } from '../../model/run-index.ts';
import type { Intervention, Step, TokenUsage } from '../../model/types.ts';
import type { ChatResult, LlmClient } from '../../llm/client.ts';
import { ALLOWED_ACTIONS, type Decision } from './actions.ts';
import { buildContextWindow, formatCall, type ContextWindow } from './context-window.ts';
import { parseDecision } from './decision.ts';
import { describeSignature, type FilterParams, type Trigger } from './filter.ts';
import { heuristicDecision } from './heuristics.ts';
import { decisionMessages, purifierMessages, verificationMessages } from './prompts.ts';
import type { StoredSupervisorDetails } from './details.ts';

export interface SuperviseOptions {
  index: RunIndex;
  params: FilterParams;
  /** Without a client the supervisor runs its LLM-free heuristics. */
  client?: LlmClient;
  signal?: AbortSignal;
}

export const SUPERVISOR_NOTE = "[Supervisor's note: what follows stands in for the agent's own observation, trimmed and with its errors fixed.]";

export function interventionId(stepId: string): string {
  return `supervisor:${stepId}`;
}

/** Why the filter fired, in words a person can check against the trace. */
export function triggerReason(trigger: Trigger, step: Step, params: FilterParams): string {
  switch (trigger.rule) {
    case 'summary_marker':
      return 'observation contains <summary_of_work>: a managed agent returned its final report';
    case 'error': {
      const first = step.error?.message.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
      return `step failed: ${first.slice(0, 160)}`;
    }
    case 'periodic':
      return (
        `periodic check: step ${trigger.n} of this agent run (every ${params.tauStep})` +
        (trigger.loopAlso ? `; the last ${trigger.repeated} actions are identical` : '')
      );
    case 'loop': {
      const calls = describeSignature(step).map((c) => formatCall(c, 80)).join(', ');
      return `the last ${trigger.repeated} actions are identical: ${calls}`;
    }
    case 'length':
      return `observation is ${trigger.length} characters, over τ_len ${params.tauLen}`;
  }
}

function stripFence(text: string): string {
  const m = /^\s*```[\w-]*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return (m ? m[1] : text).trim();
}

function sumUsage(results: ChatResult[]): TokenUsage | undefined {
  if (results.length === 0) return undefined;
  const u: TokenUsage = { input: 0, output: 0, total: 0 };
  for (const r of results) {
    u.input += r.usage.input;
    u.output += r.usage.output;
    u.total += r.usage.total;
    if (r.usage.estimated) u.estimated = true;
  }
  return u;
}

function applyDecision(step: Step, d: Decision, finding: string | undefined): string | undefined {
  const original = step.observation ?? '';
  switch (d.action) {
    case 'approve':
      return undefined;
    case 'correct_observation':
      return `${SUPERVISOR_NOTE}\n${d.parameters.new_observation ?? ''}`;
    case 'provide_guidance':
      return `${original}\n\n[Supervisor's guidance: ${d.parameters.guidance ?? ''}]`;
    case 'run_verification':
      return `${original}\n\n[Supervisor's verification of "${d.parameters.task ?? ''}": ${finding ?? ''}]`;
  }
}

/** A supervisor call failed; carries what was already spent on this trigger so no token goes uncounted. */
export class SupervisionFailed extends Error {
  constructor(
    readonly cause: unknown,
    readonly spent: TokenUsage | undefined,
    readonly llmCallIds: string[],
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SupervisionFailed';
  }
}

/** Throws SupervisionFailed wrapping the client's error (Cancelled, HttpError after retries, BudgetExceeded…). */
export async function superviseTrigger(trigger: Trigger, options: SuperviseOptions): Promise<Intervention> {
  const calls: ChatResult[] = [];
  try {
    return await supervise(trigger, options, calls);
  } catch (e) {
    throw new SupervisionFailed(e, sumUsage(calls), calls.map((c) => c.record.id));
  }
}

async function supervise(trigger: Trigger, options: SuperviseOptions, calls: ChatResult[]): Promise<Intervention> {
  const { index, params, client, signal } = options;
  const step = index.run.steps[trigger.stepIndex];
  const context = trigger.context;
  const allowed = ALLOWED_ACTIONS[context];
  const details: StoredSupervisorDetails = {
    rule: trigger.rule,
    n: trigger.n,
    repeated: trigger.repeated,
    agent: index.agentById.get(step.agentId)?.name ?? step.agentId,
    stepNumber: step.number,
    allowedActions: [...allowed],
  };
  let decision: Decision;
  let heuristic = client === undefined;
  let finding: string | undefined;
  let w: ContextWindow | undefined;

  if (!client) {
    decision = heuristicDecision(step, trigger);
  } else if (context === 'excessive') {
    const r = await client.chat({ role: 'supervisor', messages: purifierMessages(step.observation ?? '') }, signal);
    calls.push(r);
    let purified = stripFence(r.text);
    const asJson = parseDecision(purified, allowed);
    if (asJson.decision?.parameters.new_observation) {
      purified = asJson.decision.parameters.new_observation;
      details.repairs = ['the purifier answered in JSON; took its new_observation'];
    }
    if (purified === '') {
      decision = heuristicDecision(step, trigger);
      heuristic = true;
      details.fallback = 'the purifier returned nothing; used the deterministic purifier';
    } else decision = { analysis: 'Purified by the context-free purifier.', action: 'correct_observation', parameters: { new_observation: purified } };
  } else {
    w = buildContextWindow(index, step, context);
    const r = await client.chat({ role: 'supervisor', messages: decisionMessages(context, w, allowed), json: true }, signal);
    calls.push(r);
    const parsed = parseDecision(r.text, allowed);
    if (parsed.repairs.length > 0) details.repairs = parsed.repairs;
    if (parsed.decision) decision = parsed.decision;
    else {
      decision = heuristicDecision(step, trigger);
      heuristic = true;
      details.fallback = `${parsed.problem ?? 'unusable answer'}; used the heuristic ${decision.action}`;
      details.rawAnswer = r.text.slice(0, 2000);
    }
  }

  if (decision.action === 'run_verification' && client && w) {
    const v = await client.chat({ role: 'supervisor', messages: verificationMessages(decision.parameters.task ?? '', w) }, signal);
    calls.push(v);
    finding = v.text.trim() || '(the verification assistant gave no answer)';
    details.verificationTask = decision.parameters.task;
    details.verificationFinding = finding;
  }

  // A correction that changes nothing must not cost the agent the note's tokens.
  const unchanged = decision.action === 'correct_observation' && (decision.parameters.new_observation ?? '').trim() === (step.observation ?? '').trim();
  if (unchanged) details.unchanged = true;
  const newObservation = unchanged ? undefined : applyDecision(step, decision, finding);
  if (decision.analysis) details.analysis = decision.analysis;
  if (decision.parameters.guidance) details.guidance = decision.parameters.guidance;
  details.originalObservation = step.observation ?? '';
  if (newObservation !== undefined) details.newObservation = newObservation;

  const intervention: Intervention = {
    id: interventionId(step.id),
    engine: 'supervisor',
    stepId: step.id,
    context,
    action: decision.action,
    reason: triggerReason(trigger, step, params),
    heuristic,
    details,
  };
  const tokens = sumUsage(calls);
  if (tokens) intervention.tokens = tokens;
  if (calls.length > 0) intervention.llmCallIds = calls.map((c) => c.record.id);
  return intervention;
}
