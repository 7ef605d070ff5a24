// Clarifier and addressee prompts, written for this product. They keep the structure of the paper's clarifier
// instruction (Appendix D): the role, the taxonomy with signals / how to ask / whom / when not to ask per type, the
// NONE case, and the required JSON fields {type, to_agent, question}.
import type { EdgeAgent, EdgeState } from './edges.ts';
import { ERROR_TYPES, TYPE_INFO } from './taxonomy.ts';

export interface PromptMessage {
  role: 'system' | 'user';
  content: string;
}

/** Long messages are cut in the middle: the start and the end of a handoff carry most of its intent. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 40) / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

const MESSAGE_CHARS = 6000;
const HISTORY_CHARS = 600;
const PROMPT_CHARS = 3000;

export function clarifierSystemPrompt(): string {
  const types = ERROR_TYPES.map((code) => {
    const t = TYPE_INFO[code];
    return [
      `${code} (${t.name}): ${t.definition}`,
      `  Look for: ${t.signals.join('; ')}.`,
      `  How to ask: ${t.howToAsk}`,
      `  Whom to ask: ${t.whom}`,
      `  Do not ask when: ${t.skipWhen}`,
    ].join('\n');
  });
  return [
    'You sit on the link between two agents of a multi-agent team and look at one message just before it is delivered.',
    'Your only job: decide whether one short clarifying question, asked now, would stop a small mistake from travelling',
    'further down the chain. If it would, say what kind of problem it is, whom to ask (the agent that wrote the message',
    'or the agent that is about to receive it), and write that single question. Questions cost time and tokens, so ask',
    'only when it clearly pays off, and never rewrite the workflow.',
    '',
    'Kinds of problems at a handoff:',
    ...types,
    `NONE: ${TYPE_INFO.NONE.definition} Also choose NONE when the receiver can fix the problem itself without new`,
    'information. With NONE, to_agent is null and question is an empty string.',
    '',
    'Rules for the question: one sentence, closed (answerable with a value, a choice or yes/no), about the one thing',
    'that matters most, addressed to the party that can actually answer it.',
    '',
    'Answer with one JSON object and nothing else:',
    '{"type": "DG" | "RD" | "SC" | "CG" | "NONE", "to_agent": "sender" | "receiver" | null, "question": "..."}',
  ].join('\n');
}

function agentLine(label: string, a: EdgeAgent): string {
  return `${label}: ${a.name}${a.role ? ` (${clip(a.role.replace(/\s+/g, ' '), 300)})` : ''}`;
}

export function edgeDescription(state: EdgeState, message = state.message): string {
  const lines = [`Task of the team: ${clip(state.task || '(not recorded)', 2000)}`];
  if (state.subgoal) lines.push(`Current subgoal of the sender: ${clip(state.subgoal, 1000)}`);
  lines.push(agentLine('Sender', state.sender));
  if (state.receivers.length > 1) lines.push(`Receivers: ${state.receivers.map((r) => r.name).join(', ')} (the first one acts on it next)`);
  lines.push(agentLine('Receiver', state.receiver));
  lines.push('');
  if (state.history.length === 0) lines.push('Earlier messages on this link: none.');
  else {
    lines.push(`Earlier messages involving these agents (the last ${state.history.length}, oldest first):`);
    for (const h of state.history) lines.push(`- ${h.from} → ${h.to}: ${clip(h.message.replace(/\s+/g, ' '), HISTORY_CHARS)}`);
  }
  lines.push('', `Message from ${state.sender.name} to ${state.receiver.name}, about to be delivered:`, '<<<', clip(message, MESSAGE_CHARS), '>>>');
  return lines.join('\n');
}

export function clarifierMessages(state: EdgeState, message = state.message): PromptMessage[] {
  return [
    { role: 'system', content: clarifierSystemPrompt() },
    { role: 'user', content: `${edgeDescription(state, message)}\n\nDecide now. JSON only.` },
  ];
}

/** The addressee's side: an LLM playing that agent (with its recorded prompt when there is one) answers the question. */
export function addresseeMessages(state: EdgeState, who: 'sender' | 'receiver', question: string): PromptMessage[] {
  const agent = who === 'sender' ? state.sender : state.receiver;
  const other = who === 'sender' ? state.receiver : state.sender;
  const persona = agent.prompt
    ? `${clip(agent.prompt, PROMPT_CHARS)}\n\n(You are ${agent.name} in this team.)`
    : agent.kind === 'human'
      ? `You are the person (${agent.name}) who gave a team of AI agents the task below. Answer as that person would, from what the task says and what a reasonable user means by it.`
      : `You are ${agent.name}, a member of a team of cooperating agents.${agent.role ? ` Your role: ${clip(agent.role, 500)}` : ''}`;
  const situation =
    who === 'sender'
      ? `You just wrote the message below for ${other.name}. Before it is delivered, a reviewer asks you one question about it.`
      : `The message below from ${other.name} is about to reach you. Before you act on it, a reviewer asks you one question.`;
  return [
    { role: 'system', content: persona },
    {
      role: 'user',
      content: [
        `Task of the team: ${clip(state.task || '(not recorded)', 2000)}`,
        situation,
        '<<<',
        clip(state.message, MESSAGE_CHARS),
        '>>>',
        `Question: ${question}`,
        '',
        'Answer the question directly in one to three sentences, with the concrete value, choice or correction it asks for.',
        'Do not repeat the message and do not start new work.',
      ].join('\n'),
    },
  ];
}

/** The delivered message: the original with the question and the answer appended, so the receiver sees both. */
export function reviseMessage(original: string, addresseeName: string, question: string, reply: string): string {
  return `${original}\n\n[Clarification asked of ${addresseeName}: ${question}]\n[${addresseeName} answered: ${reply}]`;
}
