// Attribute maps of spans: reading their values (exporters write numbers as doubles, ints or strings) and the one
// shape every attribute standard's reader has (AgentPrism's adapter idea), with the reader for spans of no standard.
// The OpenInference and OTel GenAI readers are in openinference.ts and genai.ts.
import type { ChatMessage, TokenUsage, ToolCall } from '../../model/types.ts';

export type Attributes = Record<string, unknown>;

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

export function parseJsonLoose(text: string): unknown {
  const first = text.charCodeAt(0);
  // Only objects and arrays are worth parsing; a bare string would be returned as itself anyway.
  if (first !== 123 /* { */ && first !== 91 /* [ */) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function jsonValueAttr(attrs: Attributes, key: string): unknown {
  const v = attrs[key];
  return typeof v === 'string' ? parseJsonLoose(v) : v;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function stringField(o: unknown, key: string): string | undefined {
  if (!isRecord(o)) return undefined;
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

export function asArgumentText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** indexedGroups' answer when no key has the prefix: one empty map for all (it is asked of every tool span). */
const NO_GROUPS: ReadonlyMap<number, ReadonlyMap<string, unknown>> = new Map();

/** Indexed flat attributes (`prefix.N.rest`) grouped by N, in index order. */
export function indexedGroups(attrs: Attributes, prefix: string): ReadonlyMap<number, ReadonlyMap<string, unknown>> {
  let groups: Map<number, Map<string, unknown>> | undefined;
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
    groups ??= new Map();
    let group = groups.get(n);
    if (!group) groups.set(n, (group = new Map()));
    group.set(key.slice(i + 1), attrs[key]);
  }
  // Most spans have no such keys (every tool span is asked for indexed completions): no sorted copy of an empty map.
  if (groups === undefined) return NO_GROUPS;
  return groups.size < 2 ? groups : new Map([...groups.entries()].sort((a, b) => a[0] - b[0]));
}

export function textOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : asArgumentText(v);
}

/** The text inside a recorded output value: `{"content": …}` / `{"text": …}` JSON, else the value as it is. */
export function unwrapOutputValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseJsonLoose(value);
  return stringField(parsed, 'content') ?? stringField(parsed, 'text') ?? stringField(parsed, 'output') ?? value;
}

// ---------------------------------------------------------------------------------------------------------------
// Attribute standards: one categoriser per standard, same shape (AgentPrism's adapter idea).

export interface AttributeStandard {
  id: 'openinference' | 'gen_ai' | 'custom' | 'none';
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
export function modelCallOf(std: AttributeStandard, attrs: Attributes): ModelCallIo {
  const { text, toolCalls } = std.output(attrs);
  return { input: std.inputMessages(attrs), text, toolCalls };
}

/** Spans with neither standard: only the generic `input.value` / `output.value` are read. */
export const noStandard: AttributeStandard = {
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
