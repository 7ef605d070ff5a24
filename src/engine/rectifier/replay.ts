// Rectify-or-reject over a recorded chat-style run (Who&When AG2 / Magentic-One, tau-bench, native sessions), as a
// replay: every agent message in order goes through `gateMessage` with the input it had — the conversation so far,
// where earlier rejected messages are now missing and rectified ones carry their new text. The later recorded messages
// are not regenerated (that is fork-and-continue, SPEC §5.5); what changes is what each audited agent is shown.
import { indexRun } from '../../model/run-index.ts';
import { stepNumbersById } from '../../model/steps.ts';
import { hasMessageText, stepFacts } from '../../model/step-facts.ts';
import type { Agent, ChatMessage, Intervention, Run, Step, TokenUsage } from '../../model/types.ts';
import { Cancelled } from '../../llm/errors.ts';
import { drivePass, type EnginePass, type PassCallbacks, type PassEvent } from '../pass.ts';
import type { LlmClient } from '../../llm/client.ts';
import { clip } from './prompts.ts';
import { CostTally, engineCost, type EngineCost } from '../../llm/cost.ts';
import { GateFailed, gateMessage, poolCost, type GateResult, type PreparedPool, type RectifyParams } from './gate.ts';
import { rectifierAudit } from './details.ts';

type Msg = Pick<ChatMessage, 'role' | 'content'>;

export const RECTIFIER_ENGINE = 'rectifier';

/** The text an agent sent in a step: its message plus any tool calls it made. */
export function messageText(step: Step): string {
  const calls = (step.toolCalls ?? []).map((c) => `[tool call] ${c.name}(${c.arguments})`).join('\n');
  return [step.output ?? '', calls].filter((x) => x.trim() !== '').join('\n');
}

/** What a step shows the others: a message's text, a tool's result. */
function visibleText(step: Step): string {
  if (step.kind === 'tool') return step.observation ?? step.output ?? '';
  return messageText(step);
}

/** Messages of LLM agents (not humans, not tool or code-execution terminals) with something to audit. */
export function isAuditable(step: Step, agent: Agent | undefined): boolean {
  if (step.parentStepId !== undefined) return false;
  if (step.kind !== 'message' && step.kind !== 'final') return false;
  if (agent?.kind === 'human' || agent?.kind === 'system') return false;
  return hasMessageText(step);
}

/**
 * How many of the run's steps the rectifier audits (isAuditable), from the step facts: each agent's messages with text,
 * those of its human and system agents left out. The facts are counted once per steps array (by the import worker, in
 * slices when the library loads): the pickers and the controls ask on every render, and a count of their own over a
 * million messages was a 45 ms pass in the Rectify view's first render.
 */
export function auditableCount(run: Pick<Run, 'steps' | 'agents'>): number {
  // As isAuditable's callers look agents up: by id, the last of a repeated id.
  const kinds = new Map(run.agents.map((a) => [a.id, a.kind]));
  let n = 0;
  for (const [id, agent] of stepFacts(run).agents) {
    const kind = kinds.get(id);
    if (kind !== 'human' && kind !== 'system') n += agent.messages;
  }
  return n;
}

export function rectifierInterventionId(stepId: string): string {
  return `rectifier:${stepId}`;
}
export function fallbackInterventionId(runId: string): string {
  return `rectifier:fallback:${runId}`;
}

export interface RectifyProgress {
  /** Auditable messages handled so far. */
  done: number;
  total: number;
  passed: number;
  rejected: number;
  /** Messages that needed more than one attempt. */
  retried: number;
}

export type RectifyStatus = 'complete' | 'cancelled' | 'failed';

export interface RectifyFailure {
  stepId: string;
  /** The 1-based step number in the run view's step list. */
  stepNumber?: number;
  agent: string;
  message: string;
}

export interface RectifyRunResult {
  runId: string;
  status: RectifyStatus;
  offline: boolean;
  /** One per auditable message handled, in run order. */
  interventions: Intervention[];
  /** Set when fewer than γ messages survived: the run restarts without auditing (the recording stands). */
  fallback?: Intervention;
  failure?: RectifyFailure;
  /** The rectifier's own LLM tokens (messages handled; a failed message's spend included). */
  overhead: TokenUsage;
  /** Per-run calls and tokens as the endpoint reported them; the pool's one-time cost is `poolCost(pool)`. */
  cost: EngineCost;
}

export type RectifyEvent = PassEvent<RectifyProgress, Intervention>;

export interface RectifyOptions {
  pool: PreparedPool;
  params: RectifyParams;
  client?: LlmClient;
  signal?: AbortSignal;
  /** Rectifier interventions from an interrupted replay of this run: those messages are not asked again. */
  previous?: readonly Intervention[];
}

const MAX_VISIBLE = 24;
const MAX_MESSAGE_CHARS = 4000;

/**
 * The input the agent had when it wrote `step`: its recorded prompt when the trace has one (native sessions), else the
 * group-chat view — a system line naming its role, the task, and the earlier messages it could see. Either way,
 * messages rejected earlier are removed and rectified ones replaced.
 */
export function recordedInput(run: Run, stepPosition: number, agent: Agent | undefined, delivered: ReadonlyMap<string, string | null>): Msg[] {
  const step = run.steps[stepPosition];
  const name = agent?.name ?? step.agentId;
  if (step.input && step.input.length > 0) {
    const byOriginal = new Map<string, string | null>();
    if (delivered.size > 0) {
      const firstById = firstStepById(run.steps);
      for (const [id, text] of delivered) {
        const s = firstById.get(id);
        if (s) byOriginal.set(messageText(s), text);
      }
    }
    const out: Msg[] = [];
    for (const m of step.input) {
      const changed = byOriginal.get(m.content);
      if (changed === null) continue;
      out.push({ role: m.role, content: changed ?? m.content });
    }
    return out;
  }
  const role = agent?.role ?? agent?.description;
  const input: Msg[] = [
    {
      role: 'system',
      content: `You are ${name}${role ? `, ${role}` : ''}, one member of a team of agents working together on a task. Write your next message to the team.`,
    },
    { role: 'user', content: `Task:\n${run.task ?? run.title}` },
  ];
  // The MAX_VISIBLE latest messages it could see, found walking back from it: a walk from the start for every message
  // made a pass over a run quadratic (20,000 chat messages: 3 minutes offline, and the cost estimate as long).
  const earlier: Msg[] = [];
  const names = agentNames(run.agents);
  for (let i = stepPosition - 1; i >= 0 && earlier.length < MAX_VISIBLE; i--) {
    const s = run.steps[i];
    if (s.parentStepId !== undefined) continue;
    const override = delivered.get(s.id);
    if (override === null) continue; // pruned: the others never see it
    const text = override ?? visibleText(s);
    if (text.trim() === '') continue;
    const sender = names.get(s.agentId) ?? s.agentId;
    earlier.push(s.agentId === step.agentId ? { role: 'assistant', content: clip(text, MAX_MESSAGE_CHARS) } : { role: 'user', content: `${sender}: ${clip(text, MAX_MESSAGE_CHARS)}` });
  }
  earlier.reverse();
  return [...input, ...earlier];
}

const namesOf = new WeakMap<readonly Agent[], Map<string, string>>();

/** Agent names by id (the first agent of an id, as `find` gave), kept per agents array. */
function agentNames(agents: readonly Agent[]): Map<string, string> {
  let names = namesOf.get(agents);
  if (!names) {
    names = new Map();
    for (const a of agents) if (!names.has(a.id)) names.set(a.id, a.name);
    namesOf.set(agents, names);
  }
  return names;
}

const firstOf = new WeakMap<readonly Step[], Map<string, Step>>();

/** Steps by id (the first step of an id, as `find` gave), kept per steps array; made only when a message was changed. */
function firstStepById(steps: readonly Step[]): Map<string, Step> {
  let byId = firstOf.get(steps);
  if (!byId) {
    byId = new Map();
    for (const s of steps) if (!byId.has(s.id)) byId.set(s.id, s);
    firstOf.set(steps, byId);
  }
  return byId;
}

function addUsage(into: TokenUsage, u: TokenUsage | undefined) {
  if (!u) return;
  into.input += u.input;
  into.output += u.output;
  into.total += u.total;
  if (u.estimated) into.estimated = true;
}

function actionOf(g: GateResult): string {
  return g.state === 'pass' ? `pass@${g.passedAt}` : g.state === 'rejected' ? 'rejected' : 'retrieval-only';
}

function reasonOf(g: GateResult, params: RectifyParams): string {
  if (g.offline) return `offline: ${g.attempts[0]?.retrieved.length ?? 0} indicators would be audited (BM25 retrieval, no verdicts without an endpoint)`;
  const last = g.attempts[g.attempts.length - 1];
  if (g.state === 'pass') return g.passedAt === 1 ? 'no retrieved indicator found a flaw' : `passed after ${g.passedAt! - 1} round${g.passedAt === 2 ? '' : 's'} of feedback`;
  const names = last?.audits.filter((a) => a.flawed).map((a) => a.indicator) ?? [];
  return `still flawed after ${params.tMax} attempt${params.tMax === 1 ? '' : 's'} (${names.join(', ')}): pruned`;
}

export function gateIntervention(step: Step, agentName: string, g: GateResult, pool: PreparedPool, params: RectifyParams): Intervention {
  const iv: Intervention = {
    id: rectifierInterventionId(step.id),
    engine: RECTIFIER_ENGINE,
    stepId: step.id,
    context: 'message',
    action: actionOf(g),
    reason: reasonOf(g, params),
    heuristic: g.offline,
    details: {
      agent: agentName,
      state: g.state,
      ...(g.passedAt !== undefined ? { passedAt: g.passedAt } : {}),
      originalOutput: messageText(step),
      finalOutput: g.finalOutput,
      attempts: g.attempts,
      droppedAudits: g.droppedAudits,
      calls: g.calls,
      retrieval: params.zeroShot ? 'general' : g.offline ? 'bm25' : pool.retrieval,
      pool: { name: pool.name, size: pool.indicators.length, embedModel: pool.embedModel },
      params: { ...params },
    },
  };
  if (g.tokens.total > 0 || g.calls > 0) iv.tokens = g.tokens;
  if (g.llmCallIds.length > 0) iv.llmCallIds = g.llmCallIds;
  return iv;
}

/** Per message: what the others receive (text; null = pruned). A run-level fallback restores every message. */
export function deliveredFrom(interventions: readonly Intervention[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const iv of interventions) {
    if (iv.engine !== RECTIFIER_ENGINE || !iv.stepId) continue;
    const d = rectifierAudit(iv);
    if (d?.state === 'rejected') out.set(iv.stepId, null);
    else if (d?.state === 'pass' && typeof d.finalOutput === 'string' && d.finalOutput !== d.originalOutput) out.set(iv.stepId, d.finalOutput);
  }
  return out;
}

export async function* rectifyRunSteps(run: Run, options: RectifyOptions): EnginePass<RectifyEvent, RectifyRunResult> {
  const index = indexRun(run);
  const { params, pool, client, signal } = options;
  const previous = new Map((options.previous ?? []).filter((i) => i.engine === RECTIFIER_ENGINE && i.stepId).map((i) => [i.stepId!, i]));
  const numbers = stepNumbersById(run);
  const positions: number[] = [];
  run.steps.forEach((s, i) => {
    if (isAuditable(s, index.agentById.get(s.agentId))) positions.push(i);
  });
  const interventions: Intervention[] = [];
  const delivered = new Map<string, string | null>();
  const overhead: TokenUsage = { input: 0, output: 0, total: 0 };
  const tally = new CostTally();
  const progress: RectifyProgress = { done: 0, total: positions.length, passed: 0, rejected: 0, retried: 0 };
  let status: RectifyStatus = 'complete';
  let failure: RectifyFailure | undefined;
  yield { type: 'progress', progress: { ...progress } };

  const count = (iv: Intervention) => {
    const d = rectifierAudit(iv);
    if (d?.state === 'pass') progress.passed++;
    if (d?.state === 'rejected') progress.rejected++;
    if (d && d.attempts.length > 1) progress.retried++;
    progress.done++;
  };

  for (const p of positions) {
    if (signal?.aborted) {
      status = 'cancelled';
      break;
    }
    const step = run.steps[p];
    const agent = index.agentById.get(step.agentId);
    const agentName = agent?.name ?? step.agentId;
    const done = previous.get(step.id);
    if (done) {
      interventions.push(done);
      for (const [k, v] of deliveredFrom([done])) delivered.set(k, v);
      addUsage(overhead, done.tokens);
      tally.add(done.tokens, callsOf(done));
      count(done);
      yield { type: 'item', item: done, resumed: true };
      yield { type: 'progress', progress: { ...progress } };
      continue;
    }
    try {
      const g = await gateMessage(
        { task: run.task ?? run.title, agent: { name: agentName, role: agent?.role ?? agent?.description }, input: recordedInput(run, p, agent, delivered), output: messageText(step) },
        { pool, params, client, signal },
      );
      const iv = gateIntervention(step, agentName, g, pool, params);
      interventions.push(iv);
      if (g.state === 'rejected') delivered.set(step.id, null);
      else if (g.state === 'pass' && g.finalOutput !== messageText(step)) delivered.set(step.id, g.finalOutput);
      addUsage(overhead, iv.tokens);
      tally.add(iv.tokens, callsOf(iv));
      count(iv);
      yield { type: 'item', item: iv, resumed: false };
      yield { type: 'progress', progress: { ...progress } };
    } catch (e) {
      const cause = e instanceof GateFailed ? e.cause : e;
      if (e instanceof GateFailed) {
        addUsage(overhead, e.spent);
        tally.add(e.spent, e.llmCallIds.length);
      }
      if (cause instanceof Cancelled || signal?.aborted) status = 'cancelled';
      else {
        status = 'failed';
        failure = { stepId: step.id, stepNumber: numbers.get(step.id), agent: agentName, message: cause instanceof Error ? cause.message : String(cause) };
      }
      break;
    }
  }

  let fallback: Intervention | undefined;
  if (status === 'complete' && client && positions.length > 0) {
    // Algorithm 1, phase 2: too few surviving messages → restart without auditing. On a recording, the unaudited run
    // is the recording itself, so every message is delivered as recorded.
    const valid = interventions.filter((i) => rectifierAudit(i)?.state === 'pass').length;
    if (valid < params.gamma) {
      fallback = {
        id: fallbackInterventionId(run.id),
        engine: RECTIFIER_ENGINE,
        context: 'run',
        action: 'global-fallback',
        reason: `${valid} of ${positions.length} messages survived, fewer than γ = ${params.gamma}: the run restarts without auditing, so every message is delivered as recorded`,
        heuristic: false,
        details: { valid, gamma: params.gamma, audited: positions.length },
      };
      yield { type: 'item', item: fallback, resumed: false };
    }
  }
  return { runId: run.id, status, offline: !client, interventions, fallback, failure, overhead, cost: engineCost(tally.perRun(), client ? poolCost(pool) : null) };
}

const callsOf = (iv: Intervention) => (typeof iv.details?.calls === 'number' ? iv.details.calls : (iv.llmCallIds?.length ?? 0));

export function rectifyRun(run: Run, options: RectifyOptions & PassCallbacks<RectifyProgress, Intervention>): Promise<RectifyRunResult> {
  return drivePass(rectifyRunSteps(run, options), options);
}

/**
 * What the rectifier did to a run, for the views: the steps it pruned (hidden from the other agents), those it
 * rewrote, and whether the global fallback brought every message back.
 */
export function rectifierEffects(run: Run): { pruned: Set<string>; rewritten: Set<string>; fallback: boolean; audited: number } {
  const mine = run.interventions.filter((i) => i.engine === RECTIFIER_ENGINE);
  const fallback = mine.some((i) => i.action === 'global-fallback');
  const pruned = new Set<string>();
  const rewritten = new Set<string>();
  for (const [id, text] of deliveredFrom(mine)) (text === null ? pruned : rewritten).add(id);
  return { pruned, rewritten, fallback, audited: mine.filter((i) => i.stepId).length };
}
