// The call input of one agent turn in an LLM-only team, and its cache key (SPEC §5.5, ADR 0010).
// The built-in runner sends exactly this input, and a fork rebuilds it from a recorded run's messages, so a turn whose
// visible conversation is unchanged gets the same key in both and is answered from the recording.
import { canonicalJson } from '../../llm/client.ts';
import { hashText } from '../../model/hash.ts';
import type { ChatMessage } from '../../model/types.ts';

/** One message every later speaker can see. */
export interface VisibleTurn {
  /** The agent that said it (its id, which is also how it is named to the others). */
  speaker: string;
  content: string;
}

export interface Speaker {
  id: string;
  /** The agent's role prompt (system message). */
  prompt: string;
}

export type CallMessage = Pick<ChatMessage, 'role' | 'content'>;

/**
 * System: the role prompt and the task. Then the conversation so far: the agent's own earlier turns as `assistant`,
 * everyone else's as `user` prefixed with the speaker's name. The input always ends with a `user` message (asking
 * the agent to go on when it spoke last), so every chat server accepts it.
 */
export function turnInput(speaker: Speaker, task: string, visible: readonly VisibleTurn[]): CallMessage[] {
  const messages: CallMessage[] = [{ role: 'system', content: `${speaker.prompt.trim()}\n\nTask:\n${task.trim()}` }];
  for (const t of visible) {
    if (t.speaker === speaker.id) messages.push({ role: 'assistant', content: t.content });
    else messages.push({ role: 'user', content: `${t.speaker}: ${t.content}` });
  }
  const last = messages[messages.length - 1];
  if (last.role !== 'user') {
    messages.push({ role: 'user', content: visible.length === 0 ? `Begin, as ${speaker.id}.` : `Continue, as ${speaker.id}.` });
  }
  return messages;
}

/** Cache key of a call: a hash of the canonical JSON of who is called and with what input (not the model). */
export function callKey(agentId: string, input: readonly CallMessage[]): string {
  return hashText(canonicalJson({ agent: agentId, messages: input.map((m) => ({ role: m.role, content: m.content })) }));
}

/** The messages a tool agent has not acted on yet: everything visible since its own last turn. */
export function pendingFor(agentId: string, visible: readonly VisibleTurn[]): VisibleTurn[] {
  let i = visible.length;
  while (i > 0 && visible[i - 1].speaker !== agentId) i--;
  return visible.slice(i);
}

/** Cache key of a tool turn: the tool agent and the requests it acts on (the messages since its last turn). */
export function toolKey(agentId: string, pending: readonly VisibleTurn[]): string {
  return hashText(canonicalJson({ tool: agentId, pending }));
}
