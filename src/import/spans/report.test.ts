// Issue 20: no span left behind. Every span read is a step, an agent run, a plain span kept in the run, or dropped
// with a reason in the import report — over the real OTLP and span-tree traces and over generated ones.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTraceCounts, AGENT_NAME, generateAgentTrace, type AgentConvention } from '../../../bench/gen-agent-otlp.ts';
import { exportOtlp } from '../../export/otlp.ts';
import { sumSpanReports, unaccounted } from '../../model/span-report.ts';
import { summarizeRun } from '../../model/summary.ts';
import type { Run } from '../../model/types.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON, importShared, sharedFiles } from '../../testing/fixture-kit.ts';
import { importText } from '../index.ts';

/** Every span of a run, checked: tree order, a kind on each, steps pointing back at their spans. */
function checkRun(run: Run): void {
  const report = run.spanReport!;
  expect(report, run.id).toBeDefined();
  expect(unaccounted(report), run.id).toBe(0);
  const dropped = report.dropped.reduce((n, d) => n + d.count, 0);
  expect(run.spans!.length).toBe(report.read - dropped);
  const ids = new Set(run.spans!.map((s) => s.id));
  expect(ids.size).toBe(run.spans!.length);
  const stepIds = new Set(run.steps.map((s) => s.id));
  for (const span of run.spans!) {
    expect(span.kind).toBeDefined();
    if (span.stepId !== undefined) expect(stepIds.has(span.stepId), `${span.id} → ${span.stepId}`).toBe(true);
  }
  for (const step of run.steps) if (step.spanId !== undefined) expect(ids.has(step.spanId)).toBe(true);
}

/** Spans in an OTLP document or a nested span tree, counted from the JSON itself (not by the importer). */
function countSpans(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countSpans(v), 0);
  if (typeof value !== 'object' || value === null) return 0;
  const o = value as Record<string, unknown>;
  let n = 0;
  for (const rs of (o.resourceSpans as Array<{ scopeSpans: Array<{ spans: unknown[] }> }>) ?? []) for (const ss of rs.scopeSpans ?? []) n += ss.spans?.length ?? 0;
  const tree = (spans: unknown): number =>
    Array.isArray(spans) ? spans.reduce((m: number, s: { child_spans?: unknown }) => m + 1 + tree(s.child_spans), 0) : 0;
  if (!o.resourceSpans) n += tree(o.spans);
  return n;
}

describe('the agent-shaped trace (custom attributes and GenAI conventions)', () => {
  for (const convention of ['custom', 'genai'] as AgentConvention[]) {
    it(`keeps all 10,000 spans, names the agent and finds one tool call per tool span (${convention})`, () => {
      const counts = agentTraceCounts(1000);
      const file = importText('agent.otlp.json', JSON.stringify(generateAgentTrace(1000, convention)));
      expect(file.runs).toHaveLength(1);
      const run = file.runs[0];
      checkRun(run);
      expect(run.spans).toHaveLength(counts.spans);
      expect(run.agents.map((a) => a.name)).toEqual([AGENT_NAME]);
      expect(run.steps.filter((s) => s.kind === 'tool')).toHaveLength(counts.toolCalls);
      expect(run.steps.filter((s) => s.kind === 'llm')).toHaveLength(counts.modelCalls);
      const report = run.spanReport!;
      expect(report).toMatchObject({ read: 10_000, agents: 1, modelCalls: 1000, toolCalls: 1000, plain: 7999, dropped: [] });
      expect(report.agentRules[0]).toEqual({ name: AGENT_NAME, rule: convention === 'genai' ? 'gen_ai.agent.name' : 'agent.name' });
      expect(report.toolRules.map((r) => r.rule)).toEqual(Array(3).fill(convention === 'genai' ? 'gen_ai.tool.name' : 'tool.name'));
      // The HTTP, database and cache spans belong to the step above them; their errors and events are kept.
      const failed = run.spans!.filter((s) => s.status === 'error');
      expect(failed.length).toBeGreaterThan(0);
      for (const s of failed) {
        expect(s.kind).toBe('span');
        expect(run.steps.find((st) => st.id === s.stepId)?.kind).toBe('tool');
        expect(s.events[0].name).toBe('exception');
      }
      expect(run.spans!.filter((s) => s.kind === 'span' && s.attributes['db.system'] === 'redis' && s.stepId === undefined)).toHaveLength(0);
      // Tool steps read their name and arguments from either convention.
      const tool = run.steps.find((s) => s.kind === 'tool')!;
      expect(tool.toolCalls![0]).toEqual({ name: 'web_search', arguments: '{"query":"quarterly report 0"}' });
    });
  }

  it('comes back from the OTLP export with every span', () => {
    const run = importText('agent.otlp.json', JSON.stringify(generateAgentTrace(50, 'custom'))).runs[0];
    const again = importText('again.otlp.json', exportOtlp([run])).runs[0];
    checkRun(again);
    // The export adds the run's own root span; everything else comes back as it was.
    expect(again.spans).toHaveLength(run.spans!.length + 1);
    expect(again.steps.filter((s) => s.kind === 'tool')).toHaveLength(50);
    expect(again.steps.filter((s) => s.kind === 'llm')).toHaveLength(50);
    expect(again.agents.map((a) => a.name)).toEqual([AGENT_NAME]);
    const plain = (r: Run) => r.spans!.filter((s) => s.kind === 'span').map((s) => `${s.name} ${s.status} ${JSON.stringify(s.attributes)}`).sort();
    expect(plain(again).filter((s) => !s.includes('mas_replay.run.id'))).toEqual(plain(run));
  });
});

describe.skipIf(!HAVE_SHARED)('every span of the real traces is accounted for', () => {
  if (!HAVE_SHARED) it.skip(SKIP_REASON, () => {});
  const files = [...sharedFiles('otlp'), ...sharedFiles('trail/gaia'), ...sharedFiles('trail/swe')];
  it('finds the OTLP and span-tree files', () => expect(files.length).toBeGreaterThanOrEqual(11));
  for (const path of files) {
    it(path.slice(SHARED_TRACES.length + 1), () => {
      const file = importShared(path);
      for (const run of file.runs) checkRun(run);
      const total = sumSpanReports(file.runs.map((r) => r.spanReport))!;
      expect(total.read).toBe(countSpans(JSON.parse(readFileSync(path, 'utf8'))));
      expect(unaccounted(total)).toBe(0);
    });
  }

  it('counts the tokens of a wrapped model call once (quo_tav_agent: 66,537 before, each call once now)', () => {
    const run = importShared(join(SHARED_TRACES, 'otlp/quo_tav_agent.json')).runs[0];
    // LangChain's ChatOpenAI spans each hold one OpenAI ChatCompletion span of the same call: 6 LLM spans, 3 calls.
    expect(run.spans!.filter((s) => s.kind === 'model')).toHaveLength(6);
    const calls = run.steps.filter((s) => s.kind === 'llm');
    expect(calls.map((s) => s.name)).toEqual(['ChatOpenAI', 'ChatOpenAI', 'ChatOpenAI']);
    expect(calls.every((s) => s.mergedSpanIds?.length === 1)).toBe(true);
    expect(run.spanReport!.mergedModelCalls).toBe(3);
    const total = summarizeRun(run).tokens.total;
    expect(total).toBeLessThan(66_537 / 2 + 1000);
    expect(total).toBe(33_604);
  });
});

describe('no importer loses a span (generated forests)', () => {
  const attrPool = [
    {},
    { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 5, 'llm.token_count.completion': 2 },
    { 'openinference.span.kind': 'TOOL', 'tool.name': 't' },
    { 'openinference.span.kind': 'AGENT', 'agent.name': 'a' },
    { 'openinference.span.kind': 'CHAIN' },
    { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'g' },
    { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'x' },
    { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 3, 'gen_ai.usage.output_tokens': 1 },
    { 'agent.name': 'c' },
    { agent_name: 'd' },
    { 'tool.name': 'e', 'tool.args': '{}' },
    { 'http.request.method': 'GET' },
  ];
  const spanArb = fc.record({
    id: fc.integer({ min: 1, max: 40 }),
    parent: fc.option(fc.integer({ min: 1, max: 45 }), { nil: undefined }),
    trace: fc.integer({ min: 1, max: 2 }),
    attrs: fc.integer({ min: 0, max: attrPool.length - 1 }),
    start: fc.integer({ min: 0, max: 50 }),
    length: fc.integer({ min: 0, max: 20 }),
    // Per-span defects (OTLP only): each is dropped with a reason or kept with a note, never the whole file.
    defect: fc.constantFrom(...(['none', 'none', 'none', 'none', 'noTrace', 'emptyTrace', 'zeroTrace', 'noSpanId', 'badTime', 'badAttrs', 'badEvents', 'notObject'] as const)),
  });
  const NO_RUN_DEFECTS = new Set(['noTrace', 'emptyTrace', 'zeroTrace', 'notObject']);
  it('spans in = mapped + kept + dropped with a reason', () => {
    fc.assert(
      fc.property(fc.array(spanArb, { minLength: 1, maxLength: 40 }), fc.boolean(), (specs, nested) => {
        const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
        let text: string;
        if (nested) {
          // The span-tree format: one document, children nested under their parents (a flat list when no parent fits).
          text = JSON.stringify({ trace_id: 't1', spans: specs.map((s) => ({ span_id: hex(s.id, 16), span_name: `s${s.id}`, span_attributes: attrPool[s.attrs], child_spans: [] })) });
        } else {
          const spans = specs.map((s) => {
            const attributes = Object.entries(attrPool[s.attrs]).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } }));
            if (s.defect === 'notObject') return 'not a span';
            const span: Record<string, unknown> = {
              traceId: hex(s.trace, 32),
              spanId: hex(s.id, 16),
              ...(s.parent !== undefined ? { parentSpanId: hex(s.parent, 16) } : {}),
              name: `s${s.id}`,
              startTimeUnixNano: String((1_700_000_000_000 + s.start) * 1e6),
              endTimeUnixNano: String((1_700_000_000_000 + s.start + s.length) * 1e6),
              attributes,
            };
            if (s.defect === 'noTrace') delete span.traceId;
            if (s.defect === 'emptyTrace') span.traceId = '';
            if (s.defect === 'zeroTrace') span.traceId = '0'.repeat(32);
            if (s.defect === 'noSpanId') delete span.spanId;
            if (s.defect === 'badTime') span.startTimeUnixNano = 'soon';
            if (s.defect === 'badAttrs') span.attributes = [{ value: 1 }];
            if (s.defect === 'badEvents') span.events = { not: 'a list' };
            return span;
          });
          text = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
        }
        const file = importText(nested ? 'x.span-tree.json' : 'x.otlp.json', text);
        for (const run of file.runs) checkRun(run);
        if (!nested && specs.every((s) => NO_RUN_DEFECTS.has(s.defect))) {
          // No span names a trace: no run to hold them, and the warning counts them.
          expect(file.runs).toEqual([]);
          expect(file.warnings.join('\n')).toMatch(/no span could be read/);
          return;
        }
        const total = sumSpanReports(file.runs.map((r) => r.spanReport))!;
        expect(total.read).toBe(specs.length);
        expect(unaccounted(total)).toBe(0);
        if (!nested) {
          const expected = new Map<string, number>();
          const reasons = { noTrace: 'no trace id', emptyTrace: 'no trace id', zeroTrace: 'no trace id', noSpanId: 'no span id', notObject: 'not a span object' } as const;
          for (const s of specs) if (s.defect in reasons) expected.set(reasons[s.defect as keyof typeof reasons], (expected.get(reasons[s.defect as keyof typeof reasons]) ?? 0) + 1);
          const got = new Map<string, number>();
          for (const d of total.dropped) if (!d.reason.startsWith('repeated')) got.set(d.reason, d.count);
          expect(got).toEqual(expected);
        }
      }),
      { numRuns: 200 },
    );
  });
});
