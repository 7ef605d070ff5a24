// Supervisor prompts, written for this product. They follow the paper's structure — a shared base (role, the
// situation, rules, the actions allowed here, the required JSON) plus one part per context — and a context-free
// purifier for long observations.
import { ACTION_HELP, type SupervisorAction } from './actions.ts';
import type { ContextWindow } from './context-window.ts';
import type { SupervisorContext } from './filter.ts';

export interface PromptMessage {
  role: 'system' | 'user';
  content: string;
}

function jsonContract(allowed: readonly SupervisorAction[]): string {
  return [
    'Answer with one JSON object and nothing else:',
    '{',
    '  "analysis": "two or three sentences: what you see and why you chose the action",',
    `  "action": "exactly one of ${allowed.map((a) => `'${a}'`).join(', ')}",`,
    '  "parameters": {',
    '    "new_observation": "the full replacement observation, only for correct_observation",',
    '    "guidance": "the instruction to add for the agent, only for provide_guidance",',
    '    "task": "for run_verification: the one question you want checked independently"',
    '  }',
    '}',
  ].join('\n');
}

function basePrompt(w: ContextWindow, allowed: readonly SupervisorAction[]): string {
  return [
    'You oversee one agent inside a team of cooperating LLM agents. You step in only when it helps the team reach the',
    'overall goal with fewer wasted steps and tokens; otherwise you let the agent carry on.',
    '',
    `Overall goal of the team (global task): ${w.globalTask}`,
    `Agent under review: ${w.agentName}`,
    `What this agent was asked to do (local task): ${w.localTask}`,
    '',
    'The agent’s recent steps, oldest first:',
    w.localTrace,
    '',
    'The step you are reviewing:',
    w.summary,
    '',
    'Rules:',
    '1. Decide first whether stepping in is worth it at all; an unneeded intervention costs tokens and can derail the agent.',
    '2. If you act, pick the single action that moves the work forward most directly.',
    '3. Only the actions listed below are available here.',
    '',
    'Actions available here:',
    ...allowed.map((a) => `- ${a}: ${ACTION_HELP[a]}`),
    '',
    jsonContract(allowed),
  ].join('\n');
}

const CONTEXT_PART: Record<Exclude<SupervisorContext, 'excessive'>, (w: ContextWindow) => string> = {
  error: () =>
    [
      'Situation: the step above failed with an error. Leaving it alone is not an option; choose how to repair it.',
      'Work through it in order before answering:',
      '1. Read the error: what kind it is (tool failure, exception in code, bad arguments, API problem) and its exact message.',
      '2. Read the recent steps and the agent’s reasoning: what was it trying to achieve with this call or code?',
      '3. Name the most likely single cause (for example: text passed where a number was expected, a file that does not exist).',
      '4. Choose the repair:',
      '   - provide_guidance when the agent’s next reasoning or call must change (the usual case for logic mistakes);',
      '   - correct_observation when the observation the agent relies on holds a wrong fact;',
      '   - run_verification when nobody in the trace has the fact needed to move on and it must be checked outside.',
    ].join('\n'),
  inefficient: (w) =>
    [
      `Situation: a routine efficiency check fired for agent '${w.agentName}' (many steps, or the same action repeated).`,
      'The check is a prompt to look, not proof of a problem: methodical repetition (paging through a long table, one',
      'file after another) can be the right thing to do.',
      '',
      'What every agent in the team did recently, oldest first:',
      w.globalTrace ?? '(not available)',
      '',
      'Work through it in order before answering:',
      '1. Infer what the agent is trying to do right now.',
      '2. Judge progress: does each step bring new, relevant information? How far from done is it?',
      '3. Compare the cost of letting it finish this way with the cost of redirecting it and starting over.',
      '   If it is one or two steps from finishing, redirecting it is almost always worse.',
      '4. Answer approve when it is making real progress and is close; answer provide_guidance when it is stuck',
      '   (same result again and again) or a clearly cheaper route exists and it is far from done. Guidance must be',
      '   one concrete instruction (which tool, which query or argument), not general advice.',
    ].join('\n'),
  subagent_completion: (w) =>
    [
      'Situation: a helper agent has just handed back its final report (marked with <summary_of_work>) to the agent',
      'that delegated the work. Turn that report into a clean answer for the delegating agent.',
      `What the delegating agent asked for: ${w.localTask}`,
      '',
      'Read the whole report, including the detailed part and the summary of work, then:',
      '1. List for yourself every item the request asks for.',
      '2. Find each one in the report; details often sit in the long version, not the short one.',
      '3. Write one self-contained answer that covers every item, keeps numbers, names, dates, URLs and quotes exactly,',
      '   and keeps the report’s headings and lists instead of flattening them into one paragraph.',
      '4. Say plainly what the report could not find; never fill a gap with a guess.',
      'The action must be correct_observation, with your answer in new_observation.',
    ].join('\n'),
};

/** Messages for the decision call of a context (not `excessive`, which uses the context-free purifier). */
export function decisionMessages(context: Exclude<SupervisorContext, 'excessive'>, w: ContextWindow, allowed: readonly SupervisorAction[]): PromptMessage[] {
  return [
    { role: 'system', content: basePrompt(w, allowed) },
    { role: 'user', content: `${CONTEXT_PART[context](w)}\n\nNow give your JSON answer.` },
  ];
}

/**
 * The purifier knows nothing about the task on purpose: what it keeps must be useful for any next step. It answers
 * with the shortened observation itself, not JSON.
 */
export function purifierMessages(observation: string): PromptMessage[] {
  const rules = [
    'You shorten raw tool observations (web pages, HTML, logs, long text) for an AI agent, cutting tokens without',
    'losing anything the agent might need.',
    '',
    'Principles:',
    '1. You do not know the agent’s task and must not guess it. Keep whatever could matter for any task.',
    '2. Dropping a useful fact is worse than shortening too little. When unsure, keep it.',
    '3. Keep the shape: headings, lists, tables, paragraphs and the HTML nesting stay as they are; do not merge sections.',
    '4. Copy lines that begin with `Address:` or `Viewport` (and similar page metadata at the top) exactly.',
    '',
    'For HTML:',
    '- Remove <script>, <style>, <noscript>, <svg> and comments entirely.',
    '- Remove attributes except href, src, alt, title, aria-label, placeholder and value (drop class, id, style, on*, data-*).',
    '- Keep every link target and every visible text.',
    '',
    'For prose and other text:',
    '- Remove navigation menus, cookie banners, repeated footers and other boilerplate that carries no content.',
    '- Tighten wordy sentences but keep each fact, number, name, date and URL; never drop a sentence’s content.',
    '- Keep lists as lists and keep truncation notices (they tell the agent there is more).',
    '',
    'Reply with the shortened observation only: no preface, no explanation, no code fence.',
  ].join('\n');
  return [
    { role: 'system', content: rules },
    { role: 'user', content: observation },
  ];
}

export function verificationMessages(task: string, w: ContextWindow): PromptMessage[] {
  return [
    {
      role: 'system',
      content: [
        'You are a careful verification assistant working for a supervisor of AI agents. Answer the question you are',
        'given as precisely as you can. Give the answer first, then the evidence or reasoning in a few lines. If you',
        'cannot establish the answer, say so and say what would settle it; never invent facts.',
      ].join('\n'),
    },
    { role: 'user', content: `Overall goal of the team, for context: ${w.globalTask}\n\nQuestion to verify: ${task}` },
  ];
}
