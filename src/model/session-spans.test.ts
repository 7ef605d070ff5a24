// splitStepRaw (ADR 0026): a step whose raw is its span's attributes keeps only the keys the page reads, and its span
// is marked. The split walks the spans in the steps' order and falls back to a map of span ids (issue 14): the result
// must be the map's, whatever the order of the spans.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactRun, RAW_KEYS_ON_PAGE, splitStepRaw, stepRawSplitter } from './session-spans.ts';
import type { Run, RunSpan, Step } from './types.ts';

/** The split as it was made before the walk: every step's span found in a map of the step spans' ids. */
function splitByMap(run: Run): number {
  const bySpanId = new Map<string, RunSpan>();
  for (const span of run.spans ?? []) if (span.stepId !== undefined) bySpanId.set(span.id, span);
  let split = 0;
  for (const step of run.steps) {
    const raw = step.raw;
    if (step.spanId === undefined || raw === undefined) continue;
    const span = bySpanId.get(step.spanId);
    if (span === undefined || span.attributes !== raw || span.stepRaw === true) continue;
    const kept: Record<string, unknown> = {};
    for (const key of RAW_KEYS_ON_PAGE) if (Object.hasOwn(raw, key)) kept[key] = raw[key];
    step.raw = kept;
    span.stepRaw = true;
    split++;
  }
  return split;
}

interface Shape {
  /** Per step: whether it has a span, whether its raw is that span's attributes, and plain spans under it. */
  steps: { spanned: boolean; sameRaw: boolean; plain: number; callId: boolean }[];
  /** Spans without a step, put at these places. */
  loose: number[];
  /** A permutation of the spans (sorted by these keys), or the steps' order. */
  order: number[] | undefined;
}

function runOf(shape: Shape): Run {
  const steps: Step[] = [];
  const spans: RunSpan[] = [];
  const span = (id: string, attributes: Record<string, unknown>, stepId?: string): RunSpan => ({ id, name: id, status: 'unset', attributes, events: [], stepId });
  shape.steps.forEach((s, i) => {
    const attributes: Record<string, unknown> = { 'gen_ai.operation.name': 'chat', n: i };
    if (s.callId) attributes['gen_ai.tool.call.id'] = `call_${i}`;
    const step: Step = { id: `s${i}`, index: i, kind: 'llm', agentId: 'a' };
    if (s.spanned) {
      step.spanId = `span${i}`;
      spans.push(span(step.spanId, attributes, step.id));
      step.raw = s.sameRaw ? attributes : { ...attributes };
    }
    for (let p = 0; p < s.plain; p++) spans.push(span(`plain${i}.${p}`, { p }, step.id));
    steps.push(step);
  });
  shape.loose.forEach((at, k) => spans.splice(Math.min(at, spans.length), 0, span(`loose${k}`, { k })));
  const ordered = shape.order ? spans.map((s, i) => ({ s, key: shape.order![i % shape.order!.length] * spans.length + i })).sort((a, b) => a.key - b.key).map((x) => x.s) : spans;
  return { id: 'r', title: 'r', source: 'native', agents: [{ id: 'a', name: 'a' }], steps, handoffs: [], spans: ordered } as unknown as Run;
}

const shapes = fc.record({
  steps: fc.array(fc.record({ spanned: fc.boolean(), sameRaw: fc.boolean(), plain: fc.nat({ max: 12 }), callId: fc.boolean() }), { maxLength: 60 }),
  loose: fc.array(fc.nat({ max: 200 }), { maxLength: 20 }),
  order: fc.option(fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 9 }), { nil: undefined }),
});

describe('splitStepRaw', () => {
  it('splits as a map of span ids would, in any order of the spans, in any slices', () => {
    fc.assert(
      fc.property(shapes, fc.array(fc.nat({ max: 70 }), { maxLength: 5 }), (shape, cuts) => {
        const expected = runOf(shape);
        const n = splitByMap(expected);
        const run = runOf(shape);
        const split = stepRawSplitter(run);
        let got = 0;
        let at = 0;
        for (const cut of [...cuts].sort((a, b) => a - b).concat(run.steps.length)) {
          got += split?.(at, Math.max(at, cut)) ?? 0;
          at = Math.max(at, cut);
        }
        expect(got).toBe(n);
        expect(run).toEqual(expected);
      }),
    );
  });

  it('keeps the page keys of a split step and marks its span; a step whose raw is not its span attributes stays whole', () => {
    const run = runOf({ steps: [{ spanned: true, sameRaw: true, plain: 2, callId: true }, { spanned: true, sameRaw: false, plain: 0, callId: false }], loose: [0], order: undefined });
    expect(splitStepRaw(run)).toBe(1);
    expect(run.steps[0].raw).toEqual({ 'gen_ai.tool.call.id': 'call_0' });
    expect(run.spans!.find((s) => s.id === 'span0')!.stepRaw).toBe(true);
    expect(run.steps[1].raw).toEqual({ 'gen_ai.operation.name': 'chat', n: 1 });
    expect(run.spans!.find((s) => s.id === 'span1')!.stepRaw).toBeUndefined();
    expect(splitStepRaw(run)).toBe(0);
  });
});

/** compactRun as it was: a map of every step's raw by span id, built for every run with spans, and a copy of the list. */
function compactByMap(run: Run): Run {
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

describe('compactRun', () => {
  it('compacts as the map of every step\'s raw did, before the hand-off\'s split, after it, or after part of it', () => {
    fc.assert(
      fc.property(shapes, fc.nat({ max: 60 }), (shape, splitUpTo) => {
        const run = runOf(shape);
        stepRawSplitter(run)?.(0, Math.min(splitUpTo, run.steps.length));
        const expected = compactByMap(run);
        const actual = compactRun(run);
        expect(actual).toEqual(expected);
        // The run itself is left as it was, and a run with nothing to compact is returned as is (no copy).
        expect(actual === run).toBe(expected === run);
      }),
      { numRuns: 300 },
    );
  });

  it('makes no map of the steps\' raws for a run whose step spans are all split (the import worker\'s write of a flat trace)', () => {
    // Every span a step's, or none's (a span under a step, `plain` here, may be a step's: the map is made for it).
    const run = runOf({ steps: Array.from({ length: 50 }, () => ({ spanned: true, sameRaw: true, plain: 0, callId: false })), loose: [3], order: undefined });
    splitStepRaw(run);
    // Steps whose raw is read would be read for the map: none may be.
    for (const step of run.steps) Object.defineProperty(step, 'raw', { get: () => { throw new Error('a step raw was read'); } });
    expect(compactRun(run)).toBe(run);
  });
});
