// Precomputed lookups over a run that every view shares (built once per run, never per render).
import type { Agent, Run, Step } from './types.ts';

export interface RunIndex {
  run: Run;
  agentById: Map<string, Agent>;
  stepById: Map<string, Step>;
  /** The steps a playhead moves over: those not nested inside another step, in run order. */
  replaySteps: Step[];
  /** Nested steps (model calls, tool calls) by the id of the step that holds them. */
  childrenOf: Map<string, Step[]>;
}

export function indexRun(run: Run): RunIndex {
  const agentById = new Map(run.agents.map((a) => [a.id, a]));
  const stepById = new Map<string, Step>();
  const replaySteps: Step[] = [];
  const childrenOf = new Map<string, Step[]>();
  for (const step of run.steps) {
    stepById.set(step.id, step);
    if (step.parentStepId === undefined) replaySteps.push(step);
    else {
      const siblings = childrenOf.get(step.parentStepId);
      if (siblings) siblings.push(step);
      else childrenOf.set(step.parentStepId, [step]);
    }
  }
  return { run, agentById, stepById, replaySteps, childrenOf };
}
