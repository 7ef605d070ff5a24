// Precomputed lookups over a run that every view shares (built once per run, never per render).
import { finish, SLICE, type Sliced } from './slices.ts';
import type { Agent, Run, Step } from './types.ts';

/** The rows of a run's step list and the steps nested in them (src/model/steps.ts). */
export interface StepTree {
  /** The steps a playhead moves over: those not nested inside another step, in run order. */
  replaySteps: Step[];
  /** Nested steps (model calls, tool calls) by the id of the step that holds them. */
  childrenOf: Map<string, Step[]>;
}

export interface RunIndex extends StepTree {
  run: Run;
  agentById: Map<string, Agent>;
  stepById: Map<string, Step>;
}

/** The rows and the nested steps in one pass (what the CLI report reads, without the lookups by id). */
export function stepTree(steps: readonly Step[]): StepTree {
  return finish(stepTreeSlices(steps));
}

/**
 * stepTree in slices (src/model/slices.ts). The rows are counted first and put in an array of their number: pushed one
 * by one, the array grew by half again some thirty times, and at a million steps each of its last growths was a task
 * of 20–60 ms on the page (ADR 0106). A run with no nested step (a chat log, a flat OTLP export) copies its steps at
 * once.
 */
export function* stepTreeSlices(steps: readonly Step[]): Sliced<StepTree> {
  const childrenOf = new Map<string, Step[]>();
  const n = steps.length;
  let rows = 0;
  for (let i = 0; i < n; i++) {
    if (i % SLICE === SLICE - 1) yield i / (2 * n);
    const step = steps[i];
    if (step.parentStepId === undefined) rows++;
    else {
      const siblings = childrenOf.get(step.parentStepId);
      if (siblings) siblings.push(step);
      else childrenOf.set(step.parentStepId, [step]);
    }
  }
  if (rows === n) return { replaySteps: steps.slice(), childrenOf };
  const replaySteps = new Array<Step>(rows);
  for (let i = 0, row = 0; i < n; i++) {
    if (i % SLICE === SLICE - 1) yield (n + i) / (2 * n);
    const step = steps[i];
    if (step.parentStepId === undefined) replaySteps[row++] = step;
  }
  return { replaySteps, childrenOf };
}

export function indexRun(run: Run): RunIndex {
  return finish(indexRunSlices(run));
}

/** indexRun in slices (src/model/slices.ts). */
export function* indexRunSlices(run: Run): Sliced<RunIndex> {
  const agentById = new Map(run.agents.map((a) => [a.id, a]));
  const { replaySteps, childrenOf } = yield* stepTreeSlices(run.steps);
  // Built on first read: opening a run reads it only to place nested steps, and a flat run has none.
  let stepById: Map<string, Step> | undefined;
  return {
    run,
    agentById,
    get stepById() {
      if (!stepById) {
        stepById = new Map<string, Step>();
        for (const step of run.steps) stepById.set(step.id, step);
      }
      return stepById;
    },
    replaySteps,
    childrenOf,
  };
}
