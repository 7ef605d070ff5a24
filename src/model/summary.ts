// Per-run figures shared by the CLI `inspect` command and the library screen (SPEC §7).
import { replaySteps } from './steps.ts';
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
  /** Rows of the step list (./steps.ts), the count every view shows. */
  steps: number;
  handoffs: number;
  tokens: TokenTotals;
  annotations: number;
  outcome: Run['outcome']['status'];
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

/** `rows`: the run's replay steps, when the caller already has them. */
export function summarizeRun(run: Run, rows: readonly Step[] = replaySteps(run)): RunSummary {
  const perAgent = new Map<string, AgentSummary>();
  for (const a of run.agents) perAgent.set(a.id, { name: a.name, steps: 0, tokens: 0 });
  const tokens = emptyTotals();
  for (const step of rows) {
    const agent = perAgent.get(step.agentId);
    if (agent) agent.steps++;
  }
  const steps = rows.length;
  for (const step of run.steps) {
    if (step.usage) {
      addUsage(tokens, step.usage);
      const agent = perAgent.get(step.agentId);
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
