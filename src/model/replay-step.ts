// What a step is (README "What a step is", ADR 0017): a row of the step list, a step not nested in another. Its own
// module so that both src/model/steps.ts and src/model/step-facts.ts read it without importing each other.
import type { Step } from './types.ts';

/** A row of the step list: a step not nested in another. */
export const isReplayStep = (step: Step): boolean => step.parentStepId === undefined;
