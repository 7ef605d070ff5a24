// Run.spans in a session file (issue 20): a span that is a step has its attributes written once, as the step's raw.
import type { Run, RunSpan } from './types.ts';

/**
 * A run as written: a span that is a step carries its attributes once, as the step's `raw` (the same object in
 * memory); its Run.spans entry points at the step instead (`attributesOf: 'step'`). The run itself is not changed.
 */
export function compactRun(run: Run): Run {
  const spans = run.spans;
  if (!spans || spans.length === 0) return run;
  // The map of the steps' raws is built only for a span that may be a step's: one under no step, or split for the
  // hand-off (`stepRaw`: its attributes are the step's whole raw, the step keeps a few keys), never is. The import
  // worker's write of a flat 1M-span run made a map of a million raws (and a copy of the span list) to change nothing.
  let rawOf: Map<string, unknown> | undefined;
  const compacts = (span: RunSpan): boolean => {
    if (span.stepId === undefined || span.stepRaw === true) return false;
    if (!rawOf) {
      rawOf = new Map();
      for (const step of run.steps) if (step.spanId !== undefined && step.raw !== undefined) rawOf.set(step.spanId, step.raw);
    }
    return rawOf.get(span.id) === span.attributes && Object.keys(span.attributes).length > 0;
  };
  let first = 0;
  while (first < spans.length && !compacts(spans[first])) first++;
  if (first === spans.length) return run;
  const out = spans.slice();
  for (let i = first; i < out.length; i++) {
    const span = out[i];
    if (i === first || compacts(span)) out[i] = { ...span, attributes: {}, attributesOf: 'step' as const };
  }
  return { ...run, spans: out };
}

/** The inverse of compactRun, on a run read from a session: step spans get their attributes back (the step's raw). */
export function hydrateRun(run: Run): Run {
  const spans = run.spans;
  if (!spans) return run;
  let rawOf: Map<string, Record<string, unknown>> | undefined;
  for (const span of spans) {
    if (span.attributesOf !== 'step') continue;
    if (!rawOf) {
      rawOf = new Map();
      for (const step of run.steps) if (step.spanId !== undefined && step.raw !== undefined) rawOf.set(step.spanId, step.raw as Record<string, unknown>);
    }
    const raw = rawOf.get(span.id);
    if (raw) span.attributes = raw;
    delete span.attributesOf;
  }
  return run;
}

/**
 * The keys of a step's `raw` that the page reads without its spans (conversation.tsx: the tool-call id a tool step
 * answers). A step whose raw is kept with its span (splitStepRaw) still carries these.
 */
export const RAW_KEYS_ON_PAGE: readonly string[] = ['tool_call_id', 'gen_ai.tool.call.id', 'tool_call.id', 'tool.call.id'];

/**
 * A run whose spans are stored apart (ADR 0026): a step whose `raw` is its span's attributes (the same object, as the
 * span importers make it) keeps only RAW_KEYS_ON_PAGE (an empty record when none: the key keeps its place), and its
 * span is marked `stepRaw` (its attributes are the step's whole raw). Changes the run's steps and spans in place (the
 * import worker's own objects, about to be handed over and stored); returns how many steps were split.
 */
export function splitStepRaw(run: Run): number {
  return stepRawSplitter(run)?.(0, run.steps.length) ?? 0;
}

/** How many spans from where the last step's was found are looked at before the map of span ids. */
const LOOK_AHEAD = 8;

/**
 * splitStepRaw in pieces: the steps in [from, to) split on each call (the hand-off splits each slice just before
 * posting it, so the page starts receiving at once: a whole 1M-step run took ~0.6 s). Undefined for a run without
 * spans.
 *
 * A step's span is looked for first just after the last one found: the span importers list a run's step spans in
 * its steps' order, so a whole run is split in one walk over both lists, without a map of 100k span ids (building it
 * and a lookup per step were ~40% of the split's time, a hash and a cache miss each). A step whose span is elsewhere
 * is looked up in that map, built then. Where a run repeats a span id (the span importers keep one span per id), the
 * span split is the step's own: the one whose attributes are the step's raw.
 */
export function stepRawSplitter(run: Run): ((from: number, to: number) => number) | undefined {
  const spans = run.spans;
  if (!spans || spans.length === 0) return undefined;
  let next = 0;
  let byId: Map<string, RunSpan> | undefined;
  const spanOf = (id: string, raw: unknown): RunSpan | undefined => {
    while (next < spans.length && spans[next].stepId === undefined) next++;
    // A few spans on (the plain spans under the last step come before the next step's own): a bounded look, so that a
    // run in another order costs a few comparisons a step more than the map alone, never a walk per step.
    const end = Math.min(spans.length, next + LOOK_AHEAD);
    for (let k = next; k < end; k++) {
      const candidate = spans[k];
      if (candidate.id === id && candidate.attributes === raw) {
        next = k + 1;
        return candidate;
      }
    }
    if (!byId) {
      byId = new Map();
      for (const span of spans) if (span.stepId !== undefined) byId.set(span.id, span);
    }
    return byId.get(id);
  };
  const steps = run.steps;
  return (from, to) => {
    let split = 0;
    for (let i = from; i < to && i < steps.length; i++) {
      const step = steps[i];
      const raw = step.raw;
      if (step.spanId === undefined || raw === undefined) continue;
      const span = spanOf(step.spanId, raw);
      if (span === undefined || span.attributes !== raw || span.stepRaw === true) continue;
      const kept: Record<string, unknown> = {};
      for (const key of RAW_KEYS_ON_PAGE) if (Object.hasOwn(raw, key)) kept[key] = raw[key];
      step.raw = kept;
      span.stepRaw = true;
      split++;
    }
    return split;
  };
}

/**
 * A step's whole raw, given its run's spans: the attributes of its span when that span keeps the step's raw
 * (splitStepRaw), else the step's own. Built once per span list.
 */
export function stepRawIndex(spans: readonly RunSpan[]): ReadonlyMap<string, Record<string, unknown>> {
  let index = rawIndexes.get(spans);
  if (!index) {
    index = new Map();
    for (const span of spans) if (span.stepRaw === true) index.set(span.id, span.attributes);
    rawIndexes.set(spans, index);
  }
  return index;
}

const rawIndexes = new WeakMap<readonly RunSpan[], Map<string, Record<string, unknown>>>();

/**
 * The inverse of splitStepRaw, on a run given its stored spans (an export): each split step gets its whole raw back
 * (its span's attributes, the same object, so compactRun writes it once as before) and no span keeps the mark. The
 * run is not changed; a new one is returned when anything was split.
 */
export function joinStepRaw(run: Run): Run {
  const spans = run.spans;
  if (!spans) return run;
  const rawOf = stepRawIndex(spans);
  if (rawOf.size === 0) return run;
  const steps = run.steps.map((step) => {
    const raw = step.spanId === undefined ? undefined : rawOf.get(step.spanId);
    return raw === undefined ? step : { ...step, raw };
  });
  const unmarked = spans.map((span) => {
    if (span.stepRaw !== true) return span;
    const { stepRaw: _mark, ...rest } = span;
    return rest;
  });
  return { ...run, steps, spans: unmarked };
}
