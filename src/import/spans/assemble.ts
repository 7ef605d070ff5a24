// Span forest → Run, shared by the OTLP and the nested span-tree importers. Format modules turn their documents
// into flat SpanRecords; this module builds the tree (keeping orphans as roots), categorises every span with one
// categoriser per attribute standard (OpenInference, OTel GenAI) and assembles the canonical model.
import type { Agent, AgentRun, ChatMessage, Handoff, Run, SourceFormat, Step, StepError, ToolCall, TokenUsage } from '../../model/types.ts';
import { estimateUsage } from '../tokens.ts';

export type Attributes = Record<string, unknown>;

export interface SpanEvent {
  name: string;
  time?: number;
  attributes: Attributes;
}

export interface SpanRecord {
  id: string;
  parentId?: string;
  traceId: string;
  name: string;
  start?: number;
  end?: number;
  attributes: Attributes;
  status: 'ok' | 'error' | 'unset';
  statusMessage?: string;
  events: SpanEvent[];
  /** Instrumentation scope (`openinference.instrumentation.smolagents`), when the format records it. */
  scope?: string;
  /** Position in the file: breaks start-time ties so replay order is stable. */
  order: number;
}

export type SpanCategory =
  | 'agent'
  | 'llm'
  | 'tool'
  | 'chain'
  | 'retriever'
  | 'embedding'
  | 'reranker'
  | 'guardrail'
  | 'evaluator'
  | 'unknown';

export interface SpanNode {
  span: SpanRecord;
  category: SpanCategory;
  standard: AttributeStandard;
  parent?: SpanNode;
  children: SpanNode[];
  /** A model call's reading of its attributes, kept for the second reader (smolagents' action step and the call). */
  io?: ModelCallIo;
}

export interface SpanForest {
  traceId: string;
  roots: SpanNode[];
  /** Spans whose parent id is set but not in the file: kept as roots, counted, never dropped. */
  orphans: number;
  /** Spans repeated under the same id (an exporter artefact): the first copy is kept. */
  duplicates: number;
  size: number;
  /** Every node of the forest, in file order (for the readers whose result does not depend on the order). */
  nodes: SpanNode[];
}

// ---------------------------------------------------------------------------------------------------------------
// Attribute values. Exporters write numbers as doubles, ints, or strings ("1454"); all must be read.

export function numberAttr(attrs: Attributes, key: string): number | undefined {
  const v = attrs[key];
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** A text attribute; non-string values are shown as JSON so nothing recorded is hidden. */
export function textAttr(attrs: Attributes, key: string): string | undefined {
  const v = attrs[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

function parseJsonLoose(text: string): unknown {
  const first = text.charCodeAt(0);
  // Only objects and arrays are worth parsing; a bare string would be returned as itself anyway.
  if (first !== 123 /* { */ && first !== 91 /* [ */) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonValueAttr(attrs: Attributes, key: string): unknown {
  const v = attrs[key];
  return typeof v === 'string' ? parseJsonLoose(v) : v;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringField(o: unknown, key: string): string | undefined {
  if (!isRecord(o)) return undefined;
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

function asArgumentText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Attribute standards: one categoriser per standard, same shape (AgentPrism's adapter idea).

export interface AttributeStandard {
  id: 'openinference' | 'gen_ai' | 'none';
  category(attrs: Attributes): SpanCategory;
  usage(attrs: Attributes): TokenUsage | undefined;
  model(attrs: Attributes): string | undefined;
  inputMessages(attrs: Attributes): ChatMessage[] | undefined;
  /** Model output text (LLM spans) or the span's output (others). */
  outputText(attrs: Attributes): string | undefined;
  outputToolCalls(attrs: Attributes): ToolCall[] | undefined;
  /** Both of the above from one reading of the attributes. */
  output(attrs: Attributes): { text?: string; toolCalls?: ToolCall[] };
  /** What a model call read and wrote (inputMessages + output) from one reading of the attributes. */
  modelCall(attrs: Attributes): ModelCallIo;
  inputText(attrs: Attributes): string | undefined;
  toolName(attrs: Attributes): string | undefined;
  agentName(attrs: Attributes): string | undefined;
}

export interface ModelCallIo {
  input: ChatMessage[] | undefined;
  text: string | undefined;
  toolCalls: ToolCall[] | undefined;
}

/** modelCall for standards whose messages are not worth reading in one pass. */
function modelCallOf(std: AttributeStandard, attrs: Attributes): ModelCallIo {
  const { text, toolCalls } = std.output(attrs);
  return { input: std.inputMessages(attrs), text, toolCalls };
}

const OPENINFERENCE_KINDS: Record<string, SpanCategory> = {
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
};

/** Indexed flat attributes (`prefix.N.rest`) grouped by N, in index order. */
function indexedGroups(attrs: Attributes, prefix: string): Map<number, Map<string, unknown>> {
  const groups = new Map<number, Map<string, unknown>>();
  for (const key in attrs) {
    if (!key.startsWith(prefix)) continue;
    let i = prefix.length;
    let n = 0;
    let digits = 0;
    for (; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c < 48 || c > 57) break;
      n = n * 10 + (c - 48);
      digits++;
    }
    if (digits === 0 || key.charCodeAt(i) !== 46 /* . */) continue;
    let group = groups.get(n);
    if (!group) groups.set(n, (group = new Map()));
    group.set(key.slice(i + 1), attrs[key]);
  }
  return new Map([...groups.entries()].sort((a, b) => a[0] - b[0]));
}

function subGroups(group: Map<string, unknown>, prefix: string): Map<number, Map<string, unknown>> {
  const flat: Attributes = {};
  for (const [k, v] of group) if (k.startsWith(prefix)) flat[k] = v;
  return indexedGroups(flat, prefix);
}

function textOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : asArgumentText(v);
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
  // Indices may have gaps in a sloppy export: the messages keep their order, the holes go.
  return reader.count === messages.length ? messages : messages.filter((m) => m !== undefined);
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


/** Input and output messages of a model call from one pass over its keys (a model call has many). */
function openInferenceMessagePair(attrs: Attributes): { input: ChatMessage[] | undefined; output: ChatMessage[] | undefined } {
  let input: MessageReader | undefined;
  let output: MessageReader | undefined;
  for (const key in attrs) {
    // Both prefixes start with `llm.`; the character after it tells them apart.
    if (key.charCodeAt(3) !== 46 /* . */ || !key.startsWith('llm.')) continue;
    const c = key.charCodeAt(4);
    if (c === 105 /* i */ && key.startsWith(INPUT_MESSAGES)) {
      const parsed = messageKeyOf(key, 0, INPUT_MESSAGES.length);
      if (parsed) readMessageAttr((input ??= messageReader()), parsed, attrs[key]);
    } else if (c === 111 /* o */ && key.startsWith(OUTPUT_MESSAGES)) {
      const parsed = messageKeyOf(key, 1, OUTPUT_MESSAGES.length);
      if (parsed) readMessageAttr((output ??= messageReader()), parsed, attrs[key]);
    }
  }
  return { input: input && finishMessages(input), output: output && finishMessages(output) };
}

/** The text inside a recorded output value: `{"content": …}` / `{"text": …}` JSON, else the value as it is. */
function unwrapOutputValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseJsonLoose(value);
  return stringField(parsed, 'content') ?? stringField(parsed, 'text') ?? stringField(parsed, 'output') ?? value;
}

/** Output text (first output message, else `output.value`) and the tool calls of all output messages. */
function openInferenceOutput(attrs: Attributes, messages: ChatMessage[] | undefined): { text: string | undefined; toolCalls: ToolCall[] | undefined } {
  const first = messages?.[0];
  const text = first && first.content !== '' ? first.content : unwrapOutputValue(textAttr(attrs, 'output.value'));
  let toolCalls: ToolCall[] | undefined;
  if (messages) for (const m of messages) if (m.toolCalls && m.toolCalls.length) (toolCalls ??= []).push(...m.toolCalls);
  return { text, toolCalls };
}

const openInference: AttributeStandard = {
  id: 'openinference',
  category(attrs) {
    const kind = attrs['openinference.span.kind'];
    return (typeof kind === 'string' && OPENINFERENCE_KINDS[kind.toUpperCase()]) || 'unknown';
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

const GEN_AI_OPERATIONS: Record<string, SpanCategory> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  completion: 'llm',
  embeddings: 'embedding',
  invoke_agent: 'agent',
  create_agent: 'agent',
  execute_tool: 'tool',
};

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

const genAi: AttributeStandard = {
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
  outputText(attrs) {
    const messages = genAiMessages(jsonValueAttr(attrs, 'gen_ai.output.messages')) ?? genAiLegacyMessages(attrs, 'gen_ai.completion');
    if (messages && messages.length) return messages.map((m) => m.content).join('\n');
    return (
      unwrapOutputValue(textAttr(attrs, 'gen_ai.completion')) ??
      textAttr(attrs, 'gen_ai.tool.call.result') ??
      unwrapOutputValue(textAttr(attrs, 'output.value') ?? textAttr(attrs, 'output'))
    );
  },
  outputToolCalls: (attrs) => genAiMessages(jsonValueAttr(attrs, 'gen_ai.output.messages'))?.flatMap((m) => m.toolCalls ?? []),
  output(attrs) {
    const out: { text?: string; toolCalls?: ToolCall[] } = {};
    const text = genAi.outputText(attrs);
    if (text !== undefined) out.text = text;
    const toolCalls = genAi.outputToolCalls(attrs);
    if (toolCalls && toolCalls.length) out.toolCalls = toolCalls;
    return out;
  },
  modelCall: (attrs) => modelCallOf(genAi, attrs),
  inputText: (attrs) => textAttr(attrs, 'gen_ai.tool.call.arguments') ?? textAttr(attrs, 'input.value') ?? textAttr(attrs, 'input'),
  toolName: (attrs) => textAttr(attrs, 'gen_ai.tool.name'),
  agentName: (attrs) => textAttr(attrs, 'gen_ai.agent.name'),
};

/** Spans with neither standard: only the generic `input.value` / `output.value` are read. */
const noStandard: AttributeStandard = {
  id: 'none',
  category: () => 'unknown',
  usage: () => undefined,
  model: () => undefined,
  inputMessages: () => undefined,
  outputText: (attrs) => textAttr(attrs, 'output.value'),
  outputToolCalls: () => undefined,
  output(attrs) {
    const text = textAttr(attrs, 'output.value');
    return text !== undefined ? { text } : {};
  },
  modelCall: (attrs) => modelCallOf(noStandard, attrs),
  inputText: (attrs) => textAttr(attrs, 'input.value'),
  toolName: () => undefined,
  agentName: () => undefined,
};

export const ATTRIBUTE_STANDARDS = { openInference, genAi, noStandard } as const;

export function standardOf(attrs: Attributes): AttributeStandard {
  if (attrs['openinference.span.kind'] !== undefined) return openInference;
  if (
    attrs['gen_ai.operation.name'] !== undefined ||
    attrs['gen_ai.system'] !== undefined ||
    attrs['gen_ai.provider.name'] !== undefined ||
    attrs['gen_ai.request.model'] !== undefined ||
    attrs['gen_ai.tool.name'] !== undefined ||
    attrs['gen_ai.agent.name'] !== undefined
  ) {
    return genAi;
  }
  return noStandard;
}

// ---------------------------------------------------------------------------------------------------------------
// The forest.

function byStart(a: SpanNode, b: SpanNode): number {
  const sa = a.span.start ?? Infinity;
  const sb = b.span.start ?? Infinity;
  if (sa !== sb) return sa < sb ? -1 : 1;
  return a.span.order - b.span.order;
}

export function buildForest(traceId: string, spans: SpanRecord[]): SpanForest {
  const nodes = new Map<string, SpanNode>();
  let duplicates = 0;
  const kept: SpanNode[] = [];
  for (const span of spans) {
    if (nodes.has(span.id)) {
      duplicates++;
      continue;
    }
    const standard = standardOf(span.attributes);
    const node: SpanNode = { span, category: standard.category(span.attributes), standard, parent: undefined, children: [], io: undefined };
    nodes.set(span.id, node);
    kept.push(node);
  }
  const roots: SpanNode[] = [];
  let orphans = 0;
  for (const node of kept) {
    const parentId = node.span.parentId;
    const parent = parentId !== undefined ? nodes.get(parentId) : undefined;
    if (parent) {
      node.parent = parent;
      parent.children.push(node);
    } else {
      if (parentId !== undefined) orphans++;
      roots.push(node);
    }
  }
  breakCycles(kept, roots);
  for (const node of kept) {
    const children = node.children;
    if (children.length === 2) {
      // The common case (a step's model call and tool call), without the allocations of a sort call.
      if (byStart(children[0], children[1]) > 0) children.reverse();
    } else if (children.length > 2) children.sort(byStart);
  }
  roots.sort(byStart);
  return { traceId, roots, orphans, duplicates, size: kept.length, nodes: kept };
}

/**
 * Spans whose parent chain loops (a malformed file) are unreachable from the roots and would make a walk endless:
 * each loop is cut at one span, which becomes a root. Linear in the number of spans.
 */
function breakCycles(nodes: SpanNode[], roots: SpanNode[]): void {
  // Without a loop every node is reached from the roots exactly once (each has one parent): count before keeping a set.
  let count = 0;
  const stack = roots.slice();
  while (stack.length) {
    const node = stack.pop()!;
    count++;
    for (const child of node.children) stack.push(child);
  }
  if (count === nodes.length) return;
  const reached = new Set<SpanNode>();
  const mark = (from: SpanNode) => {
    for (const n of walkForest([from])) reached.add(n);
  };
  for (const root of roots) mark(root);
  if (reached.size === nodes.length) return;
  for (const node of nodes) {
    if (reached.has(node)) continue;
    const parent = node.parent;
    if (parent) parent.children.splice(parent.children.indexOf(node), 1);
    node.parent = undefined;
    roots.push(node);
    mark(node);
  }
}

/** Pre-order, iterative (deep trees must not overflow the stack). */
export function* walkForest(roots: SpanNode[]): Generator<SpanNode> {
  const stack = [...roots].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    yield node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading one span.

export function stepIdOfSpan(spanId: string): string {
  return `span-${spanId}`;
}

export function spanError(span: SpanRecord): StepError | undefined {
  if (span.status === 'error') {
    const message = span.statusMessage || exceptionOf(span)?.message || 'error';
    const colon = /^([A-Za-z_][\w.]*(?:Error|Exception)): /.exec(message);
    return colon ? { message, type: colon[1] } : { message };
  }
  const exception = exceptionOf(span);
  if (exception) return exception;
  const attrError = textAttr(span.attributes, 'error.message') ?? textAttr(span.attributes, 'error');
  if (attrError !== undefined && attrError !== '' && attrError !== 'false') {
    const type = textAttr(span.attributes, 'error.type');
    return type !== undefined ? { message: attrError, type } : { message: attrError };
  }
  return undefined;
}

function exceptionOf(span: SpanRecord): StepError | undefined {
  for (const event of span.events) {
    if (event.name !== 'exception') continue;
    const message = textAttr(event.attributes, 'exception.message') ?? 'exception';
    const type = textAttr(event.attributes, 'exception.type');
    return type !== undefined ? { message, type } : { message };
  }
  return undefined;
}

/** The first non-blank line, trimmed. */
export function firstLine(text: string): string {
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t) return t;
  }
  return '';
}

const TASK_PREAMBLES = ['Here is the task:', 'New task:', 'Task:'];

/** A title a person recognises: the question itself when a framework wrapped it in boilerplate, shortened. */
export function titleFromTask(task: string | undefined, fallback: string): string {
  if (!task) return fallback;
  let text = task;
  for (const marker of TASK_PREAMBLES) {
    const at = text.lastIndexOf(marker);
    if (at !== -1) {
      text = text.slice(at + marker.length);
      break;
    }
  }
  const line = firstLine(text) || firstLine(task);
  if (!line) return fallback;
  return line.length > 100 ? `${line.slice(0, 99).trimEnd()}…` : line;
}

// ---------------------------------------------------------------------------------------------------------------
// Assembling a run.

const SYSTEM_AGENT_ID = 'system';

/** A step's content before the assembler gives it an id, a position and an agent. */
export type StepFields = Partial<Step> & { kind: Step['kind'] };

/** Steps whose agent is decided after the walk (model calls outside every agent run). */
interface UnownedStep {
  step: Step;
}

export class RunAssembler {
  readonly agents = new Map<string, Agent>();
  readonly agentRuns: AgentRun[] = [];
  readonly topLevelRuns: AgentRun[] = [];
  readonly steps: Step[] = [];
  readonly handoffs: Handoff[] = [];
  readonly models = new Set<string>();
  private readonly unowned: UnownedStep[] = [];
  private readonly usedStepIds = new Set<string>();

  agentNamed(name: string): Agent {
    const id = `agent-${name}`;
    let agent = this.agents.get(id);
    if (!agent) {
      agent = { id, name, kind: 'agent' };
      this.agents.set(id, agent);
    }
    return agent;
  }

  addAgentRun(run: AgentRun, parent: AgentRun | undefined): void {
    this.agentRuns.push(run);
    if (!parent) this.topLevelRuns.push(run);
  }

  /** Delegation (the local task) and report (the answer) between a manager's run and a managed agent's run. */
  addDelegation(manager: AgentRun, managed: AgentRun, stepId: string | undefined): void {
    const base = managed.spanId ?? managed.id;
    const delegation: Handoff = { id: `handoff-${base}-delegation`, from: manager.agentId, to: [managed.agentId], kind: 'delegation', content: managed.task ?? '' };
    if (stepId) delegation.stepId = stepId;
    this.handoffs.push(delegation);
    if (managed.output !== undefined) {
      const report: Handoff = { id: `handoff-${base}-report`, from: managed.agentId, to: [manager.agentId], kind: 'report', content: managed.output };
      if (stepId) report.stepId = stepId;
      this.handoffs.push(report);
    }
  }

  /** Adds a step made from a span; `owner` undefined means "decide later" (outside every agent run). */
  addSpanStep(node: SpanNode, fields: StepFields, owner: AgentRun | undefined): Step {
    let id = stepIdOfSpan(node.span.id);
    if (this.usedStepIds.has(id)) id = `${id}-${this.steps.length}`;
    this.usedStepIds.add(id);
    // The fields object becomes the step (no copy: this runs once per span).
    const step = fields as Step;
    step.id = id;
    step.index = 0;
    step.agentId = owner?.agentId ?? SYSTEM_AGENT_ID;
    if (owner) step.agentRunId = owner.id;
    else this.unowned.push({ step });
    this.steps.push(step);
    return step;
  }

  /** A new step's fields: its kind and the common span fields, in this key order. */
  newFields(kind: Step['kind'], node: SpanNode): StepFields {
    const s = node.span;
    const fields: StepFields = { kind, spanId: s.id, name: s.name, raw: s.attributes };
    if (s.parentId !== undefined) fields.parentSpanId = s.parentId;
    if (s.start !== undefined) fields.startTime = s.start;
    if (s.end !== undefined) fields.endTime = s.end;
    return fields;
  }

  /** What a model call read and wrote; read once per span even when two steps need it. */
  modelCall(node: SpanNode): ModelCallIo {
    return (node.io ??= node.standard.modelCall(node.span.attributes));
  }

  /** Common span fields of a step. */
  spanFields(node: SpanNode): Pick<Step, 'spanId' | 'parentSpanId' | 'startTime' | 'endTime' | 'raw' | 'name'> {
    const s = node.span;
    const fields: Pick<Step, 'spanId' | 'parentSpanId' | 'startTime' | 'endTime' | 'raw' | 'name'> = { spanId: s.id, name: s.name, raw: s.attributes };
    if (s.parentId !== undefined) fields.parentSpanId = s.parentId;
    if (s.start !== undefined) fields.startTime = s.start;
    if (s.end !== undefined) fields.endTime = s.end;
    return fields;
  }

  /** A model call. Usage is recorded only here (never on aggregates); estimated with a tokenizer when missing. */
  addModelCall(node: SpanNode, kind: 'llm' | 'planning', owner: AgentRun | undefined, parentStepId: string | undefined): Step {
    const attrs = node.span.attributes;
    const std = node.standard;
    const { input, text: output, toolCalls: calls } = this.modelCall(node);
    const fields = this.newFields(kind, node);
    if (parentStepId) fields.parentStepId = parentStepId;
    if (input) fields.input = input;
    else {
      const inputText = std.inputText(attrs);
      if (inputText !== undefined) fields.inputText = inputText;
    }
    if (output !== undefined) fields.output = output;
    if (calls) fields.toolCalls = calls;
    const model = std.model(attrs);
    if (model !== undefined) {
      fields.model = model;
      this.models.add(model);
    }
    const recorded = std.usage(attrs);
    // Our own OTLP export flags counts a tokenizer made: they stay estimates (see src/export/otlp.ts).
    const flag = (key: string) => attrs[key] === true || attrs[key] === 'true';
    const usage = recorded ? (flag('mas_replay.usage.estimated') ? { ...recorded, estimated: true } : recorded) : flag('mas_replay.usage.none') ? undefined : this.estimate(fields);
    if (usage) fields.usage = usage;
    const error = spanError(node.span);
    if (error) fields.error = error;
    return this.addSpanStep(node, fields, owner);
  }

  private estimate(fields: Pick<Step, 'input' | 'inputText' | 'output'>): TokenUsage | undefined {
    const inputText = fields.input ? fields.input.map((m) => m.content).join('\n') : (fields.inputText ?? '');
    const outputText = fields.output ?? '';
    if (inputText === '' && outputText === '') return undefined;
    return estimateUsage(inputText, outputText);
  }

  addToolCall(node: SpanNode, owner: AgentRun | undefined, parentStepId: string | undefined): Step {
    const attrs = node.span.attributes;
    const std = node.standard;
    const name = std.toolName(attrs) ?? node.span.name;
    const args = std.inputText(attrs) ?? '';
    // Same keys and order as `{ kind, ...spanFields, name, toolCalls }`: `name` keeps its place, with the tool's name.
    const fields = this.newFields('tool', node);
    fields.name = name;
    fields.toolCalls = [{ name, arguments: args }];
    if (args !== '') fields.inputText = args;
    if (parentStepId) fields.parentStepId = parentStepId;
    const output = std.outputText(attrs);
    if (output !== undefined) fields.observation = output;
    const error = spanError(node.span);
    if (error) fields.error = error;
    return this.addSpanStep(node, fields, owner);
  }

  /**
   * Model and tool calls outside every agent run belong to the nearest agent: the last top-level agent run that
   * started before them, else the first one; with no agent runs at all, to a `system` agent.
   */
  private settleUnowned(): void {
    if (this.unowned.length === 0) return;
    const runs = [...this.topLevelRuns].sort((a, b) => (a.startTime ?? 0) - (b.startTime ?? 0));
    for (const { step } of this.unowned) {
      let owner: AgentRun | undefined = runs[0];
      for (const run of runs) if (run.startTime !== undefined && step.startTime !== undefined && run.startTime <= step.startTime) owner = run;
      if (owner) step.agentId = owner.agentId;
      else if (!this.agents.has(SYSTEM_AGENT_ID)) this.agents.set(SYSTEM_AGENT_ID, { id: SYSTEM_AGENT_ID, name: 'system', kind: 'system' });
    }
  }

  finish(base: { id: string; title: string; task?: string; sourceFormat: SourceFormat; framework?: string; forest: SpanForest; finalAnswer?: string; raw?: Record<string, unknown> }): Run {
    this.settleUnowned();
    this.steps.forEach((s, i) => {
      s.index = i;
      if (s.model !== undefined) {
        const agent = this.agents.get(s.agentId);
        if (agent && agent.model === undefined) agent.model = s.model;
      }
    });
    let start: number | undefined;
    let end: number | undefined;
    for (const node of base.forest.nodes) {
      const s = node.span;
      if (s.start !== undefined && (start === undefined || s.start < start)) start = s.start;
      const e = s.end ?? s.start;
      if (e !== undefined && (end === undefined || e > end)) end = e;
    }
    const run: Run = {
      id: base.id,
      title: base.title,
      sourceFormat: base.sourceFormat,
      models: [...this.models].sort(),
      outcome: base.finalAnswer !== undefined ? { status: 'unknown', finalAnswer: base.finalAnswer } : { status: 'unknown' },
      tags: {},
      agents: [...this.agents.values()],
      agentRuns: this.agentRuns,
      steps: this.steps,
      handoffs: this.handoffs,
      annotations: [],
      interventions: [],
      orphanSpans: base.forest.orphans,
    };
    if (base.task !== undefined) run.task = base.task;
    if (base.framework !== undefined) run.framework = base.framework;
    if (start !== undefined) run.startTime = start;
    if (end !== undefined) run.endTime = end;
    if (base.raw && Object.keys(base.raw).length) run.raw = base.raw;
    return run;
  }
}

/** The framework named by the instrumentation scope (`openinference.instrumentation.langchain` → langchain). */
export function frameworkOf(forest: SpanForest): string | undefined {
  // Distinct scopes first (one string per scope block, shared by its spans): one slice per scope, not per span.
  const scopes = new Set<string>();
  for (const node of forest.nodes) {
    const scope = node.span.scope;
    if (scope) scopes.add(scope);
  }
  const found = new Set<string>();
  for (const scope of scopes) if (scope.startsWith('openinference.instrumentation.')) found.add(scope.slice('openinference.instrumentation.'.length));
  return found.size ? [...found].sort().join('+') : undefined;
}

/** The task text of an agent span's input: plain text, or the `task` / `input` / `question` / `query` field of a
 *  JSON object; undefined for JSON that has none of them (framework state rather than a task). */
export function taskFromInput(input: string | undefined): string | undefined {
  if (input === undefined) return undefined;
  const parsed = parseJsonLoose(input);
  if (parsed === undefined) return input;
  for (const key of ['task', 'input', 'question', 'query']) {
    const v = stringField(parsed, key);
    if (v !== undefined) return v;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Generic spans (LangChain, LlamaIndex, OpenAI Agents, any OTel GenAI emitter): model, tool and agent calls.

interface GenericContext {
  run?: AgentRun;
  parentStepId?: string;
}

/** An AGENT span nested in another agent run is a new agent only when it is named; LangChain marks its runnables
 *  AGENT too, and each of those is not an agent of its own. */
function startsAgentRun(node: SpanNode, ctx: GenericContext): boolean {
  return node.category === 'agent' && (!ctx.run || node.standard.agentName(node.span.attributes) !== undefined);
}

export function genericSpansToRun(forest: SpanForest, sourceFormat: SourceFormat): Run {
  const asm = new RunAssembler();
  // Two parallel stacks: no object per visited span.
  const nodes: SpanNode[] = [];
  const contexts: GenericContext[] = [];
  const top: GenericContext = {};
  for (let i = forest.roots.length - 1; i >= 0; i--) {
    nodes.push(forest.roots[i]);
    contexts.push(top);
  }
  let firstTask: string | undefined;
  while (nodes.length) {
    const node = nodes.pop()!;
    const ctx = contexts.pop()!;
    const attrs = node.span.attributes;
    let childCtx = ctx;
    if (startsAgentRun(node, ctx)) {
      const name = node.standard.agentName(attrs) ?? node.span.name;
      const agent = asm.agentNamed(name);
      if (ctx.run && ctx.run.agentId !== agent.id) agent.parentId ??= ctx.run.agentId;
      const model = node.standard.model(attrs);
      if (model !== undefined) agent.model ??= model;
      const run: AgentRun = { id: `run-${node.span.id}`, agentId: agent.id, spanId: node.span.id };
      if (ctx.run) run.parentRunId = ctx.run.id;
      const input = node.standard.inputText(attrs);
      const task = taskFromInput(input);
      if (task !== undefined || input !== undefined) run.task = task ?? input;
      const output = node.standard.outputText(attrs);
      if (output !== undefined) run.output = output;
      if (node.span.start !== undefined) run.startTime = node.span.start;
      if (node.span.end !== undefined) run.endTime = node.span.end;
      asm.addAgentRun(run, ctx.run);
      if (ctx.run) asm.addDelegation(ctx.run, run, ctx.parentStepId);
      if (!ctx.run && firstTask === undefined) firstTask = task;
      childCtx = { run };
    } else if (node.category === 'llm' || node.category === 'embedding') {
      const step = asm.addModelCall(node, 'llm', ctx.run, ctx.parentStepId);
      childCtx = { run: ctx.run, parentStepId: step.id };
    } else if (node.category === 'tool' || node.category === 'retriever') {
      const step = asm.addToolCall(node, ctx.run, ctx.parentStepId);
      childCtx = { run: ctx.run, parentStepId: step.id };
    }
    for (let i = node.children.length - 1; i >= 0; i--) {
      nodes.push(node.children[i]);
      contexts.push(childCtx);
    }
  }
  const task = firstTask ?? firstUserMessage(asm.steps);
  const root = forest.roots[0];
  const topRun = asm.topLevelRuns[0];
  return asm.finish({
    id: forest.traceId,
    title: titleFromTask(task, root ? root.span.name : forest.traceId),
    task,
    sourceFormat,
    framework: frameworkOf(forest),
    forest,
    finalAnswer: topRun?.output,
  });
}

export function firstUserMessage(steps: Step[]): string | undefined {
  for (const step of steps) {
    const user = step.input?.find((m) => m.role === 'user');
    if (user && user.content) return user.content;
  }
  return undefined;
}
