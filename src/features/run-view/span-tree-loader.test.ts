import { describe, expect, it } from 'vitest';
import { generateAgentTrace } from '../../../bench/gen-agent-otlp.ts';
import { importText } from '../../import/index.ts';
import type { RunSpan } from '../../model/types.ts';
import { ownSpanAt, spanIndex, spansOfStep, stepRawOf } from './span-tree-loader.ts';

const run = importText('agent.otlp.json', JSON.stringify(generateAgentTrace(20, 'custom'))).runs[0];

describe('spanIndex', () => {
  it('lists each step’s spans in tree order and marks the spans with children, as a pass over the spans would', () => {
    const spans = structuredClone(run.spans!);
    const index = spanIndex(spans);
    expect(spanIndex(spans)).toBe(index);
    const byStep = new Map<string, number[]>();
    spans.forEach((span, i) => {
      if (span.stepId !== undefined) byStep.set(span.stepId, [...(byStep.get(span.stepId) ?? []), i]);
    });
    expect(index.byStep).toEqual(byStep);
    const parents = spans.map((span, i) => (i + 1 < spans.length && (spans[i + 1].depth ?? 0) > (span.depth ?? 0) ? 1 : 0));
    expect(Array.from(index.parents.subarray(0, spans.length))).toEqual(parents);
    expect(parents).toContain(1);
    const step = run.steps.find((s) => (byStep.get(s.id)?.length ?? 0) > 1)!;
    expect(spansOfStep(spans, step.id)).toEqual(byStep.get(step.id)!.map((i) => spans[i]));
    expect(spansOfStep(spans, 'no such step')).toEqual([]);
  });
});

describe('ownSpanAt and stepRawOf', () => {
  it('find a step’s own span among its spans, and through every span when that span names another step', () => {
    const spans = run.spans!;
    for (const step of run.steps) {
      if (step.spanId === undefined) continue;
      expect(spans[ownSpanAt(spans, step)!].id).toBe(step.spanId);
    }
    expect(ownSpanAt(spans, { id: run.steps[0].id, spanId: undefined })).toBeUndefined();
    // A span that made two steps names the second: the first still finds it.
    const other: RunSpan[] = spans.map((span, i) => (i === 5 ? { ...span, stepId: 'another step' } : span));
    expect(ownSpanAt(other, { id: 'a step', spanId: spans[5].id })).toBe(5);
    expect(ownSpanAt(other, { id: 'a step', spanId: 'no such span' })).toBeUndefined();
  });

  it('stepRawOf gives the attributes of a step span that keeps its step’s raw, else nothing', () => {
    const step = run.steps.find((s) => s.spanId !== undefined)!;
    const at = ownSpanAt(run.spans!, step)!;
    const raw = { 'gen_ai.tool.call.id': 'call-1', whole: true };
    const kept: RunSpan[] = run.spans!.map((span, i) => (i === at ? { ...span, attributes: raw, stepRaw: true as const } : span));
    expect(stepRawOf(kept, step)).toBe(raw);
    expect(stepRawOf(run.spans!, step)).toBeUndefined();
  });
});
