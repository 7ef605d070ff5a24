// The edge clarifier as a message gate of the live runner (ADR 0011): every message an agent produces is checked
// before the others see it. The message is a broadcast in the runner's teams, so the receiver is taken to be the
// member who speaks next in the team's order (the one about to act on it), the others are listed as receivers too,
// and the local history is the last H visible turns. When the clarifier asks, the addressee answers through the
// runner's `ask` (the agent played with its role prompt and the conversation), and the revised message is delivered.
import type { GateContext, MessageGate } from '../runner/gates.ts';
import type { Agent } from '../../model/types.ts';
import { clarifyEdge, type Answerer } from './clarify-edge.ts';
import { DEFAULT_WINDOW, type EdgeAgent, type EdgeState } from './edges.ts';
import { clarifierInterventionId, toIntervention } from './pass.ts';

export interface ClarifierGateOptions {
  /** History window H (default 3). */
  window?: number;
  /** Decide with the LLM-free flagger even when there is an endpoint (it asks nobody). */
  heuristic?: boolean;
}

function member(id: string, agents: ReadonlyMap<string, Agent>): EdgeAgent {
  const a = agents.get(id);
  const out: EdgeAgent = { id, name: a?.name ?? id };
  const role = a?.role ?? a?.description;
  if (role) out.role = role;
  return out;
}

/** The edge state of a message in a live run: sender, the members in speaking order after it, the last H turns. */
export function gateEdgeState(ctx: Pick<GateContext, 'run' | 'step' | 'members' | 'visible' | 'task' | 'text'>, window = DEFAULT_WINDOW): EdgeState {
  const agents = new Map(ctx.run.agents.map((a) => [a.id, a]));
  const sender = ctx.step.agentId;
  const others = ctx.members.filter((m) => m !== sender);
  const at = ctx.members.indexOf(sender);
  const ordered = at === -1 ? others : [...ctx.members.slice(at + 1), ...ctx.members.slice(0, at)].filter((m) => m !== sender);
  const receivers = (ordered.length > 0 ? ordered : [sender]).map((id) => member(id, agents));
  const history = ctx.visible.slice(Math.max(0, ctx.visible.length - window)).map((t) => ({ from: agents.get(t.speaker)?.name ?? t.speaker, to: 'the team', message: t.content }));
  return {
    id: ctx.step.id,
    task: ctx.task,
    sender: member(sender, agents),
    receiver: receivers[0],
    receivers,
    message: ctx.text,
    history: window > 0 ? history : [],
    kind: 'broadcast',
    stepId: ctx.step.id,
  };
}

/** The runner's `ask`, with the addressee's recorded call (found by its question) for the token count. */
function askThroughRunner(ctx: GateContext): Answerer {
  return async (state, who, question) => {
    const agent = who === 'sender' ? state.sender : state.receiver;
    const records = ctx.client?.recorder.records;
    const before = records?.length ?? 0;
    const text = await ctx.ask(agent.id, question);
    const record = records?.slice(before).find((r) => JSON.stringify(r.request ?? '').includes(JSON.stringify(question).slice(1, -1)));
    return { text: text.trim(), usage: record?.usage, llmCallId: record?.id };
  };
}

export function clarifierGate(options: ClarifierGateOptions = {}): MessageGate {
  return {
    engine: 'clarifier',
    async review(ctx) {
      const state = gateEdgeState(ctx, options.window);
      const client = options.heuristic ? undefined : ctx.client;
      const c = await clarifyEdge(state, { client, signal: ctx.signal, answer: askThroughRunner(ctx) });
      // The handoff does not exist yet (it is made when the message is delivered): the intervention names the step.
      const iv = toIntervention(c, ctx.step.id);
      delete iv.handoffId;
      iv.id = clarifierInterventionId(ctx.step.id);
      if (c.changed) return { action: 'revise', text: c.revisedMessage, interventions: [iv] };
      return { action: 'pass', interventions: [iv] };
    },
  };
}
