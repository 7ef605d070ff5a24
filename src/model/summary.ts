// Per-run figures shared by the CLI `inspect` command and the library screen (SPEC §7).
import type { Run, Step, TokenUsage } from './types.ts';

export interface TokenTotals {
  input: number;
  output: number;
  total: number;
  /** true when any counted step was estimated by a tokenizer. */
  estimated: boolean;
}

export interface AgentSummary {
  name: string;
  steps: number;
  tokens: number;
}

export interface RunSummary {
  id: string;
  title: string;
  agents: AgentSummary[];
  steps: number;
  handoffs: number;
  tokens: TokenTotals;
  annotations: number;
  outcome: Run['outcome']['status'];
}

const CHAT_FORMATS = new Set<Run['sourceFormat']>(['chat-log', 'openai-chat', 'message-bus', 'runner']);

/**
 * The steps that `inspect` counts: smolagents action steps when the run has them; the turns of chat and
 * message-bus logs; otherwise model calls, tool calls and agent calls (SPEC §7).
 */
export function countedSteps(run: Run): (step: Step) => boolean {
  if (run.steps.some((s) => s.kind === 'action')) return (s) => s.kind === 'action';
  if (CHAT_FORMATS.has(run.sourceFormat)) return (s) => s.parentStepId === undefined;
  return (s) => s.kind === 'llm' || s.kind === 'tool';
}

/** Agent calls that count as steps for span formats without action steps: agent runs recorded as spans. */
function countedAgentCalls(run: Run): Map<string, number> {
  const byAgent = new Map<string, number>();
  if (run.steps.some((s) => s.kind === 'action') || CHAT_FORMATS.has(run.sourceFormat)) return byAgent;
  for (const r of run.agentRuns) if (r.spanId !== undefined) byAgent.set(r.agentId, (byAgent.get(r.agentId) ?? 0) + 1);
  return byAgent;
}

/** Token usage is recorded only on model-call and message steps, never on aggregates, so a plain sum is right. */
export function addUsage(into: TokenTotals, usage: TokenUsage | undefined): void {
  if (!usage) return;
  into.input += usage.input;
  into.output += usage.output;
  into.total += usage.total;
  if (usage.estimated) into.estimated = true;
}

export function emptyTotals(): TokenTotals {
  return { input: 0, output: 0, total: 0, estimated: false };
}

export function summarizeRun(run: Run): RunSummary {
  const counted = countedSteps(run);
  const agentCalls = countedAgentCalls(run);
  const perAgent = new Map<string, AgentSummary>();
  for (const a of run.agents) perAgent.set(a.id, { name: a.name, steps: agentCalls.get(a.id) ?? 0, tokens: 0 });
  const tokens = emptyTotals();
  let steps = 0;
  for (const c of agentCalls.values()) steps += c;
  for (const step of run.steps) {
    const agent = perAgent.get(step.agentId);
    if (counted(step)) {
      steps++;
      if (agent) agent.steps++;
    }
    if (step.usage) {
      addUsage(tokens, step.usage);
      if (agent) agent.tokens += step.usage.total;
    }
  }
  return {
    id: run.id,
    title: run.title,
    agents: [...perAgent.values()],
    steps,
    handoffs: run.handoffs.length,
    tokens,
    annotations: run.annotations.length,
    outcome: run.outcome.status,
  };
}
