import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { HAVE_SHARED, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { titleFromTask } from './assemble.ts';
import { numberAttr, type Attributes } from './attributes.ts';
import { genAi } from './genai.ts';
import { buildForest, standardOf, type SpanRecord } from './forest.ts';

// The attribute-map fixtures are single spans' attributes, not traces: the categorisers are tested on them directly.
const FIXTURES = sharedFiles('format-fixtures');
const fixture = (name: string): Attributes => JSON.parse(readFileSync(FIXTURES.find((p) => p.endsWith(`/${name}`))!, 'utf8'));

describe.skipIf(!HAVE_SHARED)(`attribute standards on the OpenInference / GenAI fixtures (${HAVE_SHARED ? 'real fixtures' : SKIP_REASON})`, () => {
  it('finds the five fixtures', () => {
    expect(FIXTURES).toHaveLength(5);
  });

  it('reads OpenInference flattened messages, tool calls, usage and model', () => {
    const attrs = fixture('openinference_client_span_tool_calls.json');
    const std = standardOf(attrs);
    expect(std.id).toBe('openinference');
    expect(std.category(attrs)).toBe('llm');
    expect(std.usage(attrs)).toEqual({ input: 97, output: 52, total: 149 });
    expect(std.model(attrs)).toBe('gpt-4-0613');
    expect(std.inputMessages(attrs)).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Absolutely! Let me check the weather for you.', toolCalls: [{ id: '1234', name: 'get_weather', arguments: '{"location":"Paris"}' }] },
      { role: 'tool', content: 'rainy, 57°F', toolCallId: '1234' },
    ]);
    expect(std.outputText(attrs)).toBe('The weather in Paris is currently rainy with a temperature of 57°F.');
  });

  it('falls back to output.value when OpenInference spans carry no message attributes', () => {
    const attrs = fixture('openinference_client_span_input_output_only.json');
    const std = standardOf(attrs);
    expect(std.category(attrs)).toBe('llm');
    expect(std.inputMessages(attrs)).toBeUndefined();
    expect(std.inputText(attrs)).toMatch(/^\[\{"role":"user"/);
    expect(std.outputText(attrs)).toBe('The weather in Paris is currently rainy with a temperature of 57°F.');
    expect(std.usage(attrs)?.total).toBe(149);
  });

  it('reads OTel GenAI chat spans, current and deprecated', () => {
    const current = fixture('otel_genai_client_span_tool_calls.json');
    const deprecated = fixture('otel_genai_deprecated_client_span_tool_calls.json');
    for (const attrs of [current, deprecated]) {
      const std = standardOf(attrs);
      expect(std.id).toBe('gen_ai');
      expect(std.category(attrs)).toBe('llm');
      expect(std.usage(attrs)).toEqual({ input: 97, output: 52, total: 149 });
      expect(std.model(attrs)).toBe('gpt-4-0613');
      expect(std.inputMessages(attrs)).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: 'Absolutely! Let me check the weather for you.', toolCalls: [{ id: '1234', name: 'get_weather', arguments: '{"location":"Paris"}' }] },
        { role: 'tool', content: 'rainy, 57°F', toolCallId: '1234' },
      ]);
      expect(std.outputText(attrs)).toBe('The weather in Paris is currently rainy with a temperature of 57°F.');
    }
  });

  it('reads an OTel GenAI tool execution span', () => {
    const attrs = fixture('otel_genai_tool_execution_span.json');
    const std = standardOf(attrs);
    expect(std.category(attrs)).toBe('tool');
    expect(std.toolName(attrs)).toBe('get_weather');
    expect(std.inputText(attrs)).toBe('{"city": "New York"}');
    expect(std.outputText(attrs)).toContain('sunny');
    expect(std.usage(attrs)).toBeUndefined();
  });
});

describe('attribute values', () => {
  it('reads numbers recorded as ints, doubles and strings', () => {
    const attrs = { a: 12, b: 12.5, c: '12', d: ' 7 ', e: 'twelve', f: '', g: Number.NaN, h: true };
    expect(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((k) => numberAttr(attrs, k))).toEqual([12, 12.5, 12, 7, undefined, undefined, undefined, undefined]);
  });

  it('keeps cost recorded as a double', () => {
    const attrs = { 'openinference.span.kind': 'LLM', 'llm.token_count.total': '5', 'llm.cost.total': 0.0012 };
    expect(standardOf(attrs).usage(attrs)).toEqual({ input: 0, output: 0, total: 5, cost: 0.0012 });
  });
});

describe('OTel GenAI output', () => {
  const call = { type: 'tool_call', id: 'c1', name: 'lookup', arguments: { key: 'k' } };
  const cases: Attributes[] = [
    { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'a' }, call] }, { role: 'assistant', parts: [{ type: 'text', content: 'b' }] }]) },
    { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'only text' }] }]) },
    { 'gen_ai.output.messages': '[]', 'gen_ai.completion': '{"content":"wrapped"}' },
    { 'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': 'first', 'gen_ai.completion.1.content': 'second' },
    { 'gen_ai.tool.call.result': 'result text' },
    { 'output.value': '{"text":"from output.value"}' },
    {},
  ];

  it('reads text and tool calls as outputText and outputToolCalls do', () => {
    for (const attrs of cases) {
      const toolCalls = genAi.outputToolCalls(attrs);
      const expected: Record<string, unknown> = {};
      if (genAi.outputText(attrs) !== undefined) expected.text = genAi.outputText(attrs);
      if (toolCalls && toolCalls.length) expected.toolCalls = toolCalls;
      expect(genAi.output(attrs)).toEqual(expected);
    }
  });

  it('parses the output messages once per span (the flat 100k-span trace parsed them twice)', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(genAi.output(cases[0])).toEqual({ text: 'a\nb', toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"key":"k"}' }] });
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('span forest', () => {
  const rec = (id: string, parentId: string | undefined, start: number, order: number): SpanRecord => ({ id, parentId, traceId: 't', name: id, start, attributes: {}, status: 'unset', events: [], order });

  it('keeps spans with a missing parent as counted roots, orders by start time, drops repeated ids', () => {
    const forest = buildForest('t', [rec('b', 'a', 2, 0), rec('a', undefined, 1, 1), rec('c', 'gone', 0, 2), rec('d', 'a', 1, 3), rec('a', undefined, 9, 4)]);
    expect(forest.orphans).toBe(1);
    expect(forest.duplicates).toBe(1);
    expect(forest.roots.map((n) => n.span.id)).toEqual(['c', 'a']);
    expect(forest.roots[1].children.map((n) => n.span.id)).toEqual(['d', 'b']);
  });

  it('links thousands of spans with repeated ids to the first span of each parent id (its table of ids)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2999 }), fc.option(fc.integer({ min: 0, max: 3500 }), { nil: undefined })), { minLength: 1, maxLength: 5000 }), (list) => {
        const ids = (n: number) => `s${n.toString(16).padStart(15, '0')}`;
        const spans = list.map(([id, parent], order) => rec(ids(id), parent === undefined ? undefined : ids(parent), order % 7, order));
        const forest = buildForest('t', spans);
        const first = new Map<string, SpanRecord>();
        for (const span of spans) if (!first.has(span.id)) first.set(span.id, span);
        expect(forest.duplicates).toBe(spans.length - first.size);
        expect(forest.nodes.map((n) => n.span)).toEqual([...first.values()]);
        expect(forest.orphans).toBe(forest.nodes.filter((n) => n.span.parentId !== undefined && !first.has(n.span.parentId)).length);
        for (const node of forest.nodes) {
          // Linked to the first span of its parent id, or a root: its parent missing, or its link cut in a cycle.
          if (node.parent) expect(node.parent.span).toBe(first.get(node.span.parentId!));
          else if (node.span.parentId !== undefined && first.has(node.span.parentId)) expect(forest.roots).toContain(node);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('cuts parent cycles so every span stays reachable', () => {
    const forest = buildForest('t', [rec('x', 'y', 0, 0), rec('y', 'z', 1, 1), rec('z', 'x', 2, 2)]);
    const seen: string[] = [];
    const visit = (n: (typeof forest.roots)[number]) => {
      seen.push(n.span.id);
      n.children.forEach(visit);
    };
    forest.roots.forEach(visit);
    expect(seen.sort()).toEqual(['x', 'y', 'z']);
  });
});

describe('titles', () => {
  it('takes the question out of a framework preamble and shortens it', () => {
    expect(titleFromTask('You have one question.\nHere is the task:\nWhat is 2+2?\nMore.', 'fallback')).toBe('What is 2+2?');
    expect(titleFromTask(undefined, 'fallback')).toBe('fallback');
    expect(titleFromTask('x'.repeat(300), 'f')).toHaveLength(100);
  });
});

describe('smolagents action step numbers', () => {
  it('`Step ` and 1–9 digits give the number the digits write, anything else none', async () => {
    const { actionStepNumber } = await import('./smolagents.ts');
    const cases: Array<[string, number | undefined]> = [
      ['Step 1', 1],
      ['Step 12', 12],
      ['Step 007', 7],
      ['Step 0', 0],
      ['Step 999999999', 999_999_999],
      ['Step 1234567890', undefined],
      ['Step ', undefined],
      ['Step', undefined],
      ['Step 1a', undefined],
      ['Step -1', undefined],
      ['Step 1.5', undefined],
      ['Step  1', undefined],
      ['step 1', undefined],
      ['Step ١', undefined],
      ['Steps 1', undefined],
      ['Step 12 ', undefined],
      ['', undefined],
    ];
    for (const [name, number] of cases) expect([name, actionStepNumber(name)]).toEqual([name, number]);
  });
});
