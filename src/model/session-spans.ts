// Run.spans in a session file (issue 20): a span that is a step has its attributes written once, as the step's raw.
import type { Run } from './types.ts';

/**
 * A run as written: a span that is a step carries its attributes once, as the step's `raw` (the same object in
 * memory); its Run.spans entry points at the step instead (`attributesOf: 'step'`). The run itself is not changed.
 */
export function compactRun(run: Run): Run {
  const spans = run.spans;
  if (!spans || spans.length === 0) return run;
  const rawOf = new Map<string, unknown>();
  for (const step of run.steps) if (step.spanId !== undefined && step.raw !== undefined) rawOf.set(step.spanId, step.raw);
  if (rawOf.size === 0) return run;
  let changed = false;
  const out = spans.map((span) => {
    if (span.stepId === undefined || rawOf.get(span.id) !== span.attributes || Object.keys(span.attributes).length === 0) return span;
    changed = true;
    return { ...span, attributes: {}, attributesOf: 'step' as const };
  });
  return changed ? { ...run, spans: out } : run;
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
