// An agent-shaped OTLP/JSON trace as many teams instrument their services by hand (issue 20), in two conventions:
// `custom` (an `agent.run` root with `agent.name`, `agent.step` spans, `llm.chat` spans with `gen_ai.*` usage,
// `tool.call` spans with `tool.name` / `tool.args`) or `genai` (the OTel GenAI conventions: `invoke_agent X`,
// `chat X`, `execute_tool X`). Under them the plain spans of a real service: HTTP calls, database queries, cache
// reads and writes, JSON parsing. 10 spans per step: 1,000 steps = 10,000 spans, 1,000 model calls, 1,000 tool calls.
// Deterministic. Used by the importer tests and the benches; run alone: npx tsx bench/gen-agent-otlp.ts <out.json> [steps] [custom|genai]
import { writeFileSync } from 'node:fs';

export type AgentConvention = 'custom' | 'genai';

type Value = string | number | boolean;
const TOOLS = ['web_search', 'fetch_page', 'read_file'];
export const AGENT_NAME = 'research-agent';

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function kv(attrs: Record<string, Value>): object[] {
  return Object.entries(attrs).map(([key, v]) => ({
    key,
    value: typeof v === 'number' ? (Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v }) : typeof v === 'boolean' ? { boolValue: v } : { stringValue: v },
  }));
}

export interface AgentTraceCounts {
  spans: number;
  modelCalls: number;
  toolCalls: number;
}

/** The expected counts of a trace of `steps` steps. */
export function agentTraceCounts(steps: number): AgentTraceCounts {
  return { spans: steps * 10, modelCalls: steps, toolCalls: steps };
}

export function generateAgentTrace(steps = 1000, convention: AgentConvention = 'custom', traceIndex = 0): object {
  const traceId = hex(0xa9e47 + traceIndex, 32);
  const spans: object[] = [];
  let nextId = 1;
  let clock = 0;
  const base = 1_760_000_000_000_000_000n + BigInt(traceIndex) * 100_000_000_000_000n;
  const add = (parent: number | undefined, name: string, attrs: Record<string, Value>, duration: number, error = false): number => {
    const id = traceIndex * 10_000_000 + nextId++;
    const start = base + BigInt(clock) * 1_000_000n;
    clock += 1;
    spans.push({
      traceId,
      spanId: hex(id, 16),
      ...(parent !== undefined ? { parentSpanId: hex(parent, 16) } : {}),
      name,
      kind: parent === undefined ? 1 : 3,
      startTimeUnixNano: String(start),
      endTimeUnixNano: String(start + BigInt(duration) * 1_000_000n),
      attributes: kv(attrs),
      ...(error ? { status: { code: 2, message: 'HTTP 503' }, events: [{ timeUnixNano: String(start), name: 'exception', attributes: kv({ 'exception.type': 'HTTPError', 'exception.message': 'HTTP 503' }) }] } : { status: { code: 1 } }),
    });
    return id;
  };
  const genai = convention === 'genai';
  const total = steps * 10;
  const root = add(
    undefined,
    genai ? `invoke_agent ${AGENT_NAME}` : 'agent.run',
    genai ? { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': AGENT_NAME, 'gen_ai.agent.id': 'agt-1' } : { 'agent.name': AGENT_NAME, 'agent.task': 'Summarise the quarterly reports' },
    total + 10,
  );
  for (let i = 0; i < steps; i++) {
    const step = add(root, 'agent.step', { 'agent.step.index': i }, 9);
    if (i > 0) add(step, 'SELECT memory', { 'db.system': 'postgresql', 'db.statement': 'SELECT content FROM memory WHERE run = $1', 'db.operation': 'SELECT' }, 1);
    const usage = { 'gen_ai.usage.input_tokens': 900 + (i % 300), 'gen_ai.usage.output_tokens': 40 + (i % 60) };
    const tool = TOOLS[i % TOOLS.length];
    const llm = add(
      step,
      genai ? 'chat gpt-4o' : 'llm.chat',
      genai ? { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', ...usage } : { 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o', ...usage },
      3,
    );
    add(llm, 'POST', { 'http.request.method': 'POST', 'url.full': 'https://api.openai.com/v1/chat/completions', 'http.response.status_code': 200 }, 2);
    const args = JSON.stringify({ query: `quarterly report ${i}` });
    const call = add(
      step,
      genai ? `execute_tool ${tool}` : 'tool.call',
      genai
        ? { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.id': `call_${i}`, 'gen_ai.tool.call.arguments': args }
        : { 'tool.name': tool, 'tool.args': args },
      4,
    );
    add(call, 'GET', { 'http.request.method': 'GET', 'url.full': `https://search.example/q?i=${i}`, 'http.response.status_code': i % 97 === 5 ? 503 : 200 }, 1, i % 97 === 5);
    add(call, 'SELECT documents', { 'db.system': 'postgresql', 'db.statement': 'SELECT * FROM documents WHERE id = $1', 'db.operation': 'SELECT' }, 1);
    add(call, 'GET cache', { 'db.system': 'redis', 'db.operation': 'GET', 'cache.key': `doc:${i}` }, 1);
    add(call, 'SET cache', { 'db.system': 'redis', 'db.operation': 'SET', 'cache.key': `doc:${i}` }, 1);
    add(step, 'json.parse', { 'code.function': 'parse_answer' }, 1);
  }
  return {
    resourceSpans: [
      {
        resource: { attributes: kv({ 'service.name': 'research-service' }) },
        scopeSpans: [{ scope: { name: 'research-service.tracing', version: '1.0' }, spans }],
      },
    ],
  };
}

if (process.argv[1] && process.argv[1].endsWith('gen-agent-otlp.ts')) {
  const [out, steps, convention] = process.argv.slice(2);
  if (!out) throw new Error('usage: npx tsx bench/gen-agent-otlp.ts <out.json> [steps] [custom|genai]');
  writeFileSync(out, JSON.stringify(generateAgentTrace(Number(steps ?? 1000), (convention as AgentConvention) ?? 'custom')));
}
