// A run made from another in a worker (the shadow-supervised estimate, SPEC §5.1) goes back to the page as what differs
// from its source: its own fields, the steps it changed, and which of the source's arrays it keeps. The page holds the
// source and puts the run together without receiving a copy of every step: for a 200k-message chat log the whole run,
// received in one message, held the page 1.9 s (ADR 0060).
import { countStepFacts, rememberStepFacts, type StepFacts } from './step-facts.ts';
import type { Run, Step } from './types.ts';

/** Arrays a derived run may keep from its source as they are. */
const KEPT_FIELDS = ['agents', 'agentRuns', 'handoffs', 'annotations', 'interventions', 'spans', 'models'] as const;
type KeptField = (typeof KEPT_FIELDS)[number];

export interface RunPatch {
  /** The source run's id and step count: a patch applies to that run only. */
  sourceId: string;
  stepCount: number;
  /** The run without its steps and the arrays it keeps from the source. */
  fields: Omit<Run, 'steps' | KeptField> & Partial<Pick<Run, KeptField>>;
  /** The source's arrays the run keeps as they are. */
  kept: KeptField[];
  /** The steps that differ from the source's, by position (the run has the source's number of steps). */
  steps: [index: number, step: Step][];
  /**
   * The run's step facts (model/step-facts.ts), counted where the run was made: the page would otherwise count them
   * in the Library's first render after the run arrives (a pass over every step, 50–135 ms at a million).
   */
  facts: StepFacts;
}

/** What `run` changed of `source`, by identity: the worker made it from that same source object. */
export function runPatch(source: Run, run: Run): RunPatch {
  if (run.steps.length !== source.steps.length) throw new Error(`a derived run of ${source.steps.length} steps has ${run.steps.length}`);
  const fields: Record<string, unknown> = { ...run };
  delete fields.steps;
  const kept: KeptField[] = [];
  for (const field of KEPT_FIELDS) {
    if (Array.isArray(source[field]) && run[field] === source[field]) {
      kept.push(field);
      delete fields[field];
    }
  }
  const steps: [number, Step][] = [];
  for (let i = 0; i < run.steps.length; i++) if (run.steps[i] !== source.steps[i]) steps.push([i, run.steps[i]]);
  return { sourceId: source.id, stepCount: source.steps.length, fields: fields as RunPatch['fields'], kept, steps, facts: countStepFacts(run.steps) };
}

/** The run `patch` describes, made from `source` (the page's copy of the run the patch was made from). */
export function applyRunPatch(source: Run, patch: RunPatch): Run {
  if (source.id !== patch.sourceId || source.steps.length !== patch.stepCount) {
    throw new Error(`the derived run was made from ${patch.sourceId} (${patch.stepCount} steps), not from ${source.id} (${source.steps.length} steps)`);
  }
  const steps = source.steps.slice();
  for (const [index, step] of patch.steps) steps[index] = step;
  const run = { ...patch.fields, steps } as Run;
  for (const field of patch.kept) (run as unknown as Record<KeptField, unknown>)[field] = source[field];
  rememberStepFacts(run, patch.facts);
  return run;
}
