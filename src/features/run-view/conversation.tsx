// The step inspector's conversation (issue 16 item 4): messages as chat turns (role, text rendered as markdown when it
// is, tool calls as calls with arguments), each tool result shown under the call it answers (matched by tool-call id,
// in a prompt or anywhere in the run), and a model call's input and output as one conversation.
import type { ReactNode } from 'react';
import { RAW_KEYS_ON_PAGE } from '../../model/session-spans.ts';
import type { ChatMessage as InputMessage, Step, ToolCall } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { MessageText } from './message-text.tsx';
import type { RunView } from './run-view-model.ts';
import { prettyJson, TraceText } from './trace-text.tsx';
import { safeStringify } from '../../ui/format.ts';

/** Prompts up to this many messages show every turn; longer ones fold all but the last few. */
export const PROMPT_OPEN_MAX = 6;
const PROMPT_TAIL = 3;

const ROLE_TONES: Record<string, string> = {
  system: 'border-slate-400 bg-slate-50',
  user: 'border-sky-400 bg-sky-50',
  human: 'border-sky-400 bg-sky-50',
  assistant: 'border-indigo-400 bg-white',
  tool: 'border-amber-400 bg-amber-50',
  function: 'border-amber-400 bg-amber-50',
};

/** One turn of a conversation: who speaks (role, name) over what they said. */
export function ChatTurn({ role, name, testId = 'chat-turn', children }: { role: string; name?: string; testId?: string; children: ReactNode }) {
  const tone = Object.hasOwn(ROLE_TONES, role) ? ROLE_TONES[role] : 'border-slate-300 bg-white';
  return (
    <div className={`rounded-r border-l-4 px-2 py-1 ${tone}`} data-testid={testId} data-role={role}>
      <p className="text-[11px] font-semibold tracking-wide text-slate-600 uppercase">
        {role}
        {name ? <span className="font-normal normal-case"> · {name}</span> : null}
      </p>
      {children}
    </div>
  );
}

interface ParsedMessage {
  role: string;
  content?: string;
  toolCalls: ToolCall[];
  toolCallId?: string;
}

/**
 * Output that is an OpenAI-style message serialised as JSON (`{"role":"assistant","content":null,"tool_calls":…}`)
 * read as a message; anything else is undefined. Only small texts are parsed.
 */
export function chatMessageOf(text: string): ParsedMessage | undefined {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') || text.length > 200_000) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const rec = value as Record<string, unknown>;
  if (typeof rec.role !== 'string') return undefined;
  const content = typeof rec.content === 'string' ? rec.content : rec.content == null ? undefined : safeStringify(rec.content);
  const toolCalls: ToolCall[] = [];
  if (Array.isArray(rec.tool_calls)) {
    for (const call of rec.tool_calls) {
      if (typeof call !== 'object' || call === null) continue;
      const c = call as Record<string, unknown>;
      const fn = c.function;
      const f = typeof fn === 'object' && fn !== null ? (fn as Record<string, unknown>) : c;
      const args = f.arguments;
      const out: ToolCall = { name: typeof f.name === 'string' ? f.name : 'call', arguments: typeof args === 'string' ? args : safeStringify(args ?? {}) };
      if (typeof c.id === 'string') out.id = c.id;
      toolCalls.push(out);
    }
  }
  return { role: rec.role, content, toolCalls, toolCallId: typeof rec.tool_call_id === 'string' ? rec.tool_call_id : undefined };
}

/**
 * Where a tool step records the id of the call it answers (chat logs, GenAI and OpenInference spans): keys a step keeps
 * on the page when the rest of its raw stays with its stored span (ADR 0026).
 */
const CALL_ID_KEYS = RAW_KEYS_ON_PAGE;

export function callIdOfStep(step: Step): string | undefined {
  const raw = step.raw;
  if (!raw) return undefined;
  for (const key of CALL_ID_KEYS) {
    const v = Object.hasOwn(raw, key) ? raw[key] : undefined;
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

const resultIndexes = new WeakMap<readonly Step[], Map<string, Step>>();

/** The run's tool steps by the call id they answer (the first one per id), built once per step list. */
export function toolResultsByCallId(steps: readonly Step[]): ReadonlyMap<string, Step> {
  let index = resultIndexes.get(steps);
  if (!index) {
    index = new Map();
    for (const s of steps) {
      if (s.kind !== 'tool' && s.observation === undefined) continue;
      const id = callIdOfStep(s);
      if (id !== undefined && !index.has(id)) index.set(id, s);
    }
    resultIndexes.set(steps, index);
  }
  return index;
}

/** The key of a prompt's call: its id, or (a source that names no call ids) its place in the prompt. */
export function callKey(messageIndex: number, callIndex: number, call: ToolCall): string {
  return call.id ?? `#${messageIndex}:${callIndex}`;
}

/**
 * A prompt's turns with each tool message placed under the call it answers: by tool-call id, or, for calls the source
 * recorded without ids, the tool messages that follow an assistant turn answer its calls in order. `results` maps a
 * call's key (callKey) to its tool message; `turns` are the messages left to show as turns.
 */
export function pairToolMessages(messages: readonly InputMessage[]): { turns: number[]; results: Map<string, InputMessage> } {
  const asked = new Set<string>();
  const results = new Map<string, InputMessage>();
  const turns: number[] = [];
  let unnamed: string[] = [];
  messages.forEach((m, i) => {
    const id = m.toolCallId;
    if (id !== undefined && asked.has(id) && !results.has(id)) {
      results.set(id, m);
      return;
    }
    if (m.role === 'tool' || m.role === 'function') {
      const key = unnamed.shift();
      if (key !== undefined) {
        results.set(key, m);
        return;
      }
    } else unnamed = [];
    m.toolCalls?.forEach((call, j) => {
      if (call.id !== undefined) asked.add(call.id);
      else unnamed.push(callKey(i, j, call));
    });
    turns.push(i);
  });
  return { turns, results };
}

/** One tool call: name, arguments, and the result that answers it (a prompt's tool message or a tool step). */
export function CallWithResult({ view, call, promptResult }: { view: RunView; call: ToolCall; promptResult?: InputMessage }) {
  const step = promptResult === undefined && call.id !== undefined ? toolResultsByCallId(view.run.steps).get(call.id) : undefined;
  const moveTo = usePlayhead((s) => s.moveTo);
  const at = step ? view.positionOf.get(step.id) : undefined;
  return (
    <div className="mt-1" data-testid="tool-call" data-call-id={call.id}>
      <p className="font-mono text-xs font-semibold text-slate-800">
        call {call.name}(…){call.id !== undefined && <span className="font-normal text-slate-500"> · {call.id}</span>}
      </p>
      <TraceText text={call.arguments} json limit={800} />
      {promptResult !== undefined && (
        <div className="mt-1 ml-3" data-testid="tool-result">
          <ChatTurn role={promptResult.role} name={`result${promptResult.name ? ` of ${promptResult.name}` : ''}${promptResult.toolCallId ? ` · ${promptResult.toolCallId}` : ''}`}>
            <MessageText text={promptResult.content} limit={600} />
          </ChatTurn>
        </div>
      )}
      {step !== undefined && (
        <div className="mt-1 ml-3" data-testid="tool-result" data-step-id={step.id}>
          <ChatTurn role="tool" name={`result${step.name ? ` of ${step.name}` : ''}${at !== undefined ? ` · step ${at + 1}` : ''}`}>
            {step.error ? <TraceText text={step.error.message} limit={600} /> : <MessageText text={step.observation ?? step.output ?? ''} limit={600} />}
            {at !== undefined && (
              <button type="button" className="mt-0.5 text-xs text-indigo-700 hover:underline" onClick={() => moveTo(at)}>
                go to step {at + 1}
              </button>
            )}
          </ChatTurn>
        </div>
      )}
    </div>
  );
}

function MessageTurn({ view, message, at, results }: { view: RunView; message: InputMessage; at: number; results: ReadonlyMap<string, InputMessage> }) {
  return (
    <ChatTurn role={message.role} name={message.toolCallId ? `${message.name ? `${message.name} · ` : ''}result of ${message.toolCallId}` : message.name}>
      {message.content !== '' && <MessageText text={message.content} limit={600} />}
      {message.toolCalls?.map((call, j) => <CallWithResult key={call.id ?? j} view={view} call={call} promptResult={results.get(callKey(at, j, call))} />)}
    </ChatTurn>
  );
}

/** A step's output as a turn: a serialised chat message with its calls, JSON pretty-printed, or text (markdown). */
export function OutputTurn({ view, step, text }: { view: RunView; step: Step; text: string }) {
  const message = chatMessageOf(text);
  if (message) {
    return (
      <div data-testid="inspector-output">
        <ChatTurn role={message.role} name={message.toolCallId ? `result of ${message.toolCallId}` : 'output'}>
          {message.content !== undefined && <MessageText text={message.content} />}
          {message.toolCalls.map((call, i) => (
            <CallWithResult key={call.id ?? i} view={view} call={call} />
          ))}
        </ChatTurn>
      </div>
    );
  }
  const json = prettyJson(text) !== undefined;
  return (
    <div data-testid="inspector-output">
      <ChatTurn role={step.kind === 'llm' ? 'assistant' : 'output'} name={step.kind === 'llm' ? 'output' : undefined}>
        {json ? <TraceText text={text} json /> : <MessageText text={text} />}
      </ChatTurn>
    </div>
  );
}

/** A model call's prompt as turns (tool answers under their calls; a long prompt folds all but its last turns). */
export function PromptTurns({ view, messages }: { view: RunView; messages: readonly InputMessage[] }) {
  const { turns, results } = pairToolMessages(messages);
  const folded = turns.length > PROMPT_OPEN_MAX ? turns.slice(0, turns.length - PROMPT_TAIL) : [];
  const open = folded.length > 0 ? turns.slice(folded.length) : turns;
  const item = (i: number) => (
    <li key={i}>
      <MessageTurn view={view} message={messages[i]} at={i} results={results} />
    </li>
  );
  return (
    <div data-testid="inspector-prompt" className="space-y-1.5">
      {folded.length > 0 && (
        <details className="rounded border border-slate-200" data-testid="prompt-earlier">
          <summary className="cursor-pointer px-2 py-1 text-xs text-slate-600">
            {folded.length} earlier turn{folded.length === 1 ? '' : 's'}
          </summary>
          <ol className="space-y-1.5 p-1">{folded.map(item)}</ol>
        </details>
      )}
      <ol className="space-y-1.5">{open.map(item)}</ol>
    </div>
  );
}
