// Builds a native run turn by turn, for the runner and for forks: message steps with the exact call input, the
// visible conversation, broadcast handoffs, the gates' interventions, and pruned messages kept out of sight.
import { Cancelled } from '../../llm/errors.ts';
import type { ChatResult, LlmClient } from '../../llm/client.ts';
import type { Agent, Intervention, Outcome, Run, RunLive, SourceFormat, Step, TokenUsage, TurnOrigin } from '../../model/types.ts';
import { RunBuilder as ModelRunBuilder } from '../../model/run-builder.ts';
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

/**
 * The runner's builder: the model's RunBuilder (ids, agent runs, the Run skeleton) plus what a live conversation
 * needs — delivery to the other members, pruning, restarts, gates — and the run's live status.
 */
export class RunBuilder {
  readonly visible: VisibleTurn[] = [];
  private readonly core: ModelRunBuilder;

  constructor(
    readonly id: string,
    readonly task: string,
    readonly agents: Agent[],
    private readonly base: Pick<Run, 'title' | 'sourceFormat' | 'framework' | 'tags'> & { sourceFormat: SourceFormat },
  ) {
    this.core = new ModelRunBuilder(id, task);
    for (const a of agents) this.core.addAgent(a);
  }

  get steps(): Step[] {
    return this.core.steps;
  }

  get interventions(): Intervention[] {
    return this.core.interventions;
  }

  get members(): string[] {
    return this.agents.filter((a) => a.kind === undefined || a.kind === 'agent').map((a) => a.id);
  }

  /** Append a message step (not yet visible to anyone: call `deliver` or `prune`). */
  addStep(agentId: string, text: string, source: TurnSource, extra: Partial<Step> = {}): Step {
    const step = this.core.addStep({
      kind: 'message',
      agentId,
      agentRunId: this.core.agent(agentId) ? this.core.agentRunId(agentId) : undefined,
      number: this.steps.length,
      output: text,
      ...extra,
    });
    if (source.input) step.input = source.input.map((m) => ({ role: m.role, content: m.content }));
    if (source.usage) step.usage = source.usage;
    if (source.model) step.model = source.model;
    step.runner = { ...step.runner, origin: source.origin };
    if (source.key) step.runner.callKey = source.key;
    if (source.llmCallId) step.runner.llmCallId = source.llmCallId;
    return step;
  }

  /** A nested model call (the speaker selector) under a message step. */
  addNestedCall(parent: Step, name: string, result: ChatResult): void {
    this.core.addStep({
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
      this.core.addHandoff(step, { to, kind: 'broadcast', content: text });
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
    const run = this.core.build({ ...this.base, outcome, task: this.task }, { copySteps: true, timesFromSteps: true });
    run.live = { status, ...(note ? { note } : {}) };
    return Object.assign(run, extra);
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
