// Prompts of the rectifier (SPEC §5.2), written for this product. Their structure follows the paper: a role, the
// rules the model must apply, and the JSON fields it must return (in the order the verdict logic depends on).
import type { ChatMessage } from '../../model/types.ts';
import type { Domain, Indicator } from './indicators.ts';

type Msg = Pick<ChatMessage, 'role' | 'content'>;

/** Keeps prompts bounded on long traces: the head and the tail of a long text, with the cut marked. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.6);
  return `${text.slice(0, head)}\n[… ${text.length - max} characters left out …]\n${text.slice(text.length - (max - head))}`;
}

export function keywordMessages(task: string, agent: string, output: string): Msg[] {
  return [
    {
      role: 'system',
      content:
        'You index agent messages so that a library of known failure patterns can be searched. Read the task and one ' +
        "agent's message and name (1) the kind of problem being worked on and (2) what the agent is doing in this message. " +
        'Use short generic phrases (two to five words each, at most six per list) that would also describe similar problems; ' +
        'no numbers or names specific to this instance.\n' +
        'Answer with one JSON object only: {"scenario_keywords": [string, …], "action_keywords": [string, …]}',
    },
    { role: 'user', content: `Task:\n${clip(task, 3000)}\n\nAgent: ${agent}\n\nMessage:\n${clip(output, 6000)}` },
  ];
}

export function retrievalQuery(scenario: readonly string[], action: readonly string[]): string {
  return `Problem Scenario: ${scenario.join(', ')} Agent Action: ${action.join(', ')}`;
}

const AUDIT_ROLE: Record<Domain, { who: string; error: string; fix: string; impact: string; harmless: string }> = {
  math: {
    who: 'a careful reviewer of mathematical reasoning',
    error: 'a reasoning or calculation mistake that makes its result wrong',
    fix: 'a corrected formula, step or value',
    impact: 'If your fix were applied, would the result the task asks for come out different? Start with YES or NO, then say why in one sentence.',
    harmless: 'Clumsy wording, a longer route or a different method is not a mistake when the result is still right.',
  },
  code: {
    who: 'a careful reviewer of program code',
    error: 'a bug that makes the code crash, hang or return a wrong result, or that breaks the required interface',
    fix: 'a specific code change (a line, a condition, an argument)',
    impact: 'Would applying your fix remove a crash, a hang or a wrong output? Start with YES or NO, then say why in one sentence.',
    harmless: 'Code that works and gives the right output is not flawed for being slow, long-winded or unusual in style.',
  },
  generic: {
    who: 'a careful reviewer of a team member’s work',
    error: 'a mistake that would mislead the team: an unsupported or contradicted claim, a step that does not follow, or an answer to a different question',
    fix: 'a specific correction (the right fact, step or next action)',
    impact: 'Would applying your fix change the team’s answer or its next decision? Start with YES or NO, then say why in one sentence.',
    harmless: 'Style, length or a different but valid approach is not a mistake.',
  },
};

export interface AuditContext {
  task: string;
  agent: string;
  role?: string;
  /** What the agent had seen (its recorded input), already as text. */
  seen: string;
  output: string;
}

export function auditMessages(domain: Domain, indicator: Indicator, ctx: AuditContext): Msg[] {
  const r = AUDIT_ROLE[domain];
  const ep = indicator.evaluator_prompt;
  const system =
    `You are ${r.who}. Decide whether the message below from one member of an agent team contains ${r.error}, ` +
    'judged against ONE area of concern only.\n\n' +
    'Rules:\n' +
    '1. Assume the message is right. Call it flawed only when you can point to the exact words that are wrong.\n' +
    `2. If you cannot give ${r.fix}, it is not a flaw.\n` +
    `3. If the mistake does not change the outcome, it is not a flaw. ${r.harmless}\n` +
    '4. Problems outside the area of concern are not your job here.\n\n' +
    'Answer with one JSON object only, with these fields in this order (fill them in this order: the verdict comes last ' +
    'and must agree with what you wrote before it):\n' +
    '{\n' +
    '  "evidence_quote": "the wrong part, quoted exactly; N/A if nothing is wrong",\n' +
    '  "analysis": "briefly, why that part breaks the area of concern; N/A if nothing is wrong",\n' +
    `  "suggestion": "${r.fix.replace(/^a /, 'the ')} that repairs it, or N/A when there is nothing to repair",\n` +
    `  "impact_assessment": "${r.impact}",\n` +
    '  "is_flawed": true if and only if your suggestion is a concrete change and your impact_assessment begins with YES; false otherwise\n' +
    '}';
  const concern =
    `Area of concern: ${indicator.name}\n` +
    `When it applies: ${ep.trigger_condition}\n` +
    `What goes wrong: ${indicator.detailed_definition}` +
    (ep.risk_alert ? `\nWhat to check: ${ep.risk_alert}` : '');
  const user =
    `${concern}\n\n` +
    `Task:\n${clip(ctx.task, 3000)}\n\n` +
    (ctx.seen.trim() ? `Conversation the agent had seen:\n${clip(ctx.seen, 6000)}\n\n` : '') +
    `Agent: ${ctx.agent}${ctx.role ? ` (${ctx.role})` : ''}\n\n` +
    `Message to review:\n${clip(ctx.output, 8000)}`;
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** Sent after an answer that could not be read, so the retry is a different request and says what went wrong. */
export const AUDIT_REPAIR_NOTE =
  'Your previous answer could not be read. Reply again with the JSON object only: the five fields evidence_quote, analysis, ' +
  'suggestion, impact_assessment (strings) and is_flawed (true or false), in that order.';

export interface FlawNote {
  indicator: string;
  suggestion: string;
  analysis: string;
}

/** The feedback an agent gets before it retries: each flawed indicator's name, suggestion and the reviewer's note. */
export function composeFeedback(flaws: readonly FlawNote[]): string {
  const items = flaws.map((f, i) => `${i + 1}. ${f.indicator}\n   Suggested fix: ${f.suggestion}\n   Reviewer's note: ${f.analysis}`);
  return (
    'A reviewer checked your last message before it reached the team and found these problems:\n\n' +
    `${items.join('\n\n')}\n\n` +
    'Write your message again with the problems fixed. The reviewer can be wrong: if you are sure a point is mistaken, ' +
    'keep your version of it. Reply with the new message only, as you would send it to the team.'
  );
}

/** The agent's retry: its recorded input, its previous attempt, then the feedback. */
export function regenerationMessages(input: readonly Msg[], previousOutput: string, feedback: string): Msg[] {
  return [...input, { role: 'assistant', content: previousOutput }, { role: 'user', content: feedback }];
}

export function teacherMessages(domain: Domain, ctx: { task: string; reference: string; agent: string; output: string; finalAnswer?: string }): Msg[] {
  const system =
    'You study failed runs of agent teams to build a library of failure patterns. The team below gave a WRONG final ' +
    'answer. Compare one agent’s message with the task and the reference answer and find the mistakes in that message.\n\n' +
    'Rules:\n' +
    '- The reference is one correct answer; do not penalise a different but valid route, or output that fits the agent’s role.\n' +
    '- Only count mistakes of reasoning, calculation, fact or code that contradict the task or the truth.\n' +
    '- Read the whole message; report up to four distinct mistakes.\n' +
    '- Describe each as a GENERAL pattern that can recur on other problems, not as this instance.\n\n' +
    'If the message has no mistake, answer exactly NO_ERROR. Otherwise answer with a JSON list of objects:\n' +
    '[{"name": "UPPER_SNAKE_CASE name of the pattern",\n' +
    '  "domain_tag": "e.g. Algebra, Geometry, Probability, Python Implementation, Web Research",\n' +
    '  "detailed_definition": "one sentence: what the agent gets wrong and what that mistake causes",\n' +
    '  "evaluator_prompt": {"trigger_condition": "the kind of problem, or the action under way, in which this mistake tends to appear (a situation, not the mistake)",\n' +
    '                       "risk_alert": "what a reviewer should check"},\n' +
    '  "example_error": "the wrong step quoted — why it is wrong and how to fix it"}]\n' +
    'Escape backslashes in JSON strings (write \\\\frac, not \\frac).';
  const user =
    `Domain: ${domain}\n\nTask:\n${clip(ctx.task, 4000)}\n\nReference answer:\n${clip(ctx.reference, 2000)}\n\n` +
    (ctx.finalAnswer ? `The team's (wrong) final answer:\n${clip(ctx.finalAnswer, 1000)}\n\n` : '') +
    `Agent: ${ctx.agent}\n\nAgent's message:\n${clip(ctx.output, 8000)}`;
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

export function noveltyMessages(candidate: Indicator, similar: readonly Indicator[]): Msg[] {
  const describe = (i: Indicator) => `- ${i.name}: ${i.detailed_definition} (applies when: ${i.evaluator_prompt.trigger_condition})`;
  return [
    {
      role: 'system',
      content:
        'You keep a library of failure patterns free of duplicates. Decide whether the candidate pattern describes a ' +
        'mistake that none of the existing patterns already covers. Rewordings, narrower cases and the same root cause ' +
        'in other words are NOT new.\nAnswer with one JSON object only: {"is_novel": true|false, "reason": "one sentence", "duplicate_of": "name or null"}',
    },
    { role: 'user', content: `Candidate:\n${describe(candidate)}\n\nExisting patterns most similar to it:\n${similar.map(describe).join('\n') || '(none)'}` },
  ];
}
