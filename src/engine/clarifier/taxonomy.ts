// The edge-level error taxonomy of AgentAsk (paper 004, §3 and Appendix D): four ways a handoff between two agents
// goes wrong, and NONE. Definitions, signals and addressee rules are the paper's facts in our own words; the prompt,
// the heuristic flagger, the gallery and the quiz all read them from here.

export const ERROR_TYPES = ['DG', 'RD', 'SC', 'CG'] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];
export const CLARIFIER_TYPES = [...ERROR_TYPES, 'NONE'] as const;
export type ClarifierType = ErrorType | 'NONE';

/** Whom a question goes to: the agent that wrote the message, or the one about to act on it. */
export type Addressee = 'sender' | 'receiver';

export interface TypeInfo {
  code: ClarifierType;
  name: string;
  /** One sentence: what goes wrong at the handoff. */
  definition: string;
  /** What to look for in the message. */
  signals: string[];
  /** What kind of question repairs it. */
  howToAsk: string;
  /** Whom to ask, and when the other party is the better choice. */
  whom: string;
  usualAddressee: Addressee | null;
  /** When not to ask even though the signal is there. */
  skipWhen: string;
}

export const TYPE_INFO: Record<ClarifierType, TypeInfo> = {
  DG: {
    code: 'DG',
    name: 'Data Gap',
    definition: 'A fact the next agent depends on is not in the message, so it would have to make one up.',
    signals: ['an edge case or boundary that nobody mentions', 'an id, key, field or column that is absent', 'a range or format left open', 'placeholders instead of values'],
    howToAsk: 'One brief question that names the single absent detail, and nothing beyond it.',
    whom: 'Usually the sender, who had the information and dropped it.',
    usualAddressee: 'sender',
    skipWhen: 'Any reader of the surrounding context could fill it in, or the answer comes out the same without it.',
  },
  RD: {
    code: 'RD',
    name: 'Referential Drift',
    definition: 'A name, symbol or pronoun no longer points at the same thing for both agents, so they reason about different objects.',
    signals: ['"it", "they", "that value" without a clear referent', 'a symbol reused without saying which instance', 'two aliases for one thing', 'shifted indices', 'columns without labels'],
    howToAsk: 'Offer two readings and let the reply settle which one holds ("does X mean A or B?").',
    whom: 'The sender as a rule; go to the receiver instead when its own next steps hang on which meaning it settles on.',
    usualAddressee: 'sender',
    skipWhen: 'The surrounding lines already say which thing is meant.',
  },
  SC: {
    code: 'SC',
    name: 'Signal Corruption',
    definition: 'Something the message passes along (a number, its unit or scale, a table or JSON block) is broken or wrong, and the next agent would trust it.',
    signals: ['units that do not match', 'off-by-one positions', 'JSON or tables that do not parse', 'time zones that disagree', 'magnitudes that cannot be right'],
    howToAsk: 'Quote the suspect value or block and ask whether it stands or what it should read.',
    whom: 'Mostly the sender; if the receiver decides which unit or format counts as the standard one, ask it.',
    usualAddressee: 'sender',
    skipWhen: 'A later step converts the value by a fixed rule regardless.',
  },
  CG: {
    code: 'CG',
    name: 'Capability Gap',
    definition: 'The agent that gets the message does not have the skill, tool or role the step needs.',
    signals: ['prose where a computation is needed', 'a step that needs a tool the agent lacks', 'maths or code handed to a planner', 'an API the agent cannot reach'],
    howToAsk: 'Suggest passing the step to a role that can do it, changing as little as possible, or request the lacking calculation in a single line.',
    whom: 'If the reroute needs the receiver’s agreement, ask the receiver; if not, ask the sender to send the step again, this time to a role able to do it.',
    usualAddressee: 'receiver',
    skipWhen: 'A nudge is all the current agent needs to finish; then the handoff belongs under DG, RD or SC.',
  },
  NONE: {
    code: 'NONE',
    name: 'No question',
    definition: 'The handoff is good enough, or one short question would not make it better.',
    signals: ['the message already carries what the next step needs', 'the receiver can fix the issue itself without new information', 'a question would be blocked by policy or privacy'],
    howToAsk: 'Do not ask: the message passes unchanged.',
    whom: 'Nobody.',
    usualAddressee: null,
    skipWhen: '',
  },
};

export const isClarifierType = (v: unknown): v is ClarifierType => typeof v === 'string' && (CLARIFIER_TYPES as readonly string[]).includes(v);

/**
 * The paper's published statistics, shown beside ours as a reference (never as our data).
 * `distribution`: Figure 2a, edge-level error types over N = 824 annotated logs.
 * `events`: §5.4, share of clarification events by type (pooled over datasets) and one-shot resolution rate.
 */
export const PAPER_STATS = {
  distribution: { DG: 29.1, RD: 27.3, SC: 36.8, CG: 6.8 } as Record<ErrorType, number>,
  distributionN: 824,
  events: { DG: 36.8, SC: 30.9, RD: 20.7, CG: 11.6 } as Record<ErrorType, number>,
  oneShot: { DG: 72.5, SC: 69.1, RD: 56.4, CG: 44.8 } as Record<ErrorType, number>,
  /** Default local history window H (§5.4 sensitivity). */
  window: 3,
} as const;
