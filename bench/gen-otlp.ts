// A synthetic OTLP/JSON trace file shaped like smolagents' OpenInference export (manager CodeAgent with planning
// calls, `Step N` chain spans, model calls with recorded token counts and flattened messages, tool calls, a managed
// agent run), for the import benchmark (SPEC §8). Deterministic for a given span count. Text lengths are set so
// that 100k spans make ~100 MB (SPEC §8: 100 MiB, about 1 KB per span, most of it attribute keys and JSON framing).
// Run alone: npx tsx bench/gen-otlp.ts <out.json> [spans]
import { createWriteStream } from 'node:fs';

const FILLER =
  'The page lists the quarterly figures for each region together with the notes from the auditors and a short summary of the changes since the previous report. ';

function text(length: number, salt: number): string {
  const start = salt % FILLER.length;
  return (FILLER.slice(start) + FILLER.repeat(Math.ceil(length / FILLER.length) + 1)).slice(0, length);
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

type Value = string | number;

function attributes(attrs: Record<string, Value>): object[] {
  return Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } }));
}

interface SpanSpec {
  id: number;
  parent?: number;
  name: string;
  attrs: Record<string, Value>;
  start: number;
}

class TraceWriter {
  private spans: object[] = [];
  private nextId = 1;
  private clock = 0;
  constructor(private readonly traceIndex: number) {}

  id(): number {
    return this.traceIndex * 1_000_000 + this.nextId++;
  }

  add(spec: Omit<SpanSpec, 'start'>): void {
    const start = 1_750_000_000_000_000_000n + BigInt(this.traceIndex) * 10_000_000_000_000n + BigInt(this.clock++) * 1_000_000_000n;
    this.spans.push({
      traceId: hex(this.traceIndex + 1, 32),
      spanId: hex(spec.id, 16),
      ...(spec.parent !== undefined ? { parentSpanId: hex(spec.parent, 16) } : {}),
      name: spec.name,
      kind: 'SPAN_KIND_INTERNAL',
      startTimeUnixNano: String(start),
      endTimeUnixNano: String(start + 900_000_000n),
      attributes: attributes(spec.attrs),
      status: { code: 'STATUS_CODE_OK' },
    });
  }

  get size(): number {
    return this.spans.length;
  }

  document(): string {
    return JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: attributes({ 'service.name': 'bench-smolagents' }) },
          scopeSpans: [{ scope: { name: 'openinference.instrumentation.smolagents', version: '0.1.6' }, spans: this.spans }],
        },
      ],
    });
  }
}

function llmAttrs(salt: number, messages: number): Record<string, Value> {
  const prompt = 800 + (salt % 900);
  const completion = 60 + (salt % 200);
  const attrs: Record<string, Value> = { 'openinference.span.kind': 'LLM', 'llm.model_name': 'o3-mini', 'llm.invocation_parameters': '{"max_completion_tokens": 8192}' };
  for (let m = 0; m < messages; m++) {
    attrs[`llm.input_messages.${m}.message.role`] = m === 0 ? 'system' : m % 2 ? 'user' : 'assistant';
    attrs[`llm.input_messages.${m}.message.content`] = text(m === 0 ? 90 : 40, salt + m);
  }
  attrs['llm.output_messages.0.message.role'] = 'assistant';
  attrs['llm.output_messages.0.message.content'] = `Thought: ${text(40, salt)}\nCode:\n\`\`\`py\nresult = web_search(query="q${salt}")\nprint(result)\n\`\`\``;
  attrs['llm.token_count.prompt'] = prompt;
  attrs['llm.token_count.completion'] = completion;
  attrs['llm.token_count.total'] = prompt + completion;
  return attrs;
}

/** One smolagents run: 2 planning calls, then steps of (LLM + tool), one step delegating to a managed agent. */
function writeTrace(trace: TraceWriter, spanBudget: number): void {
  const root = trace.id();
  trace.add({ id: root, name: 'CodeAgent.run', attrs: { 'openinference.span.kind': 'AGENT', 'input.value': JSON.stringify({ task: `Here is the task:\nQuestion ${trace.id()}: ${text(200, root)}` }), 'output.value': 'done', 'llm.token_count.total': 123456 } });
  trace.add({ id: trace.id(), parent: root, name: 'LiteLLMModel.__call__', attrs: llmAttrs(root, 2) });
  trace.add({ id: trace.id(), parent: root, name: 'LiteLLMModel.__call__', attrs: llmAttrs(root + 1, 3) });
  for (let n = 1; trace.size + 3 <= spanBudget; n++) {
    const step = trace.id();
    trace.add({ id: step, parent: root, name: `Step ${n}`, attrs: { 'openinference.span.kind': 'CHAIN', 'input.value': `{"memory_step": "ActionStep(step_number=${n})"}`, 'output.value': `Execution logs:\n${text(60 + (n % 7) * 20, n)}` } });
    trace.add({ id: trace.id(), parent: step, name: 'LiteLLMModel.__call__', attrs: llmAttrs(step, 3 + (n % 4)) });
    if (n === 2 && trace.size + 4 <= spanBudget) {
      const managed = trace.id();
      trace.add({ id: managed, parent: step, name: 'ToolCallingAgent.run', attrs: { 'openinference.span.kind': 'AGENT', 'input.value': JSON.stringify({ task: "You're a helpful agent named 'search_agent'.\nTask: find it" }), 'output.value': 'found' } });
      const inner = trace.id();
      trace.add({ id: inner, parent: managed, name: 'Step 1', attrs: { 'openinference.span.kind': 'CHAIN', 'output.value': 'found' } });
      trace.add({ id: trace.id(), parent: inner, name: 'LiteLLMModel.__call__', attrs: llmAttrs(inner, 3) });
    } else {
      trace.add({ id: trace.id(), parent: step, name: 'SearchInformationTool', attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search', 'input.value': `{"args": [], "kwargs": {"query": "q${step}"}}`, 'output.value': text(60, step) } });
    }
  }
}

/** Writes `spans` spans as one OTLP/JSON document per trace inside a JSON array; returns the byte size. */
export async function generateOtlpFile(path: string, spans = 100_000, spansPerTrace = 500): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  const write = (chunk: string) =>
    new Promise<void>((resolve, reject) => {
      bytes += Buffer.byteLength(chunk);
      out.write(chunk, (e) => (e ? reject(e) : resolve()));
    });
  await write('[');
  let written = 0;
  for (let t = 0; written < spans; t++) {
    const trace = new TraceWriter(t);
    writeTrace(trace, Math.min(spansPerTrace, spans - written));
    written += trace.size;
    await write(`${t ? ',\n' : ''}${trace.document()}`);
  }
  await write(']\n');
  await new Promise<void>((resolve) => out.end(resolve));
  return bytes;
}

// Run as a script by its own name only: inside a bundle (esbuild, a harness) import.meta.filename is the bundle's,
// which is argv[1] too, and the generator ran there with the harness's arguments.
if (process.argv[1] && process.argv[1].endsWith('gen-otlp.ts')) {
  const [out, count] = process.argv.slice(2);
  if (!out) throw new Error('usage: gen-otlp.ts <out.json> [spans]');
  const bytes = await generateOtlpFile(out, count ? Number(count) : undefined);
  process.stdout.write(`${out}: ${(bytes / 1048576).toFixed(1)} MB\n`);
}
