// Live OTLP traces: the same run as the file importer gives, whatever order, repetition or split the spans come in.
import { describe, expect, it } from 'vitest';
import { importFromOtlp, type OtlpSpanCache } from './formats/otlp.ts';
import { applyRunPatch, diffRun, LiveTraces, type AddedSpan } from './live-otlp.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

function kv(key: string, value: string | number) {
  return { key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } };
}

function span(id: string, parent: string | undefined, name: string, at: number, attrs: Record<string, string | number>, extra: object = {}) {
  return {
    traceId: TRACE,
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    startTimeUnixNano: String(1_700_000_000_000_000_000 + at * 1_000_000),
    endTimeUnixNano: String(1_700_000_000_000_000_000 + (at + 1) * 1_000_000),
    attributes: Object.entries(attrs).map(([k, v]) => kv(k, v)),
    ...extra,
  };
}

const ROOT = span('00000000000000a0', undefined, 'CodeAgent.run', 0, { 'openinference.span.kind': 'AGENT', 'input.value': '{"task": "Find the capital of France."}', 'output.value': 'Paris' });
const STEP1 = span('00000000000000a2', '00000000000000a0', 'Step 1', 2, { 'openinference.span.kind': 'CHAIN', 'output.value': 'Observation: Paris' });
const LLM1 = span('00000000000000a3', '00000000000000a2', 'LiteLLMModel.__call__', 3, { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 20, 'llm.token_count.completion': 7 });
const STEP2 = span('00000000000000a4', '00000000000000a0', 'Step 2', 5, { 'openinference.span.kind': 'CHAIN', 'output.value': 'done' }, { status: { code: 2, message: 'ValueError: boom' } });

const doc = (spans: object[]) => ({ resourceSpans: [{ resource: { attributes: [kv('service.name', 'demo')] }, scopeSpans: [{ scope: { name: 'openinference.instrumentation.smolagents' }, spans }] }] });

describe('LiveTraces', () => {
  it('gives the file importer’s run for spans sent one by one, out of order, twice, children before parents', () => {
    const whole = importFromOtlp({ kind: 'json', value: doc([ROOT, STEP1, LLM1, STEP2]), text: '' }).runs[0];
    const live = new LiveTraces();
    expect([...live.add(doc([LLM1]), 1)]).toEqual([TRACE]); // the child first: its step arrives later
    expect(live.importTrace(TRACE).run!.steps.length).toBeGreaterThan(0);
    live.add(doc([STEP2]), 2);
    live.add(doc([LLM1, STEP1]), 3); // a retried export repeats LLM1
    expect(live.isDone(TRACE, 3, 10_000)).toBe(false);
    live.add(doc([ROOT]), 4);
    expect(live.spanCount(TRACE)).toBe(4);
    expect(live.totalSpans).toBe(4);
    expect(live.isDone(TRACE, 4, 10_000)).toBe(true); // the root span arrived
    const run = live.importTrace(TRACE).run!;
    expect(run.id).toBe(TRACE);
    expect(run.steps.map((s) => [s.kind, s.spanId])).toEqual(whole.steps.map((s) => [s.kind, s.spanId]));
    expect(run.steps.map((s) => s.spanId).sort()).toEqual(whole.steps.map((s) => s.spanId).sort());
    expect(run.agents).toEqual(whole.agents);
  });

  it('marks a trace done after a quiet time, and continues from stored spans after a reload (in arrival order)', () => {
    const live = new LiveTraces();
    const stored: AddedSpan[] = [];
    live.add(doc([STEP1, LLM1]), 1000, stored);
    expect(stored.map((s) => [s.spanId, s.order])).toEqual([['00000000000000a2', 0], ['00000000000000a3', 1]]);
    expect(live.isDone(TRACE, 5000, 10_000)).toBe(false);
    expect(live.isDone(TRACE, 11_000, 10_000)).toBe(true);
    const after = new LiveTraces();
    for (const s of [...stored].reverse()) after.keep(TRACE, s.spanId, s, 1000);
    after.add(doc([STEP2, ROOT]), 2000);
    expect(after.doc(TRACE).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((ss) => ss.spans.map((x) => x.spanId)))).toEqual(['00000000000000a2', '00000000000000a3', '00000000000000a4', '00000000000000a0']);
    expect(after.spanCount(TRACE)).toBe(4);
    expect(after.importTrace(TRACE).run!.steps.some((s) => s.spanId === '00000000000000a2')).toBe(true);
  });

  it('keeps several traces apart and ignores spans without ids', () => {
    const live = new LiveTraces();
    const other = { ...STEP1, traceId: 'ffffffffffffffffffffffffffffffff' };
    const changed = live.add({ resourceSpans: [{ scopeSpans: [{ spans: [STEP1, other, { name: 'no ids' }] }] }] });
    expect([...changed].sort()).toEqual([TRACE, 'ffffffffffffffffffffffffffffffff']);
    expect(live.spanCount(TRACE)).toBe(1);
    expect(live.add('nonsense').size).toBe(0);
  });
});

describe('diffRun / applyRunPatch', () => {
  it('carries only the changed tail of each list, and the patch rebuilds the new run', () => {
    const live = new LiveTraces();
    live.add(doc([STEP1, LLM1]), 1);
    const before = live.importTrace(TRACE).run!;
    live.add(doc([STEP2]), 2);
    const after = live.importTrace(TRACE).run!;
    const patch = diffRun(before, after);
    expect(patch.lists.steps.from).toBe(before.steps.length);
    expect(patch.lists.steps.items).toHaveLength(1);
    expect(applyRunPatch(before, patch)).toEqual(after);
    expect(applyRunPatch(after, diffRun(after, before))).toEqual(before);
    expect(Object.keys(diffRun(after, after).lists)).toEqual([]);
  });
});

describe('importFromOtlp with a span cache (what LiveTraces passes)', () => {
  it('gives the same runs and warnings as without, on every import, and reads each span once', () => {
    const BAD = { ...STEP2, spanId: '00000000000000a5', attributes: 'not a list' };
    const value = doc([ROOT, STEP1, LLM1, STEP2, BAD]);
    const plain = importFromOtlp({ kind: 'json', value, text: '' });
    const cache: OtlpSpanCache = new WeakMap();
    const first = importFromOtlp({ kind: 'json', value, text: '' }, cache);
    const second = importFromOtlp({ kind: 'json', value, text: '' }, cache);
    expect(first).toEqual(plain);
    expect(second).toEqual(plain);
    expect(second.warnings.some((w) => w.includes('attributes unreadable'))).toBe(true);
    // Read once: the second import shares the first one's attribute objects.
    expect(second.runs[0].steps.find((s) => s.spanId === '00000000000000a2')!.raw).toBe(first.runs[0].steps.find((s) => s.spanId === '00000000000000a2')!.raw);
  });
});
