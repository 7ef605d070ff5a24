// Builds a native run turn by turn, for the runner and for forks: message steps with the exact call input, the
// visible conversation, broadcast handoffs, the gates' interventions, and pruned messages kept out of sight.
import { Cancelled } from '../../llm/errors.ts';
import type { ChatResult, LlmClient } from '../../llm/client.ts';
import type { Agent, AgentRun, Handoff, Intervention, Outcome, Run, RunLive, SourceFormat, Step, TokenUsage, TurnOrigin } from '../../model/types.ts';
import { callKey, turnInput, type CallMessage, type Speaker, type VisibleTurn } from './conversation.ts';
import type { GateContext, MessageGate } from './gates.ts';

export type RunStatus = RunLive['status'];

export interface TurnSource {
  /** live: answered by the endpoint; recorded: from the parent run's recording; edited: by hand at the fork step. */
  origin: TurnOrigin;
  usage?: TokenUsage;
  model?: string;
  llmCallId?: string;
  input?: CallMessage[];
  key?: string;
}

export class RunBuilder {
  readonly steps: Step[] = [];
  readonly visible: VisibleTurn[] = [];
  readonly interventions: Intervention[] = [];
  private readonly handoffs: Handoff[] = [];
  private readonly agentRuns = new Map<string, AgentRun>();

  constructor(
    readonly id: string,
    readonly task: string,
    readonly agents: Agent[],
    private readonly base: Pick<Run, 'title' | 'sourceFormat' | 'framework' | 'tags'> & { sourceFormat: SourceFormat },
  ) {
    for (const a of agents) this.agentRuns.set(a.id, { id: `${id}:run:${a.id}`, agentId: a.id, task });
  }

  get members(): string[] {
    return this.agents.filter((a) => a.kind === undefined || a.kind === 'agent').map((a) => a.id);
  }

  /** Append a message step (not yet visible to anyone: call `deliver` or `prune`). */
  addStep(agentId: string, text: string, source: TurnSource, extra: Partial<Step> = {}): Step {
    const i = this.steps.length;
    const step: Step = {
      id: `${this.id}:s${i}`,
      index: i,
      kind: 'message',
      agentId,
      agentRunId: this.agentRuns.get(agentId)?.id,
      number: i,
      output: text,
      ...extra,
    };
    if (source.input) step.input = source.input.map((m) => ({ role: m.role, content: m.content }));
    if (source.usage) step.usage = source.usage;
    if (source.model) step.model = source.model;
    step.runner = { ...step.runner, origin: source.origin };
    if (source.key) step.runner.callKey = source.key;
    if (source.llmCallId) step.runner.llmCallId = source.llmCallId;
    this.steps.push(step);
    return step;
  }

  /** A nested model call (the speaker selector) under a message step. */
  addNestedCall(parent: Step, name: string, result: ChatResult): void {
    const i = this.steps.length;
    this.steps.push({
      id: `${this.id}:s${i}`,
      index: i,
      kind: 'llm',
      agentId: parent.agentId,
      agentRunId: parent.agentRunId,
      parentStepId: parent.id,
      name,
      output: result.text,
      usage: result.usage,
      model: result.record.model,
      runner: { llmCallId: result.record.id },
    });
  }

  /** The message reaches every other member. */
  deliver(step: Step, text: string): void {
    if (text !== step.output) step.runner = { ...step.runner, produced: step.output };
    step.output = text;
    this.visible.push({ speaker: step.agentId, content: text });
    const to = this.members.filter((m) => m !== step.agentId);
    if (to.length > 0) {
      step.recipients = to;
      this.handoffs.push({ id: `${this.id}:h${this.handoffs.length}`, from: step.agentId, to, kind: 'broadcast', stepId: step.id, content: text });
    }
  }

  prune(step: Step): void {
    step.runner = { ...step.runner, pruned: true };
  }

  /** Messages of the roles delivered since the last restart. */
  survivors(since = 0): number {
    return this.steps.slice(since).filter((s) => s.kind === 'message' && s.parentStepId === undefined && s.runner?.pruned !== true).length;
  }

  /**
   * Start the conversation over (the global fallback): what was delivered so far is forgotten by every agent; the
   * earlier steps stay in the run, marked `superseded`, so the run shows both passes.
   */
  restart(): void {
    for (const s of this.steps) s.runner = { ...s.runner, superseded: true };
    this.visible.length = 0;
  }

  snapshot(): Run {
    return this.build({ status: 'unknown' }, 'complete');
  }

  build(outcome: Outcome, status: RunStatus, note?: string, extra: Partial<Run> = {}): Run {
    const times = this.steps.map((s) => s.startTime).filter((t): t is number => t !== undefined);
    const ends = this.steps.map((s) => s.endTime).filter((t): t is number => t !== undefined);
    const models = [...new Set(this.steps.map((s) => s.model).filter((m): m is string => !!m))];
    const run: Run = {
      id: this.id,
      title: this.base.title,
      task: this.task,
      sourceFormat: this.base.sourceFormat,
      framework: this.base.framework,
      models,
      outcome,
      tags: { ...this.base.tags },
      agents: this.agents,
      agentRuns: [...this.agentRuns.values()],
      steps: this.steps.map((s) => ({ ...s })),
      handoffs: [...this.handoffs],
      annotations: [],
      interventions: [...this.interventions],
      orphanSpans: 0,
      live: { status, ...(note ? { note } : {}) },
      ...extra,
    };
    if (times.length > 0) run.startTime = Math.min(...times);
    if (ends.length > 0) run.endTime = Math.max(...ends);
    return run;
  }
}

export interface GateRunOptions {
  gates: readonly MessageGate[];
  client?: LlmClient;
  signal?: AbortSignal;
  /** The producing agent's speaker record (to regenerate and to answer clarifying questions). */
  speakerOf(agentId: string): Speaker | undefined;
}

/** Pass a produced message through the gates; returns the text to deliver, or undefined when it was pruned. */
export async function applyGates(builder: RunBuilder, step: Step, options: GateRunOptions): Promise<string | undefined> {
  let text = step.output ?? '';
  const visibleBefore = [...builder.visible];
  for (const gate of options.gates) {
    if (options.signal?.aborted) throw new Cancelled();
    const ctx: GateContext = {
      run: builder.snapshot(),
      step,
      text,
      task: builder.task,
      visible: visibleBefore,
      members: builder.members,
      client: options.client,
      signal: options.signal,
      regenerate: async (feedback, previous = text) => {
        const speaker = options.speakerOf(step.agentId);
        if (!speaker || !options.client) throw new Error('regenerate needs the speaker and an endpoint');
        const input = [...turnInput(speaker, builder.task, visibleBefore), { role: 'assistant', content: previous }, { role: 'user', content: feedback }];
        return (await options.client.chat({ role: 'agents', messages: input }, options.signal)).text;
      },
      ask: async (agentId, question) => {
        const speaker = options.speakerOf(agentId);
        if (!speaker || !options.client) throw new Error(`cannot ask ${agentId}: no role prompt or no endpoint`);
        const input = [...turnInput(speaker, builder.task, [...visibleBefore, { speaker: step.agentId, content: text }])];
        input.push({ role: 'user', content: `A clarifying question for you: ${question}` });
        return (await options.client.chat({ role: 'agents', messages: input }, options.signal)).text;
      },
    };
    const verdict = await gate.review(ctx);
    for (const iv of verdict.interventions ?? []) builder.interventions.push(iv);
    if (verdict.action === 'prune') return undefined;
    if (verdict.action === 'revise') text = verdict.text;
  }
  return text;
}

/** Call one agent turn live: its input, key and recorded call. */
export async function liveTurn(client: LlmClient, speaker: Speaker, task: string, visible: readonly VisibleTurn[], signal?: AbortSignal) {
  const input = turnInput(speaker, task, visible);
  const startTime = Date.now();
  const result = await client.chat({ role: 'agents', messages: input }, signal);
  return { input, key: callKey(speaker.id, input), result, startTime, endTime: Date.now() };
}

/**
 * What a fork's changed step carries: the engine verdict that was applied there (re-pointed at the fork's step), or
 * the person's own edit of the `what` (a chat message, a model call's output).
 */
export function forkChangeIntervention(
  stepId: string,
  kind: 'replace' | 'append' | 'prune',
  what: 'message' | 'output',
  details: Record<string, unknown>,
  applied?: Intervention,
): Intervention {
  if (applied) return { ...applied, id: `${applied.id}@fork`, stepId };
  return {
    id: `human:${stepId}`,
    engine: 'human',
    stepId,
    context: 'fork',
    action: kind === 'prune' ? 'prune_message' : 'edit_message',
    reason: `${what} ${kind === 'prune' ? 'pruned' : 'edited'} by hand at the fork`,
    heuristic: false,
    details,
  };
}
