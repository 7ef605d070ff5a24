// Per-run figures shared by the CLI `inspect` command and the library screen (SPEC §7).
import { stepFacts } from './step-facts.ts';
import type { Run, TokenUsage } from './types.ts';

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

/**
 * A run's duration in ms: its own start and end when it has both (and they are in order), else the time its steps span
 * (step facts: the earliest start to the latest end), else undefined. The Library's duration column, the corpus'
 * metrics and the clarifier's extra latency read it here.
 */
export function runDuration(run: Run): number | undefined {
  if (run.startTime !== undefined && run.endTime !== undefined && run.endTime >= run.startTime) return run.endTime - run.startTime;
  const { firstStart, lastEnd } = stepFacts(run);
  return lastEnd >= firstStart ? lastEnd - firstStart : undefined;
}

/**
 * The run's figures for the library and the CLI. The per-step counts come from stepFacts (one pass, kept per steps
 * array; for a run handed over by the import worker, counted there): listing a run of a million steps reads no step.
 */
export function summarizeRun(run: Run): RunSummary {
  const facts = stepFacts(run);
  // One entry per agent id (a repeated id keeps its first place and its last name).
  const perAgent = new Map<string, AgentSummary>();
  for (const a of run.agents) {
    const counted = facts.agents.get(a.id);
    perAgent.set(a.id, { name: a.name, steps: counted?.rows ?? 0, tokens: counted?.tokens ?? 0 });
  }
  return {
    id: run.id,
    title: run.title,
    agents: [...perAgent.values()],
    steps: facts.rows,
    handoffs: run.handoffs.length,
    tokens: { ...facts.tokens },
    annotations: run.annotations.length,
    outcome: run.outcome.status,
  };
}
