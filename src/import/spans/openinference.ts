// The OpenInference attribute standard: span kinds, flattened `llm.input_messages.N.message.*` keys, token counts.
import { recordOf } from '../../model/record.ts';
import type { ChatMessage, TokenUsage, ToolCall } from '../../model/types.ts';
import { asArgumentText, indexedGroups, numberAttr, textAttr, textOf, unwrapOutputValue, type Attributes, type AttributeStandard, type SpanCategory } from './attributes.ts';

const OPENINFERENCE_KINDS: Record<string, SpanCategory> = recordOf({
  AGENT: 'agent',
  LLM: 'llm',
  TOOL: 'tool',
  CHAIN: 'chain',
  RETRIEVER: 'retriever',
  EMBEDDING: 'embedding',
  RERANKER: 'reranker',
  GUARDRAIL: 'guardrail',
  EVALUATOR: 'evaluator',
  PROMPT: 'chain',
});

function subGroups(group: Map<string, unknown>, prefix: string): ReadonlyMap<number, ReadonlyMap<string, unknown>> {
  const flat: Attributes = {};
  for (const [k, v] of group) if (k.startsWith(prefix)) flat[k] = v;
  return indexedGroups(flat, prefix);
}

/** One OpenInference message from its flattened attributes (`message.role`, `message.content`, …). */
function openInferenceMessage(group: Map<string, unknown>): ChatMessage {
  let content = textOf(group.get('message.content'));
  if (content === undefined) {
    const parts: string[] = [];
    for (const part of subGroups(group, 'message.contents.').values()) {
      const text = textOf(part.get('message_content.text'));
      if (text !== undefined) parts.push(text);
    }
    content = parts.join('\n');
  }
  const message: ChatMessage = { role: textOf(group.get('message.role')) ?? 'unknown', content };
  const name = textOf(group.get('message.name'));
  if (name !== undefined) message.name = name;
  const toolCallId = textOf(group.get('message.tool_call_id'));
  if (toolCallId !== undefined) message.toolCallId = toolCallId;
  const calls: ToolCall[] = [];
  for (const call of subGroups(group, 'message.tool_calls.').values()) {
    const toolName = textOf(call.get('tool_call.function.name'));
    if (toolName === undefined) continue;
    const c: ToolCall = { name: toolName, arguments: asArgumentText(call.get('tool_call.function.arguments')) };
    const id = textOf(call.get('tool_call.id'));
    if (id !== undefined) c.id = id;
    calls.push(c);
  }
  if (calls.length) message.toolCalls = calls;
  return message;
}

const INPUT_MESSAGES = 'llm.input_messages.';
const OUTPUT_MESSAGES = 'llm.output_messages.';

/** Messages being read from flattened `<prefix>N.message.*` attributes. */
interface MessageReader {
  messages: ChatMessage[] | undefined;
  /** Distinct indices seen: fewer than `messages.length` means the export left holes. */
  count: number;
  nested: Map<number, Map<string, unknown>> | undefined;
}

function messageReader(): MessageReader {
  return { messages: undefined, count: 0, nested: undefined };
}

/** Which message field a key sets (plain numbers: this runs once per message attribute). */
const MessageField = {
  Content: 0,
  Role: 1,
  Name: 2,
  ToolCallId: 3,
  /** `message.contents.*` / `message.tool_calls.*`: grouped for openInferenceMessage. */
  Nested: 4,
  Other: 5,
} as const;
type MessageField = (typeof MessageField)[keyof typeof MessageField];

/** A `<prefix>N.<rest>` key taken apart once. */
interface MessageKey {
  n: number;
  field: MessageField;
  /** `<rest>`, kept for nested fields only. */
  rest: string | undefined;
}

/** `key` (its prefix ends at `from`) taken apart; undefined when it is not `<prefix>N.<rest>`. */
function parseMessageKey(key: string, from: number): MessageKey | undefined {
  let i = from;
  let n = 0;
  for (; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  if (i === from || key.charCodeAt(i) !== 46 /* . */ || n > 100_000) return undefined;
  const restStart = i + 1;
  const restLength = key.length - restStart;
  let field: MessageField = MessageField.Other;
  if (restLength === 15 && key.startsWith('message.content', restStart)) field = MessageField.Content;
  else if (restLength === 12 && key.startsWith('message.role', restStart)) field = MessageField.Role;
  else if (restLength === 12 && key.startsWith('message.name', restStart)) field = MessageField.Name;
  else if (restLength === 20 && key.startsWith('message.tool_call_id', restStart)) field = MessageField.ToolCallId;
  else if (key.startsWith('message.contents.', restStart) || key.startsWith('message.tool_calls.', restStart)) field = MessageField.Nested;
  return { n, field, rest: field === MessageField.Nested ? key.slice(restStart) : undefined };
}

/**
 * Message keys taken apart, by key and prefix length. A file repeats the same few dozen keys on every model call, so
 * each is parsed once (a map hit, its hash kept in the key, instead of a prefix compare and digits per attribute).
 * Bounded: cleared when a file with very many distinct keys fills it.
 */
const messageKeys = [new Map<string, MessageKey | null>(), new Map<string, MessageKey | null>()];

function messageKeyOf(key: string, output: 0 | 1, from: number): MessageKey | undefined {
  const cache = messageKeys[output];
  let parsed = cache.get(key);
  if (parsed === undefined) {
    if (cache.size >= 20_000) cache.clear();
    parsed = parseMessageKey(key, from) ?? null;
    cache.set(key, parsed);
  }
  return parsed ?? undefined;
}

/** One attribute (its key taken apart) into the reader. */
function readMessageAttr(reader: MessageReader, parsed: MessageKey, value: unknown): void {
  const n = parsed.n;
  const messages = (reader.messages ??= []);
  let message = messages[n];
  if (message === undefined) {
    message = messages[n] = { role: 'unknown', content: '' };
    reader.count++;
  }
  switch (parsed.field) {
    case MessageField.Content:
      message.content = textOf(value) ?? '';
      break;
    case MessageField.Role:
      message.role = textOf(value) ?? 'unknown';
      break;
    case MessageField.Name: {
      const name = textOf(value);
      if (name !== undefined) message.name = name;
      break;
    }
    case MessageField.ToolCallId: {
      const id = textOf(value);
      if (id !== undefined) message.toolCallId = id;
      break;
    }
    case MessageField.Nested: {
      const nested = (reader.nested ??= new Map());
      let group = nested.get(n);
      if (!group) nested.set(n, (group = new Map()));
      group.set(parsed.rest!, value);
      break;
    }
    default:
      break;
  }
}

function finishMessages(reader: MessageReader): ChatMessage[] | undefined {
  const messages = reader.messages;
  if (!messages) return undefined;
  if (reader.nested) {
    for (const [n, group] of reader.nested) {
      const message = messages[n];
      const full = openInferenceMessage(group);
      if (message.content === '' && full.content !== '') message.content = full.content;
      if (full.toolCalls) message.toolCalls = full.toolCalls;
    }
  }
  // Indices may have gaps in a sloppy export: the messages keep their order, the holes go. Either way the run keeps a
  // copy of the exact length: the array the messages were written into has room for 17 (V8's first growth), which every
  // model call of a large trace would otherwise keep.
  return reader.count === messages.length ? messages.slice() : messages.filter((m) => m !== undefined);
}

/** Messages from flattened attributes (`<prefix>N.message.*`) in one pass over the keys. */
function openInferenceMessages(attrs: Attributes, prefix: string): ChatMessage[] | undefined {
  const reader = messageReader();
  const output = prefix === OUTPUT_MESSAGES ? 1 : 0;
  for (const key in attrs) {
    if (!key.startsWith(prefix)) continue;
    const parsed = prefix === INPUT_MESSAGES || prefix === OUTPUT_MESSAGES ? messageKeyOf(key, output, prefix.length) : parseMessageKey(key, prefix.length);
    if (parsed) readMessageAttr(reader, parsed, attrs[key]);
  }
  return finishMessages(reader);
}


/** An `llm.` key of either message prefix taken apart, with the prefix it has. */
interface PairKey {
  output: boolean;
  parsed: MessageKey;
}

/** `llm.` keys by key: their PairKey, or null for any other `llm.` key. Bounded like messageKeys. */
const pairKeys = new Map<string, PairKey | null>();

function pairKeyOf(key: string): PairKey | null {
  let known = pairKeys.get(key);
  if (known === undefined) {
    if (pairKeys.size >= 20_000) pairKeys.clear();
    // Both prefixes start with `llm.`; the character after it tells them apart.
    const c = key.charCodeAt(4);
    let parsed: MessageKey | undefined;
    let output = false;
    if (c === 105 /* i */ && key.startsWith(INPUT_MESSAGES)) parsed = parseMessageKey(key, INPUT_MESSAGES.length);
    else if (c === 111 /* o */ && key.startsWith(OUTPUT_MESSAGES)) {
      parsed = parseMessageKey(key, OUTPUT_MESSAGES.length);
      output = true;
    }
    known = parsed ? { output, parsed } : null;
    pairKeys.set(key, known);
  }
  return known;
}

/** Input and output messages of a model call from one pass over its keys (a model call has many). */
function openInferenceMessagePair(attrs: Attributes): { input: ChatMessage[] | undefined; output: ChatMessage[] | undefined } {
  let input: MessageReader | undefined;
  let output: MessageReader | undefined;
  for (const key in attrs) {
    if (key.charCodeAt(3) !== 46 /* . */ || !key.startsWith('llm.')) continue;
    // One lookup per key (keys of an attribute record have their hash): no prefix compare per message attribute.
    const known = pairKeyOf(key);
    if (known === null) continue;
    if (known.output) readMessageAttr((output ??= messageReader()), known.parsed, attrs[key]);
    else readMessageAttr((input ??= messageReader()), known.parsed, attrs[key]);
  }
  return { input: input && finishMessages(input), output: output && finishMessages(output) };
}

/** Output text (first output message, else `output.value`) and the tool calls of all output messages. */
function openInferenceOutput(attrs: Attributes, messages: ChatMessage[] | undefined): { text: string | undefined; toolCalls: ToolCall[] | undefined } {
  const first = messages?.[0];
  const text = first && first.content !== '' ? first.content : unwrapOutputValue(textAttr(attrs, 'output.value'));
  let toolCalls: ToolCall[] | undefined;
  if (messages) for (const m of messages) if (m.toolCalls && m.toolCalls.length) for (const call of m.toolCalls) (toolCalls ??= []).push(call);
  return { text, toolCalls };
}

export const openInference: AttributeStandard = {
  id: 'openinference',
  category(attrs) {
    const kind = attrs['openinference.span.kind'];
    // As written (`LLM`, the usual case) before an uppercased copy.
    return (typeof kind === 'string' && (OPENINFERENCE_KINDS[kind] || OPENINFERENCE_KINDS[kind.toUpperCase()])) || 'unknown';
  },
  usage(attrs) {
    const input = numberAttr(attrs, 'llm.token_count.prompt');
    const output = numberAttr(attrs, 'llm.token_count.completion');
    const total = numberAttr(attrs, 'llm.token_count.total');
    if (input === undefined && output === undefined && total === undefined) return undefined;
    const usage: TokenUsage = { input: input ?? 0, output: output ?? 0, total: total ?? (input ?? 0) + (output ?? 0) };
    const cached = numberAttr(attrs, 'llm.token_count.prompt_details.cache_read');
    if (cached !== undefined) usage.cached = cached;
    const cost = numberAttr(attrs, 'llm.cost.total');
    if (cost !== undefined) usage.cost = cost;
    return usage;
  },
  model: (attrs) => textAttr(attrs, 'llm.model_name'),
  inputMessages: (attrs) => openInferenceMessages(attrs, INPUT_MESSAGES),
  outputText: (attrs) => openInference.output(attrs).text,
  outputToolCalls: (attrs) => openInference.output(attrs).toolCalls,
  output(attrs) {
    const out = openInferenceOutput(attrs, openInferenceMessages(attrs, OUTPUT_MESSAGES));
    const result: { text?: string; toolCalls?: ToolCall[] } = {};
    if (out.text !== undefined) result.text = out.text;
    if (out.toolCalls !== undefined) result.toolCalls = out.toolCalls;
    return result;
  },
  modelCall(attrs) {
    const { input, output } = openInferenceMessagePair(attrs);
    const out = openInferenceOutput(attrs, output);
    return { input, text: out.text, toolCalls: out.toolCalls };
  },
  inputText: (attrs) => textAttr(attrs, 'input.value'),
  toolName: (attrs) => textAttr(attrs, 'tool.name') ?? textAttr(attrs, 'tool_call.function.name'),
  agentName: (attrs) => textAttr(attrs, 'agent.name') ?? textAttr(attrs, 'graph.node.name') ?? textAttr(attrs, 'graph.node.id'),
};
