// One edge through the clarifier (SPEC §5.3): decide {type, to_agent, question}; if it asks, the addressee answers
// (an LLM playing that agent, or a caller-supplied answerer such as a live runner's real agent); the reply is appended
// to the message; a second clarifier pass on the revised message says whether one question was enough.
// Without a client the LLM-free flagger decides, and nothing is asked.
import type { TokenUsage } from '../../model/types.ts';
import type { ChatResult, LlmClient } from '../../llm/client.ts';
import type { EdgeState } from './edges.ts';
import { flagEdge } from './heuristic.ts';
import { parseClarifierAnswer, type ClarifierDecision } from './parse.ts';
import { addresseeMessages, clarifierMessages, reviseMessage } from './prompts.ts';
import type { Addressee, ClarifierType } from './taxonomy.ts';

export interface EdgeClarification {
  edgeId: string;
  type: ClarifierType;
  toAgent: Addressee | null;
  /** Id and name of the agent asked (undefined when nothing was asked). */
  addressee?: { id: string; name: string };
  question: string;
  /** The addressee's answer; undefined when nothing was asked, or offline (the flagger asks nobody). */
  reply?: string;
  originalMessage: string;
  /** What is delivered: the original, with question and reply appended when there was an answer. */
  revisedMessage: string;
  changed: boolean;
  /** Clarifier + addressee + second check, as the endpoint reported them (tokenizer counts marked estimated). */
  tokens: TokenUsage;
  /** Wall-clock time the clarification added to this handoff. */
  latencyMs: number;
  /** One-shot resolution: the second check said NONE. null when not checked (no ask, offline, or unreadable). */
  resolved: boolean | null;
  /** The second check's verdict on the revised message. */
  secondType?: ClarifierType;
  secondQuestion?: string;
  /** LLM-free flagger decided. */
  heuristic: boolean;
  /** The flagger's signal, when it fired. */
  signal?: string;
  /** Repairs made to read the clarifier's answer. */
  repairs: string[];
  /** The clarifier's answer could not be read: the message passed unchanged. */
  malformed?: { problem: string; rawAnswer: string };
  llmCallIds: string[];
  /** How the run's gate routed this edge (set by a gated pass over a recorded run). */
  route?: 'all' | 'flagged' | 'sampled' | 'skipped';
}

export type Answerer = (state: EdgeState, who: Addressee, question: string, signal?: AbortSignal) => Promise<{ text: string; usage?: TokenUsage; llmCallId?: string }>;

export interface ClarifyEdgeOptions {
  /** Without a client the heuristic flagger decides (offline). */
  client?: LlmClient;
  signal?: AbortSignal;
  /** Who answers the question; defaults to an LLM (role `agents`) playing the addressee with its recorded prompt. */
  answer?: Answerer;
  /** Run the second check on the revised message (default true). */
  secondCheck?: boolean;
  /** Injectable clock for tests. */
  now?: () => number;
}

/** A clarifier call failed (network, budget, cancel); carries what was spent before it so no token goes uncounted. */
export class ClarificationFailed extends Error {
  constructor(
    readonly cause: unknown,
    readonly spent: TokenUsage,
    readonly llmCallIds: string[],
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'ClarificationFailed';
  }
}

const zero = (): TokenUsage => ({ input: 0, output: 0, total: 0 });

function add(total: TokenUsage, u: TokenUsage | undefined): void {
  if (!u) return;
  total.input += u.input;
  total.output += u.output;
  total.total += u.total;
  if (u.estimated) total.estimated = true;
}

export function llmAnswerer(client: LlmClient): Answerer {
  return async (state, who, question, signal) => {
    const r = await client.chat({ role: 'agents', messages: addresseeMessages(state, who, question) }, signal);
    return { text: r.text.trim(), usage: r.usage, llmCallId: r.record.id };
  };
}

function heuristicResult(state: EdgeState): EdgeClarification {
  const flag = flagEdge(state);
  // Written out, not spread from a shared base: one object per edge, in the order the spread gave its fields.
  const { id: edgeId, message } = state;
  if (!flag) return { edgeId, originalMessage: message, revisedMessage: message, changed: false, tokens: zero(), latencyMs: 0, resolved: null, heuristic: true, repairs: [], llmCallIds: [], type: 'NONE', toAgent: null, question: '' };
  const agent = flag.toAgent === 'receiver' ? state.receiver : state.sender;
  return {
    edgeId,
    originalMessage: message,
    revisedMessage: message,
    changed: false,
    tokens: zero(),
    latencyMs: 0,
    resolved: null,
    heuristic: true,
    repairs: [],
    llmCallIds: [],
    type: flag.type,
    toAgent: flag.toAgent,
    addressee: { id: agent.id, name: agent.name },
    question: flag.question,
    signal: flag.signal,
  };
}

/** Clarify one edge. Throws ClarificationFailed when an endpoint call fails after the client's retries. */
export async function clarifyEdge(state: EdgeState, options: ClarifyEdgeOptions = {}): Promise<EdgeClarification> {
  const { client, signal } = options;
  if (!client) return heuristicResult(state);
  const now = options.now ?? Date.now;
  const started = now();
  const tokens = zero();
  const ids: string[] = [];
  const names = { sender: state.sender.name, receiver: state.receiver.name };
  const ask = async (message: string): Promise<{ result: ChatResult; parsed: ReturnType<typeof parseClarifierAnswer> }> => {
    const result = await client.chat({ role: 'clarifier', messages: clarifierMessages(state, message), json: true, temperature: 0 }, signal);
    add(tokens, result.usage);
    ids.push(result.record.id);
    return { result, parsed: parseClarifierAnswer(result.text, names) };
  };
  try {
    const first = await ask(state.message);
    const out: EdgeClarification = {
      edgeId: state.id,
      type: 'NONE',
      toAgent: null,
      question: '',
      originalMessage: state.message,
      revisedMessage: state.message,
      changed: false,
      tokens,
      latencyMs: 0,
      resolved: null,
      heuristic: false,
      repairs: first.parsed.repairs,
      llmCallIds: ids,
    };
    const decision: ClarifierDecision | undefined = first.parsed.decision;
    if (!decision) {
      out.malformed = { problem: first.parsed.problem ?? 'unreadable answer', rawAnswer: first.result.text.slice(0, 2000) };
    } else if (decision.type !== 'NONE' && decision.toAgent) {
      out.type = decision.type;
      out.toAgent = decision.toAgent;
      out.question = decision.question;
      const agent = decision.toAgent === 'sender' ? state.sender : state.receiver;
      out.addressee = { id: agent.id, name: agent.name };
      const answerer = options.answer ?? llmAnswerer(client);
      const reply = await answerer(state, decision.toAgent, decision.question, signal);
      add(tokens, reply.usage);
      if (reply.llmCallId) ids.push(reply.llmCallId);
      out.reply = reply.text || '(no answer)';
      out.revisedMessage = reviseMessage(state.message, agent.name, decision.question, out.reply);
      out.changed = true;
      if (options.secondCheck !== false) {
        const second = await ask(out.revisedMessage);
        if (second.parsed.decision) {
          out.secondType = second.parsed.decision.type;
          if (second.parsed.decision.question) out.secondQuestion = second.parsed.decision.question;
          out.resolved = second.parsed.decision.type === 'NONE';
        } else out.repairs = [...out.repairs, `second check unreadable: ${second.parsed.problem ?? 'unreadable answer'}`];
      }
    }
    out.latencyMs = Math.max(0, now() - started);
    return out;
  } catch (e) {
    throw new ClarificationFailed(e, tokens, ids);
  }
}
