// Counting tool calls once (issue 13): one invocation is often mentioned in several places — the model's tool_calls
// request, the action step that carries the same request, the TOOL span that ran it — and is still one call. The graph's
// edge labels, the CLI's `tool_calls` and every other count of calls read this one counter.
import { stepTree, type StepTree } from './run-index.ts';
import type { Run, Step } from './types.ts';
import { appendAll } from './large-arrays.ts';
import { finish, SLICE, type Sliced } from './slices.ts';

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
  // The requests of the row being read (see readRequests), reused row after row: by `agentId \0 name`, the index of
  // the request in the three columns, in order of first sight.
  private readonly requested = new Map<string, number>();
  private readonly requestAgents: string[] = [];
  private readonly requestNames: string[] = [];
  private readonly requestCounts: number[] = [];
  /** Calls per key within one step. */
  private readonly tally = new Map<string, number>();

  constructor(private readonly executions: boolean) {}

  static for(run: Pick<Run, 'steps'>): ToolCallCounter {
    return finish(ToolCallCounter.forSlices(run));
  }

  /** `for` in slices: whether the run has a tool step is a pass over every step when it has none (a chat log). */
  static *forSlices(run: Pick<Run, 'steps'>): Sliced<ToolCallCounter> {
    const { steps } = run;
    for (let i = 0; i < steps.length; i++) {
      if (i % SLICE === SLICE - 1) yield i / steps.length;
      const s = steps[i];
      if (s.kind === 'tool' && s.name !== undefined && s.name !== '') return new ToolCallCounter(true);
    }
    return new ToolCallCounter(false);
  }

  callsOf(row: Step, nested: readonly Step[]): CallMention[] {
    const out: CallMention[] = [];
    this.eachCall(row, nested, (name, agentId) => out.push({ name, agentId }));
    return out;
  }

  /** The calls of callsOf, in the same order, handed to `visit` one by one (nothing is allocated per row). */
  eachCall(row: Step, nested: readonly Step[], visit: (name: string, agentId: string) => void): void {
    const n = this.readRequests(row, nested);
    const agents = this.requestAgents;
    const names = this.requestNames;
    const counts = this.requestCounts;
    if (!this.executions) {
      for (let r = 0; r < n; r++) for (let i = 0; i < counts[r]; i++) visit(names[r], agents[r]);
      return;
    }
    // A tool step is drawn from the agent that asked for it (chat logs answer in a later turn, by a tool "agent"):
    // its own agent's open request first, else the oldest open one.
    for (let r = 0; r < n; r++) {
      let q = this.open.get(names[r]);
      if (!q) this.open.set(names[r], (q = []));
      for (let i = 0; i < counts[r]; i++) q.push(agents[r]);
    }
    for (let k = -1; k < nested.length; k++) {
      const s = k < 0 ? row : nested[k];
      if (s.kind !== 'tool' || !s.name) continue;
      const q = this.open.get(s.name);
      let asker = s.agentId;
      if (q && q.length > 0) {
        const own = q.indexOf(s.agentId);
        asker = takeAt(q, own >= 0 ? own : 0);
      }
      visit(s.name, asker);
    }
  }

  /**
   * The calls a row asks for, into the request columns (returns how many): per agent and tool name, the most any one
   * of its steps (row or nested) asks for, in order of first sight.
   */
  private readRequests(row: Step, nested: readonly Step[]): number {
    const requested = this.requested;
    const tally = this.tally;
    // Only when something is in it: V8 gives a Map a new table on every clear, empty or not (a million rows: ~35 ms
    // and a million small objects for the collector, in Node).
    if (requested.size > 0) requested.clear();
    let n = 0;
    for (let k = -1; k < nested.length; k++) {
      const s = k < 0 ? row : nested[k];
      const calls = s.toolCalls;
      if (!calls || calls.length === 0) continue;
      // A step of one call (the usual case) needs no tally.
      const single = calls.length === 1;
      if (!single && tally.size > 0) tally.clear();
      for (const c of calls) {
        // Keys are built only for steps of several calls, or rows of many requests (a few columns are scanned).
        const key = single && n <= SCAN_REQUESTS ? undefined : `${s.agentId}\u0000${c.name}`;
        let count = 1;
        if (!single) tally.set(key!, (count = (tally.get(key!) ?? 0) + 1));
        let at: number | undefined;
        if (n > SCAN_REQUESTS) {
          if (requested.size === 0) for (let r = 0; r < n; r++) requested.set(`${this.requestAgents[r]}\u0000${this.requestNames[r]}`, r);
          at = requested.get(key!);
        } else {
          for (let r = 0; r < n; r++) {
            if (this.requestNames[r] === c.name && this.requestAgents[r] === s.agentId) {
              at = r;
              break;
            }
          }
        }
        if (at === undefined) {
          if (n > SCAN_REQUESTS) requested.set(key!, n);
          this.requestAgents[n] = s.agentId;
          this.requestNames[n] = c.name;
          this.requestCounts[n] = count;
          n++;
        } else if (this.requestCounts[at] < count) this.requestCounts[at] = count;
      }
    }
    return n;
  }
}

/** Up to this many requests in a row are found by scanning the columns; above, by a map built then. */
const SCAN_REQUESTS = 8;

/** `list.splice(i, 1)[0]` without the array splice returns. */
function takeAt<T>(list: T[], i: number): T {
  const item = list[i];
  if (i === 0) list.shift();
  else {
    for (let j = i; j < list.length - 1; j++) list[j] = list[j + 1];
    list.length--;
  }
  return item;
}

/**
 * Calls per tool name over the run (agents called as tools and agent-run spans are handoffs, not tool calls). A Map:
 * tool names come from the file. `tree` (the run's rows and nested steps, src/model/run-index.ts) when the caller
 * already has it.
 */
export function toolCallCounts(run: Run, tree: StepTree = stepTree(run.steps)): Map<string, number> {
  const agentNames = new Set<string>();
  for (const a of run.agents) agentNames.add(a.name);
  const counter = ToolCallCounter.for(run);
  const counts = new Map<string, number>();
  // One list of nested steps, refilled row after row.
  const nested: Step[] = [];
  const count = (name: string) => {
    if (agentNames.has(name) || AGENT_RUN_SPAN.test(name)) return;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  for (const row of tree.replaySteps) counter.eachCall(row, nestedStepsInto(row.id, tree.childrenOf, nested), count);
  return counts;
}

/** Every step nested in `stepId`, at any depth, parents before their children. */
export function nestedSteps(stepId: string, childrenOf: ReadonlyMap<string, readonly Step[]>): Step[] {
  return nestedStepsInto(stepId, childrenOf, []);
}

/** nestedSteps into `out` (emptied first; returned): a caller reading row after row reuses one array. */
export function nestedStepsInto(stepId: string, childrenOf: ReadonlyMap<string, readonly Step[]>, out: Step[]): Step[] {
  out.length = 0;
  const direct = childrenOf.get(stepId);
  if (!direct) return out;
  appendAll(out, direct);
  // `out` is the queue: at most MAX_NESTED steps are read, and kept.
  for (let i = 0; i < out.length && i < MAX_NESTED; i++) {
    const nested = childrenOf.get(out[i].id);
    if (nested) appendAll(out, nested);
  }
  if (out.length > MAX_NESTED) out.length = MAX_NESTED;
  return out;
}

const MAX_NESTED = 100_000;
