// Lookups over a run's arrays, built once per array and kept while it lives. A label saved or an engine result kept
// makes a new run object with the same steps and handoffs; views that find a step by id, or the handoff a step sent,
// read these instead of mapping every step again (two such maps took ~190 ms of a 200k-message run's label save). An
// array appended to in place (a live run growing) is mapped again: a lookup is known by its array and length.
import type { Handoff, Step } from './types.ts';

interface Known<T> {
  length: number;
  map: Map<string, T>;
}

const stepMaps = new WeakMap<readonly Step[], Known<Step>>();
const handoffMaps = new WeakMap<readonly Handoff[], Known<string>>();

/** Each step by its id (the last of a repeated id, as a Map built from the list). */
export function stepsById(steps: readonly Step[]): ReadonlyMap<string, Step> {
  let known = stepMaps.get(steps);
  if (known?.length !== steps.length) {
    const map = new Map<string, Step>();
    for (const s of steps) map.set(s.id, s);
    stepMaps.set(steps, (known = { length: steps.length, map }));
  }
  return known.map;
}

/** The id of the first handoff each step sent. */
export function handoffBySendingStep(handoffs: readonly Handoff[]): ReadonlyMap<string, string> {
  let known = handoffMaps.get(handoffs);
  if (known?.length !== handoffs.length) {
    const map = new Map<string, string>();
    for (const h of handoffs) if (h.stepId !== undefined && !map.has(h.stepId)) map.set(h.stepId, h.id);
    handoffMaps.set(handoffs, (known = { length: handoffs.length, map }));
  }
  return known.map;
}
