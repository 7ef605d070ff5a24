// The OpenTelemetry GenAI semantic conventions: `gen_ai.operation.name`, structured messages (and the deprecated
// indexed prompt / completion keys), token usage.
import { recordOf } from '../../model/record.ts';
import type { ChatMessage, TokenUsage, ToolCall } from '../../model/types.ts';
import { asArgumentText, indexedGroups, isRecord, modelCallOf, numberAttr, textAttr, parseJsonLoose, textOf, unwrapOutputValue, type Attributes, type AttributeStandard, type SpanCategory } from './attributes.ts';
import { skipJsonSpace } from '../json-text.ts';

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

/**
 * The messages of a GenAI messages attribute: genAiMessages of its value, parsed when it is JSON text. The usual text
 * (text parts only, no escapes) is read from the text itself (plainTextMessages): no JSON.parse and no parsed objects
 * per model call (the flat 100k-span trace's two messages attributes per call were a JSON.parse each, ~10 % of its
 * mapping, and their parsed objects garbage right after).
 */
function messagesAttr(attrs: Attributes, key: string): ChatMessage[] | undefined {
  const v = attrs[key];
  if (typeof v !== 'string') return genAiMessages(v);
  return plainTextMessages(v) ?? genAiMessages(parseJsonLoose(v));
}

/** genAiMessages(parseJsonLoose(text)) as messagesAttr reads it: for tests, which compare it with that. */
export function genAiMessagesOfText(text: string): ChatMessage[] | undefined {
  return messagesAttr({ text }, 'text');
}

/** Where the JSON string opening at `i` ends (just past its closing quote), or -1 when it has an escape or a control character (or is not closed). */
function plainStringEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== 34 /* " */) return -1;
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 34) return j + 1;
    if (c < 32 || c === 92 /* \ */) return -1;
  }
  return -1;
}

/** Whether the string from `start` to `end` (quotes included) is `"word"`. */
function isKey(text: string, start: number, end: number, word: string): boolean {
  return end - start === word.length + 2 && text.startsWith(word, start + 1);
}

/** Where a member's value starts, given its key ending at `keyEnd`: past the colon and the space around it; -1 without a colon. */
function valueStart(text: string, keyEnd: number): number {
  const i = skipJsonSpace(text, keyEnd);
  return text.charCodeAt(i) === 58 /* : */ ? skipJsonSpace(text, i + 1) : -1;
}

/** The text of the part read last by readTextPart (one slot: no object per part). */
let partText = '';

/**
 * One part `{"type":"text","content":"…"}`, its two keys in either order and nothing else, from its `{` at `i`: the
 * index of its `}`, its text in `partText`; -1 for any other form.
 */
function readTextPart(text: string, i: number): number {
  if (text.charCodeAt(i) !== 123 /* { */) return -1;
  let content: string | undefined;
  let typed = false;
  i = skipJsonSpace(text, i + 1);
  for (;;) {
    const keyEnd = plainStringEnd(text, i);
    if (keyEnd < 0) return -1;
    const keyStart = i;
    i = valueStart(text, keyEnd);
    const end = i < 0 ? -1 : plainStringEnd(text, i);
    if (end < 0) return -1;
    if (isKey(text, keyStart, keyEnd, 'type')) {
      if (typed || !isKey(text, i, end, 'text')) return -1;
      typed = true;
    } else if (isKey(text, keyStart, keyEnd, 'content')) {
      if (content !== undefined) return -1;
      content = text.slice(i + 1, end - 1);
    } else return -1;
    i = skipJsonSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 44 /* , */) i = skipJsonSpace(text, i + 1);
    else if (c === 125 /* } */) break;
    else return -1;
  }
  if (!typed || content === undefined) return -1;
  partText = content;
  return i;
}

/**
 * genAiMessages(JSON.parse(text)) for the usual form of GenAI messages, read from the text: a JSON array of objects
 * whose keys are `role` (a string), `parts` (an array of `{"type":"text","content":…}` in any key order) and others
 * whose values are strings, true, false or null, each key once, no string with an escape, JSON whitespace anywhere
 * between tokens. null for any other text (also for text that is no JSON: then JSON.parse fails as before), so the
 * caller parses it: the same messages either way.
 */
function plainTextMessages(text: string): ChatMessage[] | null {
  // parseJsonLoose parses only text starting with `{` or `[` (no whitespace before).
  if (text.charCodeAt(0) !== 91 /* [ */) return null;
  const messages: ChatMessage[] = [];
  let i = skipJsonSpace(text, 1);
  if (text.charCodeAt(i) === 93 /* ] */) return skipJsonSpace(text, i + 1) === text.length ? messages : null;
  for (;;) {
    if (text.charCodeAt(i) !== 123 /* { */) return null;
    let role: string | undefined;
    /** The first part's text, and the texts of all when there are more (joined as genAiMessages joins them). */
    let content: string | undefined;
    let texts: string[] | undefined;
    let sawRole = false;
    let sawParts = false;
    i = skipJsonSpace(text, i + 1);
    if (text.charCodeAt(i) !== 125 /* } */) {
      for (;;) {
        const keyEnd = plainStringEnd(text, i);
        if (keyEnd < 0) return null;
        const keyStart = i;
        i = valueStart(text, keyEnd);
        if (i < 0) return null;
        if (isKey(text, keyStart, keyEnd, 'role')) {
          if (sawRole) return null;
          sawRole = true;
          const end = plainStringEnd(text, i);
          if (end < 0) return null;
          role = text.slice(i + 1, end - 1);
          i = end;
        } else if (isKey(text, keyStart, keyEnd, 'parts')) {
          if (sawParts) return null;
          sawParts = true;
          if (text.charCodeAt(i) !== 91 /* [ */) return null;
          i = skipJsonSpace(text, i + 1);
          if (text.charCodeAt(i) === 93 /* ] */) i++;
          else {
            for (;;) {
              i = readTextPart(text, i);
              if (i < 0) return null;
              if (content === undefined) content = partText;
              else (texts ??= [content]).push(partText);
              i = skipJsonSpace(text, i + 1);
              const c = text.charCodeAt(i);
              if (c === 44 /* , */) i = skipJsonSpace(text, i + 1);
              else if (c === 93 /* ] */) {
                i++;
                break;
              } else return null;
            }
          }
        } else if (isKey(text, keyStart, keyEnd, 'content')) {
          // A message's own `content` comes before its parts' texts: left to JSON.parse.
          return null;
        } else {
          // Any other key (genAiMessages reads none), with a plain value.
          const end = plainStringEnd(text, i);
          if (end > 0) i = end;
          else if (text.startsWith('true', i)) i += 4;
          else if (text.startsWith('false', i)) i += 5;
          else if (text.startsWith('null', i)) i += 4;
          else return null;
        }
        i = skipJsonSpace(text, i);
        const c = text.charCodeAt(i);
        if (c === 44 /* , */) i = skipJsonSpace(text, i + 1);
        else if (c === 125 /* } */) break;
        else return null;
      }
    }
    messages.push({ role: role ?? 'unknown', content: texts ? texts.join('\n') : (content ?? '') });
    i = skipJsonSpace(text, i + 1);
    const c = text.charCodeAt(i);
    if (c === 44 /* , */) i = skipJsonSpace(text, i + 1);
    else if (c === 93 /* ] */) return skipJsonSpace(text, i + 1) === text.length ? messages : null;
    else return null;
  }
}

/** Deprecated GenAI forms: `gen_ai.prompt` as JSON, or indexed `gen_ai.prompt.N.role|content` (`prefix`: the key and a dot). */
function genAiLegacyMessages(attrs: Attributes, key: string, prefix: string): ChatMessage[] | undefined {
  const fromJson = messagesAttr(attrs, key);
  if (fromJson) return fromJson;
  const groups = indexedGroups(attrs, prefix);
  if (groups.size === 0) return undefined;
  return [...groups.values()].map((g) => ({ role: textOf(g.get('role')) ?? 'unknown', content: textOf(g.get('content')) ?? '' }));
}

/** The structured output messages (`gen_ai.output.messages`), read once per reading of a span's output. */
function outputMessages(attrs: Attributes): ChatMessage[] | undefined {
  return messagesAttr(attrs, 'gen_ai.output.messages');
}

/** The output text, given the span's structured output messages (`outputMessages`). */
function outputTextOf(attrs: Attributes, structured: ChatMessage[] | undefined): string | undefined {
  const messages = structured ?? genAiLegacyMessages(attrs, 'gen_ai.completion', 'gen_ai.completion.');
  // One message (the usual answer) is its content: no array and no join per model call.
  if (messages && messages.length === 1) return messages[0].content;
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
  inputMessages: (attrs) => messagesAttr(attrs, 'gen_ai.input.messages') ?? genAiLegacyMessages(attrs, 'gen_ai.prompt', 'gen_ai.prompt.'),
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

