// A flat agent trace in OTLP/JSON (SPEC §8 "a 100k-span OTLP/JSON where every span is a step"): what a flat export
// of many small agent calls gives. One `invoke_agent` root; under it, in turn, a model call (`chat`, with GenAI usage
// and short input/output messages) and a tool call (`execute_tool`, with arguments and result). Every 25th span is a
// tool call nested in the model call before it, so it is a step but not a row: 100k spans make ~96k rows.
// Deterministic; about 0.6 KB per span. Run alone: npx tsx bench/gen-flat-agent-otlp.ts <out.json> [spans]
import { writeFileSync } from 'node:fs';

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const TOOLS = ['web_search', 'fetch_page', 'read_file', 'run_python'];

type Value = string | number;
const kv = (attrs: Record<string, Value>) =>
  Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } }));

/** The trace as JSON text (built piece by piece: 100k span objects would otherwise be held twice). */
export function generateFlatAgentTrace(spanCount = 100_000): string {
  const traceId = hex(0xf1a7, 32);
  const base = 1_760_000_000_000_000_000n;
  const parts: string[] = [];
  const span = (id: number, parent: number | undefined, name: string, attrs: Record<string, Value>, at: number, ms: number) => {
    const start = base + BigInt(at) * 1_000_000n;
    parts.push(
      JSON.stringify({
        traceId,
        spanId: hex(id, 16),
        ...(parent !== undefined ? { parentSpanId: hex(parent, 16) } : {}),
        name,
        kind: 1,
        startTimeUnixNano: String(start),
        endTimeUnixNano: String(start + BigInt(ms) * 1_000_000n),
        attributes: kv(attrs),
        status: { code: 1 },
      }),
    );
  };
  const root = 1;
  span(root, undefined, 'invoke_agent research-agent', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'research-agent', 'gen_ai.agent.id': 'agt-1' }, 0, spanCount * 10 + 10);
  let lastChat = root;
  for (let i = 2; i <= spanCount; i++) {
    const at = i * 10;
    if (i % 25 === 0) {
      span(i, lastChat, 'execute_tool lookup', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': `call_${i}`, 'gen_ai.tool.call.arguments': `{"key":"k${i}"}` }, at, 2);
    } else if (i % 2 === 0) {
      lastChat = i;
      const messages = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `Step ${i}: look up the next figure of the quarterly report and say what changed.` }] }]);
      const answer = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `The figure for item ${i} rose by ${i % 17} percent since the last report.` }] }]);
      span(i, root, 'chat gpt-4o', { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 300 + (i % 200), 'gen_ai.usage.output_tokens': 20 + (i % 40), 'gen_ai.input.messages': messages, 'gen_ai.output.messages': answer }, at, 8);
    } else {
      const tool = TOOLS[i % TOOLS.length];
      span(i, root, `execute_tool ${tool}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.id': `call_${i}`, 'gen_ai.tool.call.arguments': `{"query":"quarterly report ${i}"}`, 'gen_ai.tool.call.result': `Found ${i % 9} documents for quarterly report ${i}.` }, at, 5);
    }
  }
  return `{"resourceSpans":[{"resource":{"attributes":${JSON.stringify(kv({ 'service.name': 'flat-agent' }))}},"scopeSpans":[{"scope":{"name":"flat-agent.tracing","version":"1.0"},"spans":[${parts.join(',')}]}]}]}`;
}

if (process.argv[1] && process.argv[1].endsWith('gen-flat-agent-otlp.ts')) {
  const [out, spans] = process.argv.slice(2);
  if (!out) throw new Error('usage: npx tsx bench/gen-flat-agent-otlp.ts <out.json> [spans]');
  writeFileSync(out, generateFlatAgentTrace(Number(spans ?? 100_000)));
}
