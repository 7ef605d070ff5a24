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
    definition: 'The message leaves out something the next agent needs, so it would have to guess it.',
    signals: ['an edge case or boundary that nobody mentions', 'an id, key, field or column that is absent', 'a range or format left open', 'placeholders instead of values'],
    howToAsk: 'Ask for the one smallest missing piece, in one short question.',
    whom: 'Usually the sender, who had the information and dropped it.',
    usualAddressee: 'sender',
    skipWhen: 'The missing value is obvious from the context, or would not change the result.',
  },
  RD: {
    code: 'RD',
    name: 'Referential Drift',
    definition: 'A name, symbol or pronoun no longer points at the same thing for both agents, so they reason about different objects.',
    signals: ['"it", "they", "that value" without a clear referent', 'a symbol reused without saying which instance', 'two aliases for one thing', 'shifted indices', 'columns without labels'],
    howToAsk: 'Fix one binding by offering a clear choice ("does X mean A or B?").',
    whom: 'Usually the sender; the receiver when it is the one that must commit to a binding for its later steps.',
    usualAddressee: 'sender',
    skipWhen: 'The nearby context already makes the reference unambiguous.',
  },
  SC: {
    code: 'SC',
    name: 'Signal Corruption',
    definition: 'An intermediate value, unit, scale or structure in the message is wrong or malformed and is about to be taken as true.',
    signals: ['units that do not match', 'off-by-one positions', 'JSON or tables that do not parse', 'time zones that disagree', 'magnitudes that cannot be right'],
    howToAsk: 'Name the exact field or structure and ask to confirm or repair it.',
    whom: 'Usually the sender; the receiver when it has to pick the canonical unit or format.',
    usualAddressee: 'sender',
    skipWhen: 'The next step normalises the value deterministically anyway.',
  },
  CG: {
    code: 'CG',
    name: 'Capability Gap',
    definition: 'The agent that gets the message does not have the skill, tool or role the step needs.',
    signals: ['prose where a computation is needed', 'a step that needs a tool the agent lacks', 'maths or code handed to a planner', 'an API the agent cannot reach'],
    howToAsk: 'Propose the smallest reroute, or ask for the missing computation in one line.',
    whom: 'The receiver when it has to accept the reroute; otherwise the sender, to reissue the step to the right role.',
    usualAddressee: 'receiver',
    skipWhen: 'A small hint would let the current agent finish; then one of DG, RD or SC fits better.',
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
