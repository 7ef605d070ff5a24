// Annotated teaching cases for the edge-error taxonomy, written for this product (SPEC §4 Taxonomy, §5.3): three
// per error type across maths, code and tool-using runs, plus two clean handoffs for the quiz. Each shows the task,
// the faulty handoff, the question that fixes it, whom it goes to, the answer and the revised handoff. These are
// illustrations we made up to teach the types; they are not recorded traces.
import type { Addressee, ClarifierType } from '../../engine/clarifier/index.ts';

export type CaseDomain = 'math' | 'code' | 'tool';

export interface TeachingCase {
  id: string;
  type: ClarifierType;
  domain: CaseDomain;
  title: string;
  task: string;
  sender: string;
  receiver: string;
  /** What the receiver can do, when it matters (capability gaps). */
  receiverRole?: string;
  /** An earlier message on the link, when the case needs it. */
  earlier?: string;
  message: string;
  /** Nothing is asked for NONE cases. */
  question?: string;
  toAgent: Addressee | null;
  reply?: string;
  revised?: string;
  /** Why this type (and not another), and why this addressee. */
  explanation: string;
}

export const TEACHING_CASES: TeachingCase[] = [
  // Data Gap
  {
    id: 'dg-code-log-dates',
    type: 'DG',
    domain: 'code',
    title: 'Which date format?',
    task: 'Write parse_log_time(line) that returns the timestamp of a server log line as a datetime.',
    sender: 'Planner',
    receiver: 'Coder',
    message: 'Parse the timestamp at the start of each log line into a datetime and return it. Lines look like the usual server logs.',
    question: 'What exact timestamp format do the log lines use, and in which time zone?',
    toAgent: 'sender',
    reply: 'ISO 8601 with a trailing Z, e.g. 2024-03-01T12:00:05Z; always UTC.',
    revised: 'Parse the ISO 8601 timestamp with trailing Z (e.g. 2024-03-01T12:00:05Z, always UTC) at the start of each line into a timezone-aware datetime.',
    explanation:
      'The Coder would have to guess the format; "the usual server logs" names none. Nothing is wrong in the message, something is missing, so it is a Data Gap. The Planner read the logs, so it is the one to ask.',
  },
  {
    id: 'dg-math-garden',
    type: 'DG',
    domain: 'math',
    title: 'The dropped constraint',
    task: 'A rectangular garden has a perimeter of 36 m and its length is twice its width. What is its area?',
    sender: 'Reader',
    receiver: 'Solver',
    message: 'We have a rectangle with perimeter 36 m. Find its area in square metres.',
    question: 'Does the problem say how the length and the width are related?',
    toAgent: 'sender',
    reply: 'Yes: the length is twice the width.',
    revised: 'Rectangle with perimeter 36 m and length = 2 × width (so width 6 m, length 12 m). Find its area in square metres.',
    explanation:
      'Without the ratio the area is not determined, and the Solver would likely assume a square (81 m²) instead of 72 m². A required condition was left out of the handoff: Data Gap, asked of the Reader who had the full problem.',
  },
  {
    id: 'dg-tool-return',
    type: 'DG',
    domain: 'tool',
    title: 'Return for which order?',
    task: 'Customer: "I want to send back the kettle I ordered last week, it leaks."',
    sender: 'SupportAgent',
    receiver: 'ReturnsAgent',
    earlier: 'ReturnsAgent → SupportAgent: the customer has three open orders this month.',
    message: "Open a return for the customer's order and email them the shipping label.",
    question: 'Which order id should the return be opened for, and for which item in it?',
    toAgent: 'sender',
    reply: 'Order #W4821, only the blue kettle (item 2).',
    revised: 'Open a return for order #W4821, item 2 (blue kettle, leaking), and email the customer the shipping label.',
    explanation:
      'The returns tool needs an order id and the customer has three orders, so the ReturnsAgent would pick one at random. A missing key field is the textbook Data Gap; the SupportAgent talked to the customer and knows the answer.',
  },
  // Referential Drift
  {
    id: 'rd-math-trains',
    type: 'RD',
    domain: 'math',
    title: 'Whose clock is t?',
    task: 'Train A leaves at 9:00 at 60 km/h; train B leaves the same station at 10:00 on the same track at 90 km/h. When does B catch up with A?',
    sender: 'Modeller',
    receiver: 'Solver',
    message: 'Let t be the time since it left. A has gone 60t km and B has gone 90t km, so set 60t = 90t and solve for when it catches up.',
    question: 'Is t counted from 9:00 (train A leaving) or from 10:00 (train B leaving)?',
    toAgent: 'sender',
    reply: 'From 10:00, when B leaves; A has then already gone 60 km.',
    revised: 'Let t be the hours since 10:00 (B leaves). A has gone 60 + 60t km, B has gone 90t km; solve 60 + 60t = 90t (t = 2, so 12:00).',
    explanation:
      'One symbol t stands for two different clocks and "it" could be either train; the equation 60t = 90t is confidently wrong. The values are not corrupt and nothing is missing: the names point at different things, which is Referential Drift. The Modeller set up t, so it must fix the binding.',
  },
  {
    id: 'rd-code-join',
    type: 'RD',
    domain: 'code',
    title: 'Which id?',
    task: 'From orders.csv (id, customer_id, total) and customers.csv (id, name, country), list total spend per country.',
    sender: 'DataEngineer',
    receiver: 'Analyst',
    message: 'Join the two tables on id, then group by country and sum total.',
    question: 'Should the join be orders.customer_id = customers.id, or orders.id = customers.id?',
    toAgent: 'sender',
    reply: 'orders.customer_id = customers.id; orders.id is the order number.',
    revised: 'Join orders.customer_id to customers.id (orders.id is the order number, not a customer), then group by country and sum total.',
    explanation:
      'Both tables have a column called id and they mean different things. The join would run without an error and give wrong sums. One name bound to two entities is Referential Drift; the sender wrote the plan and knows which key it meant.',
  },
  {
    id: 'rd-tool-reports',
    type: 'RD',
    domain: 'tool',
    title: '"Its" figure',
    task: 'How many electric buses does the (fictional) city of Westbrook run, according to its latest transport report?',
    sender: 'WebSurfer',
    receiver: 'Writer',
    message: 'I found two documents on the city site: the 2022 transport report and the 2024 update of it. Use its figure for the number of electric buses.',
    question: 'Which document’s figure should be used: the 2022 report or the 2024 update?',
    toAgent: 'sender',
    reply: 'The 2024 update: 212 electric buses.',
    revised: 'Use the 2024 update of the Westbrook transport report (the latest): 212 electric buses.',
    explanation:
      '"Its" can point at either document, and the Writer would likely take the first one named. The figures themselves may both be right; what drifts is which one is meant. The WebSurfer saw both pages and should pin the reference.',
  },
  // Signal Corruption
  {
    id: 'sc-math-tank',
    type: 'SC',
    domain: 'math',
    title: 'A factor of ten',
    task: 'A tank holds 2.5 m³ of water and drains at 5 litres per minute. How long does it take to empty?',
    sender: 'Converter',
    receiver: 'Solver',
    message: 'The tank holds 2.5 m³ = 250 litres. At 5 L/min it empties in 250 / 5 = 50 minutes.',
    question: 'Is 2.5 m³ equal to 250 L or to 2,500 L (1 m³ = 1,000 L)?',
    toAgent: 'sender',
    reply: '2,500 L; my conversion was off by a factor of ten. It takes 500 minutes.',
    revised: 'The tank holds 2.5 m³ = 2,500 litres. At 5 L/min it empties in 2,500 / 5 = 500 minutes (8 h 20 min).',
    explanation:
      'All the information is there and clearly referenced; one intermediate value is simply wrong and is handed on as fact. A wrong conversion is Signal Corruption. The sender did the conversion, so it is asked to confirm the exact value.',
  },
  {
    id: 'sc-code-json',
    type: 'SC',
    domain: 'code',
    title: 'A test list that does not parse',
    task: 'Fix sort_unique(xs) so that it returns the distinct values of xs in ascending order.',
    sender: 'Tester',
    receiver: 'Fixer',
    message: 'Failing cases (JSON): [{"input": [3, 1, 3], "expected": [1, 3]}, {"input": [], "expected": [] {"input": [2, 2], "expected": [2]}]',
    question: 'The failing-case list does not parse (a brace is missing after the second case): can you resend it as valid JSON?',
    toAgent: 'sender',
    reply: '[{"input": [3, 1, 3], "expected": [1, 3]}, {"input": [], "expected": []}, {"input": [2, 2], "expected": [2]}]',
    revised: 'Failing cases (JSON): [{"input": [3, 1, 3], "expected": [1, 3]}, {"input": [], "expected": []}, {"input": [2, 2], "expected": [2]}]',
    explanation:
      'A malformed structure at the handoff: the Fixer would either fail to load the cases or silently merge two of them. Broken JSON is a typical Signal Corruption signal, and the Tester, who produced the list, repairs it.',
  },
  {
    id: 'sc-tool-timezone',
    type: 'SC',
    domain: 'tool',
    title: '15:00 where?',
    task: 'Book a one-hour call with the Tokyo team for 3 May and send them the invitation.',
    sender: 'Scheduler',
    receiver: 'Mailer',
    message: 'Booked: the calendar API returned start 2024-05-02T15:00:00Z. Tell the Tokyo team the call starts at 15:00 their time.',
    question: 'The API time is 15:00 UTC, which is 00:00 on 3 May in Tokyo: which of the two is the real start time?',
    toAgent: 'sender',
    reply: 'The booking is 15:00 UTC, so the invitation must say 00:00 on 3 May, Tokyo time. I will also ask whether a daytime slot is better.',
    revised: 'Booked for 2024-05-02T15:00:00Z, i.e. 00:00 on 3 May in Tokyo (JST). Tell the Tokyo team that local time, and flag that it is midnight for them.',
    explanation:
      'The tool output was read in the wrong time zone and the wrong local time is about to go out in an email. An inconsistent time zone is Signal Corruption; the sender made the mistake and can confirm the canonical value.',
  },
  // Capability Gap
  {
    id: 'cg-math-interest',
    type: 'CG',
    domain: 'math',
    title: 'An essayist asked for arithmetic',
    task: 'How much does 5,000 grow to at 4% a year, compounded monthly, over 7 years? Explain the result briefly.',
    sender: 'Manager',
    receiver: 'Writer',
    receiverRole: 'writes clear explanations; has no calculator or code tool',
    message: 'Writer: work out what 5,000 becomes at 4% compounded monthly for 7 years and put the number in your summary.',
    question: 'You have no calculation tool: should the number come from the Calculator agent first, with you writing the explanation around it?',
    toAgent: 'receiver',
    reply: 'Yes, please route the computation to the Calculator; I would only be estimating.',
    revised: 'Calculator: compute 5000 × (1 + 0.04/12)^84 (= 6,612.57). Writer: explain that figure in two sentences.',
    explanation:
      'The message is complete and correct, but it lands on an agent whose role cannot do the step, so it would improvise a number. A mismatch between the step and the receiver’s skill is a Capability Gap; the receiver is asked because it must accept the reroute.',
  },
  {
    id: 'cg-code-tests',
    type: 'CG',
    domain: 'code',
    title: 'Run tests without a shell',
    task: 'Make the failing test test_refund_rounding pass in the payments service.',
    sender: 'Planner',
    receiver: 'Reviewer',
    receiverRole: 'reads diffs and comments; cannot execute code',
    message: 'Reviewer: run the full test suite on the patched branch and report which tests still fail.',
    question: 'You cannot execute code: should the test run go to the Executor, with you reviewing its report?',
    toAgent: 'receiver',
    reply: 'Right, I cannot run anything. Send it to the Executor and I will review the failures it reports.',
    revised: 'Executor: run the full test suite on the patched branch and report the failing tests. Reviewer: review that report.',
    explanation:
      'Asking a read-only reviewer to run tests invites a made-up report. Nothing in the message is missing or wrong; the wrong role sits at the edge, which is a Capability Gap. The receiver knows its own limits and accepts the reroute.',
  },
  {
    id: 'cg-tool-rate',
    type: 'CG',
    domain: 'tool',
    title: 'Browsing from a file reader',
    task: "Convert the invoice total in invoice.pdf to euros at today's exchange rate.",
    sender: 'Orchestrator',
    receiver: 'FileSurfer',
    receiverRole: 'opens and reads local files only; no web access',
    earlier: 'FileSurfer → Orchestrator: the invoice total is 1,240.00 USD.',
    message: "FileSurfer: look up today's USD to EUR exchange rate online and convert the total.",
    question: 'FileSurfer can only read local files: should WebSurfer fetch today’s rate instead?',
    toAgent: 'sender',
    reply: 'Yes: WebSurfer fetches the rate, then the Coder converts 1,240.00 USD.',
    revised: "WebSurfer: look up today's USD to EUR rate. Then convert the invoice total of 1,240.00 USD with it.",
    explanation:
      'The addressee lacks the tool the step needs (web access), so it would stall or invent a rate. That is a Capability Gap. Here the sender is asked, because it is the orchestrator that has to reissue the step to the right agent.',
  },
  // Clean handoffs (NONE): the quiz needs them too, since most handoffs are fine.
  {
    id: 'none-math-fractions',
    type: 'NONE',
    domain: 'math',
    title: 'A complete handoff',
    task: 'Maya read 1/3 of a 240-page book on Monday and 1/4 of the remaining pages on Tuesday. How many pages are left?',
    sender: 'Reader',
    receiver: 'Solver',
    message: 'Monday: 1/3 of 240 = 80 pages, leaving 160. Tuesday: 1/4 of the remaining 160 = 40 pages. Compute what is left after Tuesday.',
    toAgent: null,
    explanation:
      'Every quantity is stated, each fraction says what it is a fraction of, and the arithmetic so far is right. A question would only add cost, so the clarifier stays quiet: NONE.',
  },
  {
    id: 'none-code-spec',
    type: 'NONE',
    domain: 'code',
    title: 'Precise enough to build',
    task: 'Write is_leap(year) for the Gregorian calendar.',
    sender: 'Planner',
    receiver: 'Coder',
    message: 'is_leap(year: int) -> bool: True if year is divisible by 4, except years divisible by 100, which are leap only if also divisible by 400. Add tests for 1900, 2000, 2023 and 2024.',
    toAgent: null,
    explanation: 'Rule, edge cases and tests are all in the message and the Coder can do the step. Nothing to ask: NONE.',
  },
];

export const DOMAIN_LABEL: Record<CaseDomain, string> = { math: 'maths', code: 'code', tool: 'tool use' };
