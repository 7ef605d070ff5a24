import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../model/summary.ts';
import { checkFixture, HAVE_SHARED, SHARED_TRACES, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { importText } from '../index.ts';
import { decimalNumber, normaliseId } from './otlp.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
const FIXTURES = sharedFiles('otlp');

type AnyValue = { stringValue?: string; intValue?: string | number };
interface RawSpan {
  traceId: string;
  spanId: string;
  attributes: Array<{ key: string; value: AnyValue }>;
}

function rawSpans(path: string): RawSpan[] {
  const docs = JSON.parse(readFileSync(path, 'utf8')) as Array<{ resourceSpans: Array<{ scopeSpans: Array<{ spans: RawSpan[] }> }> }>;
  return docs.flatMap((d) => d.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
}

describe.skipIf(!HAVE_SHARED)(`OTLP/JSON traces (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('finds the two fixtures', () => {
    expect(FIXTURES).toHaveLength(2);
  });

  for (const path of FIXTURES) {
    const name = path.slice(SHARED_TRACES.length + 1);
    it(`imports ${name}`, async () => {
      const imported = await checkFixture(path, 'otlp', DUMPS);
      const spans = rawSpans(path);
      const traceIds = new Set(spans.map((s) => normaliseId(s.traceId, 16)));
      expect(imported.runs.map((r) => r.id)).toEqual([...traceIds]);
      const run = imported.runs[0];
      expect(run.id).toMatch(/^[0-9a-f]{32}$/);
      const kind = (s: RawSpan) => s.attributes.find((a) => a.key === 'openinference.span.kind')?.value.stringValue;
      const modelCalls = spans.filter((s) => kind(s) === 'LLM').length;
      const toolCalls = spans.filter((s) => kind(s) === 'TOOL' || kind(s) === 'RETRIEVER').length;
      // Every LLM span is a model call; a provider span inside a framework wrapper is merged into it (counted once).
      expect(run.spans!.filter((s) => s.kind === 'model')).toHaveLength(modelCalls);
      expect(run.steps.filter((s) => s.kind === 'llm')).toHaveLength(modelCalls - run.spanReport!.mergedModelCalls);
      expect(run.steps.filter((s) => s.kind === 'tool')).toHaveLength(toolCalls);
      for (const step of run.steps) {
        expect(step.spanId).toMatch(/^[0-9a-f]{16}$/);
        expect(step.id).toBe(`span-${step.spanId}`);
      }
      // Recorded token counts are summed as recorded; only calls that recorded none are estimated.
      const recorded = spans
        .filter((s) => kind(s) === 'LLM')
        .map((s) => s.attributes.find((a) => a.key === 'llm.token_count.total')?.value.intValue)
        .filter((v) => v !== undefined)
        .map(Number);
      const estimated = run.steps.filter((s) => s.usage?.estimated).length;
      expect(estimated + recorded.length).toBe(modelCalls - run.spanReport!.mergedModelCalls);
      if (estimated === 0) expect(summarizeRun(run).tokens.total).toBe(recorded.reduce((a, b) => a + b, 0));
    });
  }

  it('reads the LangChain agent as one agent with its task and answer', () => {
    const run = importText('unknown', readFileSync(join(SHARED_TRACES, 'otlp/quo_tav_agent.json'), 'utf8')).runs[0];
    expect(run.agents.map((a) => a.name)).toEqual(['AgentExecutor']);
    expect(run.title).toBe('What are the latest AI trends in 2024?');
    expect(run.outcome.finalAnswer).toMatch(/^In 2024, several key trends/);
    expect(run.framework).toBe('langchain+openai');
  });
});

// A small smolagents run written the way OTLP exporters vary: snake_case keys, hex ids, int values as numbers and
// strings, double-typed token counts, status codes as numbers, a managed agent wrapped in a TOOL span.
function attr(key: string, value: unknown): object {
  if (typeof value === 'number') return { key, value: Number.isInteger(value) ? { int_value: String(value) } : { double_value: value } };
  return { key, value: { string_value: String(value) } };
}

function span(id: string, parent: string | undefined, name: string, start: number, attrs: Record<string, unknown>, extra: object = {}): object {
  return {
    trace_id: '0af7651916cd43dd8448eb211c80319c',
    span_id: id,
    ...(parent ? { parent_span_id: parent } : {}),
    name,
    start_time_unix_nano: String(1_700_000_000_000_000_000 + start * 1_000_000),
    end_time_unix_nano: String(1_700_000_000_000_000_000 + (start + 1) * 1_000_000),
    attributes: Object.entries(attrs).map(([k, v]) => attr(k, v)),
    ...extra,
  };
}

const SMOL = [
  span('00000000000000a0', undefined, 'CodeAgent.run', 0, { 'openinference.span.kind': 'AGENT', 'input.value': JSON.stringify({ task: 'Find the capital of France.' }), 'output.value': 'Paris', 'llm.token_count.total': 999 }),
  span('00000000000000a1', '00000000000000a0', 'LiteLLMModel.__call__', 1, { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 10, 'llm.token_count.completion': 5, 'llm.token_count.total': 15, 'llm.output_messages.0.message.content': 'Plan: ask the searcher', 'llm.model_name': 'm1' }),
  span('00000000000000a2', '00000000000000a0', 'Step 1', 2, { 'openinference.span.kind': 'CHAIN', 'output.value': 'Observation: Paris' }),
  span('00000000000000a3', '00000000000000a2', 'LiteLLMModel.__call__', 3, { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 20.0, 'llm.token_count.completion': '7', 'llm.output_messages.0.message.content': 'Code:\n```py\nsearcher(task="capital")\n```', 'llm.model_name': 'm1' }),
  span('00000000000000a4', '00000000000000a2', 'searcher', 4, { 'openinference.span.kind': 'TOOL', 'tool.name': 'searcher', 'input.value': '{"task": "capital"}' }),
  span('00000000000000a5', '00000000000000a4', 'ToolCallingAgent.run', 5, { 'openinference.span.kind': 'AGENT', 'input.value': JSON.stringify({ task: "You're a helpful agent named 'searcher'.\nTask: capital" }), 'output.value': '<summary_of_work>Paris</summary_of_work>' }),
  span('00000000000000a6', '00000000000000a5', 'Step 1', 6, { 'openinference.span.kind': 'CHAIN', 'output.value': 'found it' }, { status: { code: 2, message: 'ValueError: boom' } }),
  span('00000000000000a7', '00000000000000a6', 'LiteLLMModel.__call__', 7, { 'openinference.span.kind': 'LLM', 'llm.token_count.total': 3 }),
  span('00000000000000a8', '00000000000000ff', 'Step 9', 8, { 'openinference.span.kind': 'CHAIN' }),
];

describe('OTLP variants', () => {
  const doc = { resource_spans: [{ resource: { attributes: [attr('service.name', 'demo')] }, scope_spans: [{ scope: { name: 'openinference.instrumentation.smolagents' }, spans: SMOL }] }] };

  it('maps smolagents spans in snake_case OTLP, with a managed agent behind a tool span', () => {
    const imported = importText('unknown', JSON.stringify(doc));
    expect(imported.format).toBe('otlp');
    const run = imported.runs[0];
    expect(run.id).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(run.orphanSpans).toBe(1);
    expect(run.agents.map((a) => [a.name, a.parentId])).toEqual([
      ['manager', undefined],
      ['searcher', 'agent-manager'],
    ]);
    expect(run.agentRuns.map((r) => r.agentId)).toEqual(['agent-manager', 'agent-searcher', 'agent-manager']);
    const step = run.steps.find((s) => s.spanId === '00000000000000a2')!;
    expect(step).toMatchObject({ kind: 'action', number: 1, observation: 'Observation: Paris', toolCalls: [{ name: 'searcher', arguments: '{"task": "capital"}' }] });
    expect(step.output).toContain('searcher(task="capital")');
    const inner = run.steps.find((s) => s.spanId === '00000000000000a3')!;
    expect(inner).toMatchObject({ kind: 'llm', parentStepId: step.id, usage: { input: 20, output: 7, total: 27 } });
    expect(run.steps.find((s) => s.spanId === '00000000000000a1')!.kind).toBe('planning');
    const managedStep = run.steps.find((s) => s.spanId === '00000000000000a6')!;
    expect(managedStep).toMatchObject({ agentId: 'agent-searcher', toolCalls: [], error: { message: 'ValueError: boom', type: 'ValueError' } });
    expect(run.handoffs.map((h) => [h.kind, h.stepId, h.content])).toEqual([
      ['delegation', step.id, "You're a helpful agent named 'searcher'.\nTask: capital"],
      ['report', step.id, '<summary_of_work>Paris</summary_of_work>'],
    ]);
    // The AGENT span's own token aggregate (999) is never added on top of its model calls.
    expect(summarizeRun(run).tokens.total).toBe(15 + 27 + 3);
    // A `Step N` whose agent run is missing gets an agent run of its own.
    expect(run.steps.find((s) => s.spanId === '00000000000000a8')).toMatchObject({ kind: 'action', number: 9, agentRunId: 'run-00000000000000ff' });
    expect(run.raw).toEqual({ resource: { 'service.name': 'demo' } });
  });

  it('gives the same run for camelCase keys, base64 ids and JSON Lines', () => {
    const toCamel = (o: unknown): unknown => {
      if (Array.isArray(o)) return o.map(toCamel);
      if (o && typeof o === 'object') {
        return Object.fromEntries(
          Object.entries(o).map(([k, v]) => {
            const key = k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
            if ((key === 'spanId' || key === 'parentSpanId' || key === 'traceId') && typeof v === 'string') return [key, Buffer.from(v, 'hex').toString('base64')];
            return [key, toCamel(v)];
          }),
        );
      }
      return o;
    };
    const snake = importText('unknown', JSON.stringify(doc)).runs;
    const camel = importText('unknown', JSON.stringify(toCamel(doc))).runs;
    expect(camel).toEqual(snake);
    const lines = `${JSON.stringify(doc)}\n${JSON.stringify({ resourceSpans: [] })}\n`;
    expect(importText('unknown', lines).runs).toEqual(snake);
  });

  it('normalises ids', () => {
    expect(normaliseId('0AF7651916CD43DD8448EB211C80319C', 16)).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(normaliseId('EwRDCPEtt08=', 8)).toBe('13044308f12db74f');
    expect(normaliseId('not an id!', 8)).toBe('not an id!');
  });

  it('reads decimal texts (nanosecond times) as the same double as Number', () => {
    const texts = [
      '1750000000000000000', '1750000000900000001', '9007199254740993', '4611686018427387903', '4611686018999999999',
      '9999999999999999999', '0000000000000000001', '1', '123456789', '1234567890', '1e9', ' 12', '-5', '+5', '12.5',
      '0x10', 'Infinity', '', '12345678901234567890', '١٢',
    ];
    // A seeded walk over 1–19 digit texts, most of them near the 2⁵³ / 5⁹ bound of the digit-by-digit reading.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let k = 0; k < 20_000; k++) {
      const length = 1 + Math.floor(random() * 19);
      let text = k % 2 ? '461168' : '17';
      while (text.length < length) text += String.fromCharCode(48 + Math.floor(random() * 10));
      texts.push(text.slice(0, length));
    }
    for (const text of texts) expect(Object.is(decimalNumber(text), Number(text)), text).toBe(true);
  });

  it('reads GenAI semantic-convention spans as model, tool and agent calls', () => {
    const genai = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span('0000000000000001', undefined, 'invoke_agent planner', 0, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' }),
                span('0000000000000002', '0000000000000001', 'chat gpt-4', 1, {
                  'gen_ai.operation.name': 'chat',
                  'gen_ai.request.model': 'gpt-4',
                  'gen_ai.usage.input_tokens': 97.0,
                  'gen_ai.usage.output_tokens': '52',
                  'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]),
                  'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'get_weather', arguments: { location: 'Paris' } }] }]),
                }),
                span('0000000000000003', '0000000000000001', 'execute_tool get_weather', 2, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.arguments': '{"location":"Paris"}', 'gen_ai.tool.call.result': 'rainy' }),
                span('0000000000000004', '0000000000000001', 'invoke_agent helper', 3, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'helper' }),
              ],
            },
          ],
        },
      ],
    };
    const run = importText('unknown', JSON.stringify(genai)).runs[0];
    expect(run.agents.map((a) => [a.name, a.parentId])).toEqual([
      ['planner', undefined],
      ['helper', 'agent-planner'],
    ]);
    expect(run.steps.map((s) => s.kind)).toEqual(['llm', 'tool']);
    expect(run.steps[0]).toMatchObject({ model: 'gpt-4', usage: { input: 97, output: 52, total: 149 }, input: [{ role: 'user', content: 'Weather in Paris?' }], toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"location":"Paris"}' }] });
    expect(run.steps[1]).toMatchObject({ name: 'get_weather', observation: 'rainy', toolCalls: [{ name: 'get_weather', arguments: '{"location":"Paris"}' }] });
    expect(run.handoffs.map((h) => [h.kind, h.from, h.to])).toEqual([['delegation', 'agent-planner', ['agent-helper']]]);
    // Steps are the rows of the step list (README "What a step is"): the model call and the tool call.
    expect(summarizeRun(run).steps).toBe(2);
  });

  // Issue 20: a defect of one span is that span's, not the file's.
  describe('a defective span is dropped with a reason or kept with a note; the rest of the file imports', () => {
    const TRACE = '0af7651916cd43dd8448eb211c80319c';
    const good = [
      span('0000000000000001', undefined, 'agent.run', 0, { 'agent.name': 'a' }),
      span('0000000000000002', '0000000000000001', 'tool.call', 1, { 'tool.name': 't' }),
    ];
    const importSpans = (spans: unknown[]) => importText('x.otlp.json', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
    const dropped = (file: ReturnType<typeof importText>) => file.runs.flatMap((r) => r.spanReport!.dropped);

    for (const [label, traceId] of [
      ['missing', undefined],
      ['empty', ''],
      ['all zeros', '00000000000000000000000000000000'],
      ['not a string', 42],
    ] as const) {
      it(`no trace id (${label}): dropped as "no trace id"`, () => {
        const bad = { ...span('0000000000000009', undefined, 'lost', 3, {}), trace_id: traceId };
        const file = importSpans([...good, bad]);
        expect(file.runs).toHaveLength(1);
        expect(file.runs[0].id).toBe(TRACE);
        expect(file.runs[0].spans).toHaveLength(2);
        expect(dropped(file)).toEqual([{ reason: 'no trace id', count: 1 }]);
        expect(file.runs[0].spanReport!.read).toBe(3);
        expect(file.warnings.join('\n')).toMatch(/1 no trace id/);
      });
    }

    it('no span id: dropped as "no span id" in its trace, its children kept as orphans', () => {
      const noId = { ...span('0000000000000003', '0000000000000001', 'step', 2, {}), span_id: undefined };
      const child = span('0000000000000004', '0000000000000003', 'http', 3, {});
      const file = importSpans([...good, noId, child]);
      expect(file.runs[0].spans!.map((s) => s.id)).toEqual(['0000000000000001', '0000000000000002', '0000000000000004']);
      expect(dropped(file)).toEqual([{ reason: 'no span id', count: 1 }]);
      expect(file.runs[0].spanReport).toMatchObject({ read: 4, orphans: 1 });
    });

    it('a span that is not an object: dropped as "not a span object"', () => {
      const file = importSpans([...good, 'oops']);
      expect(file.runs[0].spans).toHaveLength(2);
      expect(dropped(file)).toEqual([{ reason: 'not a span object', count: 1 }]);
    });

    it('unparseable times: kept without them, with a note', () => {
      const bad = { ...span('0000000000000005', '0000000000000001', 'late', 4, {}), start_time_unix_nano: 'yesterday', end_time_unix_nano: { x: 1 } };
      const file = importSpans([...good, bad]);
      const kept = file.runs[0].spans!.find((s) => s.id === '0000000000000005')!;
      expect(kept).toBeDefined();
      expect(kept.start).toBeUndefined();
      expect(kept.end).toBeUndefined();
      expect(dropped(file)).toEqual([]);
      expect(file.warnings.join('\n')).toMatch(/span 0000000000000005: start or end time unreadable/);
    });

    it('unreadable attributes or events: kept without them, with a note', () => {
      const badAttrs = { ...span('0000000000000006', '0000000000000001', 'a', 5, {}), attributes: [{ nokey: 1 }] };
      const badEvents = { ...span('0000000000000007', '0000000000000001', 'e', 6, { k: 'v' }), events: 'not a list' };
      const file = importSpans([...good, badAttrs, badEvents]);
      const spans = new Map(file.runs[0].spans!.map((s) => [s.id, s]));
      expect(spans.get('0000000000000006')!.attributes).toEqual({});
      expect(spans.get('0000000000000007')!.attributes).toEqual({ k: 'v' });
      expect(spans.get('0000000000000007')!.events).toEqual([]);
      expect(file.warnings.join('\n')).toMatch(/span 0000000000000006: attributes unreadable/);
      expect(file.warnings.join('\n')).toMatch(/span 0000000000000007: events unreadable/);
    });

    it('an unreadable parent id: kept as a root, with a note', () => {
      const bad = { ...span('0000000000000008', undefined, 'p', 7, {}), parent_span_id: 17 };
      const file = importSpans([...good, bad]);
      expect(file.runs[0].spans!.find((s) => s.id === '0000000000000008')!.depth).toBe(0);
      expect(file.warnings.join('\n')).toMatch(/span 0000000000000008: parent span id unreadable/);
    });

    it('every span defective: no run, and the warning says why', () => {
      const file = importSpans([{ ...good[0], trace_id: '' }]);
      expect(file.runs).toEqual([]);
      expect(file.warnings.join('\n')).toMatch(/1 no trace id; no span could be read/);
    });
  });

  it('survives a parent cycle and keeps every span', () => {
    const cyclic = { resourceSpans: [{ scopeSpans: [{ spans: [span('0000000000000001', '0000000000000002', 'a', 0, { 'openinference.span.kind': 'LLM' }), span('0000000000000002', '0000000000000001', 'b', 1, { 'openinference.span.kind': 'TOOL' })] }] }] };
    const run = importText('unknown', JSON.stringify(cyclic)).runs[0];
    expect(run.steps).toHaveLength(2);
  });

  it('attribute lists past 16 keys, repeated keys and lists of one length with other keys read as written', () => {
    const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });
    const long = Array.from({ length: 20 }, (_, i) => kv(`k.${i}`, `v${i}`));
    // A repeated key past the 16th keeps its first place and takes the last value, as a store does.
    long.push(kv('k.3', 'again'), kv('k.18', 'later'), kv('__proto__', 'p'));
    const sameLength = long.map((a, i) => kv(i % 2 ? a.key : `other.${i}`, `w${i}`));
    const spans = [long, sameLength, long].map((attributes, i) => ({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: `000000000000000${i + 1}`,
      name: `s${i}`,
      startTimeUnixNano: String(1_700_000_000_000_000_000 + i * 1_000_000),
      attributes,
    }));
    const run = importText('x.otlp.json', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).runs[0];
    const expected = (list: { key: string; value: { stringValue: string } }[]) => {
      const out: Record<string, unknown> = {};
      for (const a of list) Object.defineProperty(out, a.key, { value: a.value.stringValue, enumerable: true, writable: true, configurable: true });
      return out;
    };
    const byName = new Map(run.spans!.map((s) => [s.name, s.attributes as Record<string, unknown>]));
    for (const [name, list] of [['s0', long], ['s1', sameLength], ['s2', long]] as const) {
      const got = byName.get(name)!;
      expect(Object.keys(got)).toEqual(Object.keys(expected(list)));
      expect(Object.entries(got)).toEqual(Object.entries(expected(list)));
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    }
    expect(byName.get('s0')!['k.3']).toBe('again');
  });

  it('lists that repeat the keys of the last list of their length (read into a copy of its record) give the records written', () => {
    type Kv = { key: unknown; value: unknown };
    const kv = (key: unknown, value: unknown): Kv => ({ key, value });
    const s = (v: string) => ({ stringValue: v });
    // Over 16 keys, a repeated key, numeric keys: each list is read three times, with other values each time.
    const keys = ['openinference.span.kind', ...Array.from({ length: 18 }, (_, i) => `k.${i}`), 'k.2', '7', '3'];
    const values = (round: number): unknown[] =>
      keys.map((_, i) => (i === 0 ? s('CHAIN') : round === 1 && i === 5 ? { intValue: '42' } : round === 2 && i === 6 ? { kvlistValue: { values: [kv('x', s('y'))] } } : s(`r${round}v${i}`)));
    const lists: Kv[][] = [0, 1, 2].map((round) => keys.map((k, i) => kv(k, values(round)[i])));
    // The same keys, one item broken: the span keeps no attributes and the note names the item, as for a first list.
    const broken = keys.map((k, i) => (i === 9 ? kv(9, s('x')) : kv(k, s('b'))));
    const spans = [...lists, broken].map((attributes, i) => ({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: `00000000000000a${i + 1}`,
      name: `s${i}`,
      attributes,
    }));
    const result = importText('x.otlp.json', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
    const byName = new Map(result.runs[0].spans!.map((sp) => [sp.name, sp.attributes as Record<string, unknown>]));
    const expected = (list: Kv[]): Record<string, unknown> => {
      const out: Record<string, unknown> = {};
      for (const { key, value } of list) {
        const v = value as { stringValue?: string; intValue?: string; kvlistValue?: { values: Kv[] } };
        out[key as string] = v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : expected(v.kvlistValue!.values));
      }
      return out;
    };
    for (let round = 0; round < 3; round++) {
      const got = byName.get(`s${round}`)!;
      expect(Object.entries(got)).toEqual(Object.entries(expected(lists[round])));
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    }
    expect(byName.get('s0')).not.toBe(byName.get('s1'));
    expect(byName.get('s1')!['k.4']).toBe(42);
    expect(byName.get('s2')!['k.5']).toEqual({ x: 'y' });
    expect(byName.get('s2')!['k.2']).toBe('r2v19');
    expect(Object.keys(byName.get('s3')!)).toEqual([]);
    expect(result.warnings).toContain('span 00000000000000a4: attributes unreadable (expected {key, value}); the span is kept without them');
  });
});
