// The OpenTelemetry GenAI semantic conventions: `gen_ai.operation.name`, structured messages (and the deprecated
// indexed prompt / completion keys), token usage.
import { recordOf } from '../../model/record.ts';
import type { ChatMessage, TokenUsage, ToolCall } from '../../model/types.ts';
import { asArgumentText, indexedGroups, isRecord, jsonValueAttr, modelCallOf, numberAttr, textAttr, textOf, unwrapOutputValue, type Attributes, type AttributeStandard, type SpanCategory } from './attributes.ts';

const GEN_AI_OPERATIONS: Record<string, SpanCategory> = recordOf({
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  completion: 'llm',
  embeddings: 'embedding',
  invoke_agent: 'agent',
  create_agent: 'agent',
  execute_tool: 'tool',
});

/** GenAI messages: `[{role, parts:[{type:'text', content} | {type:'tool_call', …} | {type:'tool_call_response', …}]}]`. */
function genAiMessages(value: unknown): ChatMessage[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const messages: ChatMessage[] = [];
  for (const m of value) {
    if (!isRecord(m)) continue;
    const texts: string[] = [];
    const calls: ToolCall[] = [];
    let toolCallId: string | undefined;
    if (typeof m.content === 'string') texts.push(m.content);
    for (const part of Array.isArray(m.parts) ? m.parts : []) {
      if (!isRecord(part)) continue;
      if (part.type === 'text' && typeof part.content === 'string') texts.push(part.content);
      else if (part.type === 'tool_call' && typeof part.name === 'string') {
        const call: ToolCall = { name: part.name, arguments: asArgumentText(part.arguments) };
        if (typeof part.id === 'string') call.id = part.id;
        calls.push(call);
      } else if (part.type === 'tool_call_response') {
        texts.push(asArgumentText(part.response));
        if (typeof part.id === 'string') toolCallId = part.id;
      }
    }
    const message: ChatMessage = { role: typeof m.role === 'string' ? m.role : 'unknown', content: texts.join('\n') };
    if (calls.length) message.toolCalls = calls;
    if (toolCallId !== undefined) message.toolCallId = toolCallId;
    messages.push(message);
  }
  return messages;
}

/** Deprecated GenAI forms: `gen_ai.prompt` as JSON, or indexed `gen_ai.prompt.N.role|content`. */
function genAiLegacyMessages(attrs: Attributes, key: string): ChatMessage[] | undefined {
  const whole = jsonValueAttr(attrs, key);
  const fromJson = genAiMessages(whole);
  if (fromJson) return fromJson;
  const groups = indexedGroups(attrs, `${key}.`);
  if (groups.size === 0) return undefined;
  return [...groups.values()].map((g) => ({ role: textOf(g.get('role')) ?? 'unknown', content: textOf(g.get('content')) ?? '' }));
}

/** The structured output messages (`gen_ai.output.messages`), read once per reading of a span's output. */
function outputMessages(attrs: Attributes): ChatMessage[] | undefined {
  return genAiMessages(jsonValueAttr(attrs, 'gen_ai.output.messages'));
}

/** The output text, given the span's structured output messages (`outputMessages`). */
function outputTextOf(attrs: Attributes, structured: ChatMessage[] | undefined): string | undefined {
  const messages = structured ?? genAiLegacyMessages(attrs, 'gen_ai.completion');
  if (messages && messages.length) return messages.map((m) => m.content).join('\n');
  return (
    unwrapOutputValue(textAttr(attrs, 'gen_ai.completion')) ??
    textAttr(attrs, 'gen_ai.tool.call.result') ??
    unwrapOutputValue(textAttr(attrs, 'output.value') ?? textAttr(attrs, 'output'))
  );
}

export const genAi: AttributeStandard = {
  id: 'gen_ai',
  category(attrs) {
    const op = attrs['gen_ai.operation.name'];
    if (typeof op === 'string' && GEN_AI_OPERATIONS[op]) return GEN_AI_OPERATIONS[op];
    if (attrs['gen_ai.tool.name'] !== undefined) return 'tool';
    if (attrs['gen_ai.agent.name'] !== undefined) return 'agent';
    if (attrs['gen_ai.request.model'] !== undefined || attrs['gen_ai.response.model'] !== undefined) return 'llm';
    return 'unknown';
  },
  usage(attrs) {
    const input = numberAttr(attrs, 'gen_ai.usage.input_tokens') ?? numberAttr(attrs, 'gen_ai.usage.prompt_tokens');
    const output = numberAttr(attrs, 'gen_ai.usage.output_tokens') ?? numberAttr(attrs, 'gen_ai.usage.completion_tokens');
    const total = numberAttr(attrs, 'gen_ai.usage.total_tokens');
    if (input === undefined && output === undefined && total === undefined) return undefined;
    const usage: TokenUsage = { input: input ?? 0, output: output ?? 0, total: total ?? (input ?? 0) + (output ?? 0) };
    const cached = numberAttr(attrs, 'gen_ai.usage.cache_read.input_tokens') ?? numberAttr(attrs, 'gen_ai.usage.cache_read_input_tokens');
    if (cached !== undefined) usage.cached = cached;
    const cost = numberAttr(attrs, 'gen_ai.usage.cost');
    if (cost !== undefined) usage.cost = cost;
    return usage;
  },
  model: (attrs) => textAttr(attrs, 'gen_ai.response.model') ?? textAttr(attrs, 'gen_ai.request.model'),
  inputMessages: (attrs) => genAiMessages(jsonValueAttr(attrs, 'gen_ai.input.messages')) ?? genAiLegacyMessages(attrs, 'gen_ai.prompt'),
  outputText: (attrs) => outputTextOf(attrs, outputMessages(attrs)),
  outputToolCalls: (attrs) => outputMessages(attrs)?.flatMap((m) => m.toolCalls ?? []),
  output(attrs) {
    // `gen_ai.output.messages` parsed once for both (it was parsed again for the tool calls: a JSON.parse per model
    // call, a fifth of the flat 100k-span trace's mapping went to parsing attribute JSON).
    const messages = outputMessages(attrs);
    const out: { text?: string; toolCalls?: ToolCall[] } = {};
    const text = outputTextOf(attrs, messages);
    if (text !== undefined) out.text = text;
    const toolCalls = messages?.flatMap((m) => m.toolCalls ?? []);
    if (toolCalls && toolCalls.length) out.toolCalls = toolCalls;
    return out;
  },
  modelCall: (attrs) => modelCallOf(genAi, attrs),
  inputText: (attrs) => textAttr(attrs, 'gen_ai.tool.call.arguments') ?? textAttr(attrs, 'input.value') ?? textAttr(attrs, 'input'),
  toolName: (attrs) => textAttr(attrs, 'gen_ai.tool.name'),
  agentName: (attrs) => textAttr(attrs, 'gen_ai.agent.name'),
};

