// Engine hooks of the runner and of forks (ADR 0011). Every message an agent produces passes through the enabled
// gates, in order, before the other agents see it. A gate may let it pass, revise it (the revised text is what the
// others see) or prune it (nobody sees it, the final decision included). Gates record what they did as
// Interventions on the run; their LLM calls go through the client they are given, so they are recorded too.
import type { LlmClient } from '../../llm/client.ts';
import { indexRun } from '../../model/run-index.ts';
import type { Intervention, Run, Step } from '../../model/types.ts';
import { AdaptiveFilter, type FilterParams } from '../supervisor/filter.ts';
import { superviseTrigger } from '../supervisor/supervisor.ts';
import type { VisibleTurn } from './conversation.ts';
import { supervisorDetails } from '../supervisor/details.ts';

export type EngineName = 'supervisor' | 'rectifier' | 'clarifier';

export interface GateContext {
  /** The run so far, the produced message's step included (as the last step). Read only. */
  run: Run;
  step: Step;
  /** The message as produced (or as revised by an earlier gate). */
  text: string;
  task: string;
  /** What the other agents have seen so far (pruned messages left out), before this message. */
  visible: readonly VisibleTurn[];
  /** Agents of the team that an engine may address (ids), the speaker included. */
  members: readonly string[];
  client?: LlmClient;
  signal?: AbortSignal;
  /**
   * Ask the producing agent again: its original input, its previous message (`previous`, default the current text)
   * as the assistant's turn, then this feedback; returns its new message.
   */
  regenerate(feedback: string, previous?: string): Promise<string>;
  /** Put a question to an agent, playing it with its own role prompt and the conversation so far; returns its reply. */
  ask(agentId: string, question: string): Promise<string>;
}

export type GateVerdict =
  | { action: 'pass'; interventions?: Intervention[] }
  | { action: 'revise'; text: string; interventions?: Intervention[] }
  | { action: 'prune'; interventions?: Intervention[] };

export interface MessageGate {
  engine: EngineName;
  review(ctx: GateContext): Promise<GateVerdict>;
  /**
   * The global fallback (SPEC §5.2): when fewer of the roles' messages than this survive the gates, the runner
   * restarts the conversation without any gate and records a `global-restart` intervention for this engine.
   */
  minSurvivors?: number;
}

/**
 * Which engines are on, and their settings, as plain data (sent to the worker, stored in a batch's spec so a resumed
 * batch uses the same settings). `src/engine/live-engines` turns it into gates.
 */
export interface EngineConfig {
  /** Supervisor thresholds; `heuristic` decides without the endpoint. */
  supervisor?: { tauStep: number; tauLoop: number; tauLen: number; heuristic: boolean };
  /** Rectify-or-reject (needs an endpoint to audit); no pool (or `zeroShot`): the domain's general indicator alone. */
  rectifier?: {
    params: { k: number; tMax: number; gamma: number; domain: 'math' | 'code' | 'generic'; zeroShot: boolean; auditRetries: number };
    pool?: { name: string; indicators: unknown[] };
  };
  /** The edge clarifier; `heuristic` flags with its LLM-free rules and asks nobody. */
  clarifier?: { heuristic: boolean; window?: number };
}

/** The engines a config switches on, in the order their gates run. */
export function enginesOn(config: EngineConfig | undefined): EngineName[] {
  if (!config) return [];
  return (['rectifier', 'clarifier', 'supervisor'] as const).filter((e) => config[e] !== undefined);
}

/** What a UI shows per engine: whether this build can switch it on. */
export interface EngineAvailability {
  engine: EngineName;
  label: string;
  available: boolean;
  note: string;
}

export const ENGINE_AVAILABILITY: readonly EngineAvailability[] = [
  { engine: 'supervisor', label: 'Runtime supervisor', available: true, note: 'adaptive filter on every message; guidance or a purified message when it fires' },
  { engine: 'rectifier', label: 'Rectify-or-reject', available: true, note: 'audits every message against retrieved indicators; feedback and a retry, or the message is pruned' },
  { engine: 'clarifier', label: 'Edge clarifier', available: true, note: 'checks every message before it is handed on; asks the sender or the next member and delivers the answer with it' },
];

/**
 * A message step as the supervisor's filter sees it: an action whose observation is the message the others receive
 * (in an LLM-only team a teammate's message is what plays the part of a tool's observation).
 */
export function asActionStep(step: Step, text = step.output ?? ''): Step {
  return { ...step, kind: 'action', output: text, observation: text, toolCalls: undefined };
}

/**
 * The runtime supervisor as a gate: the adaptive filter checks every message in order; when it fires, the supervisor
 * decides (through the endpoint, or with its LLM-free heuristics when `heuristic` is set or there is no client),
 * and a corrected or guided observation becomes the revised message.
 */
export function supervisorGate(params: FilterParams, options: { heuristic?: boolean } = {}): MessageGate {
  const filter = new AdaptiveFilter(params);
  let checked = 0;
  return {
    engine: 'supervisor',
    async review(ctx) {
      const action = asActionStep(ctx.step, ctx.text);
      const trigger = filter.check(action, checked++);
      if (!trigger) return { action: 'pass' };
      const steps = ctx.run.steps.map((s) => (s.id === ctx.step.id ? action : s.kind === 'message' || s.kind === 'final' ? asActionStep(s) : s));
      const at = steps.findIndex((s) => s.id === ctx.step.id);
      const index = indexRun({ ...ctx.run, steps });
      const intervention = await superviseTrigger(
        { ...trigger, stepIndex: at },
        { index, params, client: options.heuristic ? undefined : ctx.client, signal: ctx.signal },
      );
      const revised = supervisorDetails(intervention)?.newObservation;
      if (revised !== undefined && revised !== ctx.text) return { action: 'revise', text: revised, interventions: [intervention] };
      return { action: 'pass', interventions: [intervention] };
    },
  };
}
