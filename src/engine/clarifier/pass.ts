// The clarifier over every handoff of a recorded run (SPEC §5.3): each edge's result becomes an Intervention
// (engine 'clarifier', on the handoff), reported as soon as it exists so the caller can persist it. Cancellable,
// resumable from interventions already made, and a failed call stops the pass with everything before it kept.
import type { Intervention, Run, TokenUsage } from '../../model/types.ts';
import { handoffBySendingStep } from '../../model/lookups.ts';
import { stepFacts } from '../../model/step-facts.ts';
import { runDuration } from '../../model/summary.ts';
import { Cancelled } from '../../llm/errors.ts';
import { drivePass, type EnginePass, type PassCallbacks, type PassEvent } from '../pass.ts';
import type { LlmClient } from '../../llm/client.ts';
import { ClarificationFailed, clarifyEdge, type Answerer, type EdgeClarification } from './clarify-edge.ts';
import { DEFAULT_WINDOW, edgeStateList } from './edges.ts';
import { CostTally, engineCost, type EngineCost } from '../../llm/cost.ts';
import { DEFAULT_EDGE_GATE, edgeGateLabel, routeEdge, type EdgeGate } from './edge-gate.ts';
import { ERROR_TYPES, isClarifierType, type ClarifierType, type ErrorType } from './taxonomy.ts';

export const clarifierInterventionId = (handoffId: string) => `clarifier:${handoffId}`;

export function toIntervention(c: EdgeClarification, stepId: string | undefined): Intervention {
  const iv: Intervention = {
    id: clarifierInterventionId(c.edgeId),
    engine: 'clarifier',
    handoffId: c.edgeId,
    context: c.type,
    action: c.type === 'NONE' ? 'pass' : 'ask',
    reason: c.malformed
      ? `clarifier answer unreadable (${c.malformed.problem}); the message passed unchanged`
      : c.type === 'NONE'
        ? 'no clarification needed'
        : `${c.type}: asked ${c.addressee?.name ?? c.toAgent}: ${c.question}`,
    heuristic: c.heuristic,
    details: { ...c },
  };
  if (stepId !== undefined) iv.stepId = stepId;
  if (c.tokens.total > 0) iv.tokens = { ...c.tokens };
  if (c.llmCallIds.length > 0) iv.llmCallIds = [...c.llmCallIds];
  return iv;
}

/** The clarification stored in an intervention (undefined for interventions of other engines or of another shape). */
export function clarificationOf(iv: Intervention): EdgeClarification | undefined {
  if (iv.engine !== 'clarifier' || !iv.details) return undefined;
  const d = iv.details as Partial<EdgeClarification>;
  if (typeof d.edgeId !== 'string' || !isClarifierType(d.type) || typeof d.originalMessage !== 'string' || typeof d.revisedMessage !== 'string') return undefined;
  return d as EdgeClarification;
}

/**
 * Each handoff's clarification. Interventions made on a recorded run name their handoff; those a live-run gate made
 * before the message was delivered name the sending step, whose handoff is found here.
 */
export function clarificationsByHandoff(run: Run): Map<string, EdgeClarification> {
  const out = new Map<string, EdgeClarification>();
  for (const iv of run.interventions) {
    const c = clarificationOf(iv);
    if (!c) continue;
    const handoff = iv.handoffId ?? (iv.stepId !== undefined ? handoffBySendingStep(run.handoffs).get(iv.stepId) : undefined);
    if (handoff !== undefined) out.set(handoff, c);
  }
  return out;
}

export interface ClarifyProgress {
  done: number;
  total: number;
  asked: number;
}

export interface ClarifyFailure {
  edgeId: string;
  position: number;
  sender: string;
  receiver: string;
  message: string;
}

export interface ClarifySummary {
  edges: number;
  checked: number;
  asked: number;
  byType: Record<ClarifierType, number>;
  /** Asked edges whose second check ran, and how many of them it found resolved. */
  secondChecked: Record<ErrorType, number>;
  resolved: Record<ErrorType, number>;
  /** resolved / secondChecked over all types, in %; null when nothing was checked twice. */
  oneShotPct: number | null;
  malformed: number;
  extraTokens: number;
  extraTokensEstimated: boolean;
  /** Sum of the run's recorded model-call tokens. */
  runTokens: number;
  runTokensEstimated: boolean;
  /** extraTokens as a share of runTokens, in %; null when the run has no token counts. */
  extraCostPct: number | null;
  latencyMs: number;
  /** Added latency as a share of the run's recorded duration, in %; null without start and end times. */
  extraLatencyPct: number | null;
  heuristic: boolean;
  /** The gate setting (`all`, `flagged`, `flagged+sample:<rate>`) and how many edges it sent to the model. */
  gate: string;
  sentToModel: number;
}

export interface ClarifyResult {
  runId: string;
  status: 'complete' | 'cancelled' | 'failed';
  /** In handoff order; those carried over from `previous` included. */
  interventions: Intervention[];
  failure?: ClarifyFailure;
  summary: ClarifySummary;
  /** Calls and tokens the clarifier and the addressees spent, as the endpoint reported them. */
  cost: EngineCost;
}

export type ClarifyEvent = PassEvent<ClarifyProgress, Intervention>;

export interface ClarifyRunOptions {
  client?: LlmClient;
  signal?: AbortSignal;
  /** History window H (default 3). */
  window?: number;
  /** Clarifier interventions from an earlier, interrupted pass: their edges are not asked again. */
  previous?: readonly Intervention[];
  answer?: Answerer;
  /** Which edges go to the model (default all); the others keep the LLM-free flagger's verdict. */
  gate?: EdgeGate;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

export function summarize(run: Run, interventions: readonly Intervention[], failedSpent?: TokenUsage, gate: EdgeGate = DEFAULT_EDGE_GATE): ClarifySummary {
  const byType = { DG: 0, RD: 0, SC: 0, CG: 0, NONE: 0 } as Record<ClarifierType, number>;
  const secondChecked = { DG: 0, RD: 0, SC: 0, CG: 0 } as Record<ErrorType, number>;
  const resolved = { DG: 0, RD: 0, SC: 0, CG: 0 } as Record<ErrorType, number>;
  let checked = 0;
  let malformed = 0;
  let extraTokens = failedSpent?.total ?? 0;
  let extraTokensEstimated = failedSpent?.estimated === true;
  let latencyMs = 0;
  let heuristic = true;
  let sentToModel = 0;
  for (const iv of interventions) {
    const c = clarificationOf(iv);
    if (!c) continue;
    checked++;
    if (!c.heuristic) sentToModel++;
    byType[c.type]++;
    if (c.malformed) malformed++;
    if (!c.heuristic) heuristic = false;
    extraTokens += c.tokens.total;
    extraTokensEstimated ||= c.tokens.estimated === true;
    latencyMs += c.latencyMs;
    if (c.type !== 'NONE' && c.resolved !== null) {
      secondChecked[c.type]++;
      if (c.resolved) resolved[c.type]++;
    }
  }
  // The run's token total and duration as every view reads them (step facts, one pass kept per steps array).
  const { total: runTokens, estimated: runTokensEstimated } = stepFacts(run).tokens;
  const checkedTwice = ERROR_TYPES.reduce((n, t) => n + secondChecked[t], 0);
  const resolvedAll = ERROR_TYPES.reduce((n, t) => n + resolved[t], 0);
  const duration = runDuration(run);
  return {
    edges: run.handoffs.length,
    checked,
    asked: checked - byType.NONE,
    byType,
    secondChecked,
    resolved,
    oneShotPct: checkedTwice > 0 ? round2((100 * resolvedAll) / checkedTwice) : null,
    malformed,
    extraTokens,
    extraTokensEstimated,
    runTokens,
    runTokensEstimated,
    extraCostPct: runTokens > 0 ? round2((100 * extraTokens) / runTokens) : null,
    latencyMs,
    extraLatencyPct: duration !== undefined && duration > 0 ? round2((100 * latencyMs) / duration) : null,
    heuristic: checked === 0 ? true : heuristic,
    gate: edgeGateLabel(gate),
    sentToModel,
  };
}

export async function* clarifyRunSteps(run: Run, options: ClarifyRunOptions = {}): EnginePass<ClarifyEvent, ClarifyResult> {
  // Each state made as the pass comes to it: a million-message chat log's states were all held at once before.
  const states = edgeStateList(run, options.window ?? DEFAULT_WINDOW);
  const previous = new Map((options.previous ?? []).filter((i) => i.engine === 'clarifier' && i.handoffId).map((i) => [i.handoffId!, i]));
  const interventions: Intervention[] = [];
  let status: ClarifyResult['status'] = 'complete';
  let failure: ClarifyFailure | undefined;
  let failedSpent: TokenUsage | undefined;
  let failedCalls = 0;
  const gate = options.gate ?? DEFAULT_EDGE_GATE;
  let asked = 0;
  const total = states.length;
  for (let i = 0; i < total; i++) {
    if (options.signal?.aborted) {
      status = 'cancelled';
      break;
    }
    const state = states.at(i);
    const done = previous.get(state.id);
    if (done) {
      interventions.push(done);
      if (done.action === 'ask') asked++;
      yield { type: 'item', item: done, resumed: true };
      yield { type: 'progress', progress: { done: i + 1, total, asked } };
      continue;
    }
    try {
      const { route } = routeEdge(state, gate);
      const client = route === 'skipped' ? undefined : options.client;
      const c = await clarifyEdge(state, { client, signal: options.signal, answer: options.answer });
      if (options.client) c.route = route;
      const iv = toIntervention(c, state.stepId);
      interventions.push(iv);
      if (iv.action === 'ask') asked++;
      yield { type: 'item', item: iv, resumed: false };
    } catch (e) {
      const cause = e instanceof ClarificationFailed ? e.cause : e;
      if (e instanceof ClarificationFailed) {
        failedSpent = e.spent;
        failedCalls = e.llmCallIds.length;
      }
      if (cause instanceof Cancelled || options.signal?.aborted) status = 'cancelled';
      else {
        status = 'failed';
        failure = {
          edgeId: state.id,
          position: i,
          sender: state.sender.name,
          receiver: state.receiver.name,
          message: cause instanceof Error ? cause.message : String(cause),
        };
      }
      break;
    }
    yield { type: 'progress', progress: { done: i + 1, total, asked } };
  }
  return { runId: run.id, status, interventions, failure, summary: summarize(run, interventions, failedSpent, gate), cost: clarifierCost(interventions, failedSpent, failedCalls) };
}

/** Calls and tokens of the clarifications (clarifier, addressee, second check), plus those of an edge that failed. */
export function clarifierCost(interventions: readonly Intervention[], failedSpent?: TokenUsage, failedCalls = 0): EngineCost {
  const t = new CostTally();
  for (const iv of interventions) {
    const c = clarificationOf(iv);
    if (c) t.add(c.tokens, c.llmCallIds.length);
  }
  if (failedSpent || failedCalls > 0) t.add(failedSpent, failedCalls);
  return engineCost(t.perRun());
}

export function clarifyRun(run: Run, options: ClarifyRunOptions & PassCallbacks<ClarifyProgress, Intervention> = {}): Promise<ClarifyResult> {
  return drivePass(clarifyRunSteps(run, options), options);
}
