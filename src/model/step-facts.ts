// What the page reads from every step of a run before its run view is built: the rows of the step list and their
// kinds, each agent's rows and tokens, the run's token totals, and where the fork checks stop (src/engine/runner/
// forkable.ts). One pass over the steps, kept per steps array. The import worker, which holds the run already, counts
// them there and sends this small result with the run (src/workers/import.worker.ts), so that listing a run of a
// million steps and opening it are not one long task on the page; a shadow-supervised run's come the same way with its
// patch (model/run-patch.ts); the library's load counts its stored runs' in slices (countStepFactsOfRuns); anywhere
// else they are counted on first use.
import { isReplayStep } from './replay-step.ts';
import { finish, phase, SLICE, type Sliced } from './slices.ts';
import type { Run, Step, StepKind } from './types.ts';

/**
 * Whether a message step says something: a tool call, or an output with a visible character (tested without building
 * the text: a run of a million messages is read in one pass). The rectifier audits such messages of its LLM agents.
 */
export function hasMessageText(step: Step): boolean {
  const output = step.output;
  if (output !== undefined && output.length > 0) {
    // Most outputs start with a printable ASCII character: no regular expression then.
    const first = output.charCodeAt(0);
    if (first > 32 && first < 127) return true;
  }
  return (step.toolCalls?.length ?? 0) > 0 || NOT_BLANK.test(output ?? '');
}

const NOT_BLANK = /\S/;

export interface StepFacts {
  /** How many steps were counted: facts for a steps array that has changed length since are not used. */
  counted: number;
  /** Rows of the step list (src/model/steps.ts). */
  rows: number;
  /** Per kind: its rows and the position (0-based, in the step list) of its first row. */
  kinds: Map<StepKind, { rows: number; first: number }>;
  /** The position of the first row that is a model call with a recorded prompt (`input` not empty), -1 if none. */
  firstPromptedCall: number;
  /**
   * Per agent id: its rows, the tokens (`usage.total`) of all its steps, nested ones included, and its messages with
   * something in them (hasMessageText: the rectifier audits those of its LLM agents).
   */
  agents: Map<string, { rows: number; tokens: number; messages: number }>;
  /** Token usage summed over all steps, nested ones included (src/model/summary.ts addUsage). */
  tokens: { input: number; output: number; total: number; estimated: boolean };
  /**
   * The steps' time range, nested ones included: the earliest `startTime` and the latest `endTime` (a step without one,
   * its `startTime`); Infinity and -Infinity when no step has one. A run's duration falls back to it (summary.ts
   * runDuration).
   */
  firstStart: number;
  lastEnd: number;
}

/** The facts of `steps`, counted in one pass (in step order, so sums are those of a pass in that order). */
export function countStepFacts(steps: readonly Step[]): StepFacts {
  return finish(stepFactsSlices(steps));
}

/**
 * countStepFacts as a sliced derivation (src/model/slices.ts): the same pass, yielding every SLICE steps. The library's
 * load counts its stored runs' facts so, the page's thread given back in between: counted in the Library's first
 * render instead, a 1M-step run's made a task of 117–182 ms of CPU after every reload.
 */
export function* stepFactsSlices(steps: readonly Step[]): Sliced<StepFacts> {
  const kinds = new Map<StepKind, { rows: number; first: number }>();
  const agents = new Map<string, { rows: number; tokens: number; messages: number }>();
  const tokens = { input: 0, output: 0, total: 0, estimated: false };
  let rows = 0;
  let firstPromptedCall = -1;
  let firstStart = Infinity;
  let lastEnd = -Infinity;
  // Steps of one agent, and rows of one kind, come in stretches: looked up again only when they change.
  let agentId: string | undefined;
  let agent: { rows: number; tokens: number; messages: number } | undefined;
  let kind: StepKind | undefined;
  let ofKind: { rows: number; first: number } | undefined;
  const n = steps.length;
  for (let i = 0; i < n; i++) {
    if (i % SLICE === SLICE - 1) yield i / n;
    const step = steps[i];
    if (agent === undefined || step.agentId !== agentId) {
      agentId = step.agentId;
      agent = agents.get(agentId);
      if (!agent) agents.set(agentId, (agent = { rows: 0, tokens: 0, messages: 0 }));
    }
    const usage = step.usage;
    if (usage) {
      tokens.input += usage.input;
      tokens.output += usage.output;
      tokens.total += usage.total;
      if (usage.estimated) tokens.estimated = true;
      agent.tokens += usage.total;
    }
    const start = step.startTime;
    if (start !== undefined && start < firstStart) firstStart = start;
    const end = step.endTime ?? start;
    if (end !== undefined && end > lastEnd) lastEnd = end;
    if (!isReplayStep(step)) continue;
    agent.rows++;
    if ((step.kind === 'message' || step.kind === 'final') && hasMessageText(step)) agent.messages++;
    if (ofKind === undefined || step.kind !== kind) {
      kind = step.kind;
      ofKind = kinds.get(kind);
      if (!ofKind) kinds.set(kind, (ofKind = { rows: 0, first: rows }));
    }
    ofKind.rows++;
    if (firstPromptedCall === -1 && step.kind === 'llm' && !!step.input && step.input.length > 0) firstPromptedCall = rows;
    rows++;
  }
  return { counted: n, rows, kinds, firstPromptedCall, agents, tokens, firstStart, lastEnd };
}

const known = new WeakMap<readonly Step[], StepFacts>();

/** The facts of `run`'s steps when counted already (here or by the import worker), else undefined. */
export function knownStepFacts(run: Pick<Run, 'steps'>): StepFacts | undefined {
  const facts = known.get(run.steps);
  return facts && facts.counted === run.steps.length ? facts : undefined;
}

/** The facts of `run`'s steps: counted on first use, then kept for as long as its steps array lives. */
export function stepFacts(run: Pick<Run, 'steps'>): StepFacts {
  let facts = knownStepFacts(run);
  if (!facts) {
    facts = countStepFacts(run.steps);
    known.set(run.steps, facts);
  }
  return facts;
}

/**
 * The facts of each of `runs` not counted yet, counted and kept (stepFacts then finds them), as a sliced derivation:
 * it yields within a large run and after each run, so that many runs never make one long task either.
 */
export function* countStepFactsOfRuns(runs: readonly Pick<Run, 'steps'>[]): Sliced<void> {
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i];
    if (!knownStepFacts(run)) known.set(run.steps, yield* phase(stepFactsSlices(run.steps), i / runs.length, (i + 1) / runs.length));
    yield (i + 1) / runs.length;
  }
}

/** Facts counted elsewhere (the import worker) for these steps: used when they are still as many as were counted. */
export function rememberStepFacts(run: Pick<Run, 'steps'>, facts: StepFacts): void {
  if (facts.counted === run.steps.length) known.set(run.steps, facts);
}
