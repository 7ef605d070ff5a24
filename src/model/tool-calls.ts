// Counting tool calls once (issue 13): one invocation is often mentioned in several places — the model's tool_calls
// request, the action step that carries the same request, the TOOL span that ran it — and is still one call. The graph's
// edge labels, the CLI's `tool_calls` and every other count of calls read this one counter.
import { replaySteps } from './steps.ts';
import type { Run, Step } from './types.ts';

export interface CallMention {
  name: string;
  agentId: string;
}

/** smolagents names an agent run's span `<Class>.run` (CodeAgent.run, ToolCallingAgent.run…): a handoff, not a tool. */
export const AGENT_RUN_SPAN = /^\w*Agent\.run$/;

/**
 * Walks the step list row by row and says which calls each row makes. Within a row (the step and the steps nested in
 * it) a request repeated by several steps is one call: per agent and tool name, the most any one step asks for. A tool
 * step answers a request still open (of this row or an earlier one, as chat logs answer in the next turn) or, when
 * none is open, is a call of its own.
 */
export class ToolCallCounter {
  /** Requests not yet answered by a tool step, by tool name. */
  private open = new Map<string, number>();

  callsOf(row: Step, nested: readonly Step[]): CallMention[] {
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
    for (const r of requested.values()) {
      for (let i = 0; i < r.n; i++) out.push({ name: r.name, agentId: r.agentId });
      this.open.set(r.name, (this.open.get(r.name) ?? 0) + r.n);
    }
    for (const s of [row, ...nested]) {
      if (s.kind !== 'tool' || !s.name) continue;
      const open = this.open.get(s.name) ?? 0;
      if (open > 0) this.open.set(s.name, open - 1);
      else out.push({ name: s.name, agentId: s.agentId });
    }
    return out;
  }
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
  const counter = new ToolCallCounter();
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
    if (nested) queue.push(...nested);
  }
  return out;
}
