// The live pipeline against the file importer (issue 19): whatever order, split, repetition or lateness the spans of
// a run come in, the run the page ends up with, built from the first whole run and the patches after it, is the run
// that importing the same spans as one OTLP file gives (with the supervisor's LLM-free decisions on it); and after
// the first update of a trace the page receives changes, never the whole run again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterParams, PRESETS, shadowReplay } from '../engine/supervisor/index.ts';
import { importFromOtlp } from '../import/formats/otlp.ts';
import { applyRunPatch } from '../import/live-otlp.ts';
import type { Run } from '../model/types.ts';
import { LiveOtlpPipeline, type LiveUpdate } from './live-otlp-pipeline.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const params = filterParams({ ...PRESETS.gaia, tauStep: 3, tauLoop: 2 });

function kv(key: string, value: string | number) {
  return { key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } };
}
const hex = (n: number) => n.toString(16).padStart(16, '0');

interface Shape {
  steps: Array<{ tool: boolean; error: boolean; sameCall: boolean; longObservation: boolean }>;
  managed: boolean;
}

/** An OpenInference smolagents run: the root agent, `Step N` spans each with a model call and maybe a tool call. */
function spansOf(shape: Shape): object[] {
  let at = 0;
  let id = 1;
  const span = (parent: string | undefined, name: string, attrs: Record<string, string | number>, extra: object = {}) => {
    const spanId = hex(id++);
    at += 10;
    return {
      traceId: TRACE,
      spanId,
      ...(parent ? { parentSpanId: parent } : {}),
      name,
      startTimeUnixNano: String(1_700_000_000_000_000_000 + at * 1_000_000),
      endTimeUnixNano: String(1_700_000_000_000_000_000 + (at + 5) * 1_000_000),
      attributes: Object.entries(attrs).map(([k, v]) => kv(k, v)),
      ...extra,
    };
  };
  const root = span(undefined, 'CodeAgent.run', { 'openinference.span.kind': 'AGENT', 'input.value': '{"task": "Find the capital of France."}', 'output.value': 'Paris' });
  const out: object[] = [root];
  const rootId = (root as { spanId: string }).spanId;
  shape.steps.forEach((s, i) => {
    const step = span(rootId, `Step ${i + 1}`, { 'openinference.span.kind': 'CHAIN', 'output.value': s.longObservation ? 'x'.repeat(4000) : `Observation ${i}` }, s.error ? { status: { code: 2, message: 'ValueError: boom' } } : {});
    const stepId = (step as { spanId: string }).spanId;
    out.push(step);
    out.push(span(stepId, 'LiteLLMModel.__call__', { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 100 + i, 'llm.token_count.completion': 7, 'llm.output_messages.0.message.content': `Thought: ${i}` }));
    if (s.tool) out.push(span(stepId, 'web_search', { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search', 'input.value': s.sameCall ? '{"q": "same"}' : `{"q": "${i}"}`, 'output.value': `result ${i}` }));
    if (shape.managed && i === 0) {
      const agent = span(stepId, 'ToolCallingAgent.run', { 'openinference.span.kind': 'AGENT', 'input.value': "{\"task\": \"You're a helpful agent named 'search_agent'.\"}" });
      out.push(agent);
      const inner = span((agent as { spanId: string }).spanId, 'Step 1', { 'openinference.span.kind': 'CHAIN', 'output.value': '<summary_of_work>done</summary_of_work>' });
      out.push(inner);
    }
  });
  return out;
}

const doc = (spans: object[]) => ({ resourceSpans: [{ resource: { attributes: [kv('service.name', 'demo')] }, scopeSpans: [{ scope: { name: 'openinference.instrumentation.smolagents' }, spans }] }] });

/** A run as compared: structured-cloned like a worker's message, without each span's arrival position (`order`). */
function comparable(run: Run): unknown {
  const copy = structuredClone(run);
  for (const s of copy.spans ?? []) delete (s as { order?: number }).order;
  return copy;
}

async function fileRun(spans: object[]): Promise<Run> {
  const run = importFromOtlp({ kind: 'json', value: doc(spans), text: '' }).runs[0];
  const result = await shadowReplay(run, { params, countTokens: (t) => Math.ceil(t.length / 4) });
  return { ...run, interventions: [...run.interventions, ...result.interventions] };
}

/** What the page holds after these updates (it starts from nothing, as after a reload). */
function pageApply(held: Map<string, { run: Run; rev: number }>, updates: LiveUpdate[]): void {
  for (const u of structuredClone(updates)) {
    const base = held.get(u.traceId);
    if (u.full) held.set(u.traceId, { run: u.full, rev: u.rev });
    else {
      expect(base?.rev).toBe(u.rev - 1);
      held.set(u.traceId, { run: applyRunPatch(base!.run, u.patch!), rev: u.rev });
    }
  }
}

const shapeArb: fc.Arbitrary<Shape> = fc.record({
  steps: fc.array(fc.record({ tool: fc.boolean(), error: fc.boolean(), sameCall: fc.boolean(), longObservation: fc.boolean() }), { minLength: 1, maxLength: 8 }),
  managed: fc.boolean(),
});

describe('LiveOtlpPipeline', () => {
  it('ends with the file import’s run for any arrival order, split, duplicates and late parents', async () => {
    await fc.assert(
      fc.asyncProperty(
        shapeArb.chain((shape) => {
          const spans = spansOf(shape);
          return fc.record({
            spans: fc.constant(spans),
            // Arrival: a permutation of the spans with some sent again (an exporter's retry).
            arrival: fc.shuffledSubarray(spans.map((_, i) => i), { minLength: spans.length, maxLength: spans.length }),
            repeats: fc.array(fc.nat(spans.length - 1), { maxLength: 4 }),
            cuts: fc.array(fc.nat(spans.length + 4), { maxLength: 6 }),
            rounds: fc.array(fc.boolean(), { minLength: spans.length + 4, maxLength: spans.length + 4 }),
          });
        }),
        async ({ spans, arrival, repeats, cuts, rounds }) => {
          const order = [...arrival];
          for (const r of repeats) order.splice(Math.min(order.length, r + 1), 0, r);
          const pipeline = new LiveOtlpPipeline({ params }, 60_000);
          const held = new Map<string, { run: Run; rev: number }>();
          let batch: object[] = [];
          for (let i = 0; i < order.length; i++) {
            batch.push(spans[order[i]]);
            if (cuts.includes(i) || i === order.length - 1) {
              pipeline.add(doc(batch), 1000 + i);
              batch = [];
              if (rounds[i] || i === order.length - 1) pageApply(held, await pipeline.round(1000 + i));
            }
          }
          const want = await fileRun(spans);
          expect(comparable(held.get(TRACE)!.run)).toEqual(comparable(want));
        },
      ),
      { numRuns: 60, seed: 19 },
    );
  });

  it('sends the whole run once, then only what changed (a new step: its rows and spans)', async () => {
    const spans = spansOf({ steps: Array.from({ length: 40 }, (_, i) => ({ tool: true, error: i === 7, sameCall: false, longObservation: false })), managed: false });
    const pipeline = new LiveOtlpPipeline({ params }, 60_000);
    const held = new Map<string, { run: Run; rev: number }>();
    // Spans come as a live exporter sends them: each step's children, then the step; the root last.
    const [root, ...rest] = spans;
    const perStep: object[][] = [];
    for (const s of rest) {
      if ((s as { name: string }).name.startsWith('Step ')) perStep.push([s]);
      else perStep[perStep.length - 1].push(s);
    }
    const sizes: number[] = [];
    for (const [step, ...children] of perStep) {
      pipeline.add(doc([...children, step]));
      const updates = await pipeline.round();
      expect(updates).toHaveLength(1);
      if (held.size > 0) {
        expect(updates[0].full).toBeUndefined();
        const p = updates[0].patch!;
        sizes.push(JSON.stringify(p).length);
        expect(p.lists.steps.items.length).toBeLessThanOrEqual(3); // the step and the rows of its calls
        expect(p.lists.spans.items.length).toBeLessThanOrEqual(3);
      }
      pageApply(held, updates);
    }
    pipeline.add(doc([root]));
    pageApply(held, await pipeline.round());
    expect(comparable(held.get(TRACE)!.run)).toEqual(comparable(await fileRun([root, ...rest])));
    // The patch for step 40 is no bigger than the one for step 2: what the page receives does not grow with the run.
    expect(sizes[sizes.length - 1]).toBeLessThan(2 * sizes[0]);
    expect(held.get(TRACE)!.rev).toBe(perStep.length + 1);
  });

  it('marks a quiet trace done with an empty change, and sends the whole run again after a resync', async () => {
    const spans = spansOf({ steps: [{ tool: true, error: false, sameCall: false, longObservation: false }], managed: false });
    const pipeline = new LiveOtlpPipeline({ params }, 1000);
    pipeline.add(doc(spans.slice(1)), 0);
    const [first] = await pipeline.round(0);
    expect(first.done).toBe(false);
    expect(pipeline.quiet(500)).toEqual([]);
    const [quiet] = pipeline.quiet(1500);
    expect(quiet).toMatchObject({ rev: 2, done: true, patch: { unset: [] } });
    pipeline.resync(TRACE);
    const [again] = await pipeline.round(1600);
    expect(again.full?.id).toBe(TRACE);
    expect(again.rev).toBe(1);
  });
});
