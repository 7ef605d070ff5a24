// Counting tool calls once (issue 13): one invocation is often mentioned in several places — the model's tool_calls
// request, the action step that carries the same request, the TOOL span that ran it — and is still one call. The graph's
// edge labels, the CLI's `tool_calls` and every other count of calls read this one counter.
import { replaySteps } from './steps.ts';
import type { Run, Step } from './types.ts';
import { appendAll } from './large-arrays.ts';

export interface CallMention {
  name: string;
  agentId: string;
}

/** smolagents names an agent run's span `<Class>.run` (CodeAgent.run, ToolCallingAgent.run…): a handoff, not a tool. */
export const AGENT_RUN_SPAN = /^\w*Agent\.run$/;

/**
 * Walks the step list row by row and says which calls each row makes. A run that records tool executions (tool steps:
 * TOOL spans, tool observations, tool turns) counts those, one call each, and the requests that ask for them are the
 * same calls mentioned again. A run that records only requests (the model's tool_calls) counts those instead: within a
 * row (the step and the steps nested in it) a request repeated by several steps is one call — per agent and tool
 * name, the most any one step asks for.
 */
export class ToolCallCounter {
  /** Requesting agents of requests not yet answered by a tool step, by tool name, oldest first. */
  private open = new Map<string, string[]>();

  constructor(private readonly executions: boolean) {}

  static for(run: Pick<Run, 'steps'>): ToolCallCounter {
    return new ToolCallCounter(run.steps.some((s) => s.kind === 'tool' && s.name !== undefined && s.name !== ''));
  }

  callsOf(row: Step, nested: readonly Step[]): CallMention[] {
    const requests = requestsOf(row, nested);
    if (!this.executions) return requests;
    // A tool step is drawn from the agent that asked for it (chat logs answer in a later turn, by a tool "agent"):
    // its own agent's open request first, else the oldest open one.
    for (const r of requests) {
      let q = this.open.get(r.name);
      if (!q) this.open.set(r.name, (q = []));
      q.push(r.agentId);
    }
    const out: CallMention[] = [];
    for (const s of [row, ...nested]) {
      if (s.kind !== 'tool' || !s.name) continue;
      const q = this.open.get(s.name);
      let asker = s.agentId;
      if (q && q.length > 0) {
        const own = q.indexOf(s.agentId);
        asker = q.splice(own >= 0 ? own : 0, 1)[0];
      }
      out.push({ name: s.name, agentId: asker });
    }
    return out;
  }
}

/** The calls a row asks for: per agent and tool name, the most any one of its steps (row or nested) asks for. */
function requestsOf(row: Step, nested: readonly Step[]): CallMention[] {
  const requested = new Map<string, { agentId: string; name: string; n: number }>();
  const tally = new Map<string, number>();
  for (const s of [row, ...nested]) {
    if (!s.toolCalls || s.toolCalls.length === 0) continue;
    tally.clear();
    for (const c of s.toolCalls) {
      const key = `${s.agentId}\u0000${c.name}`;
      const n = (tally.get(key) ?? 0) + 1;
      tally.set(key, n);
      const seen = requested.get(key);
      if (!seen) requested.set(key, { agentId: s.agentId, name: c.name, n });
      else if (seen.n < n) seen.n = n;
    }
  }
  const out: CallMention[] = [];
  for (const r of requested.values()) for (let i = 0; i < r.n; i++) out.push({ name: r.name, agentId: r.agentId });
  return out;
}

/**
 * Calls per tool name over the run (agents called as tools and agent-run spans are handoffs, not tool calls). A Map:
 * tool names come from the file.
 */
export function toolCallCounts(run: Run): Map<string, number> {
  const childrenOf = new Map<string, Step[]>();
  for (const s of run.steps) {
    if (s.parentStepId === undefined) continue;
    const list = childrenOf.get(s.parentStepId);
    if (list) list.push(s);
    else childrenOf.set(s.parentStepId, [s]);
  }
  const agentNames = new Set<string>();
  for (const a of run.agents) agentNames.add(a.name);
  const counter = ToolCallCounter.for(run);
  const counts = new Map<string, number>();
  for (const row of replaySteps(run)) {
    for (const call of counter.callsOf(row, nestedSteps(row.id, childrenOf))) {
      if (agentNames.has(call.name) || AGENT_RUN_SPAN.test(call.name)) continue;
      counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
    }
  }
  return counts;
}

/** Every step nested in `stepId`, at any depth, parents before their children. */
export function nestedSteps(stepId: string, childrenOf: ReadonlyMap<string, readonly Step[]>): Step[] {
  const direct = childrenOf.get(stepId);
  if (!direct) return [];
  const out: Step[] = [];
  const queue = [...direct];
  for (let i = 0; i < queue.length && i < 100_000; i++) {
    out.push(queue[i]);
    const nested = childrenOf.get(queue[i].id);
    if (nested) appendAll(queue, nested);
  }
  return out;
}
