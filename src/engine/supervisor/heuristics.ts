// The LLM-free supervisor (the default offline): a deterministic purifier for long observations, templated loop
// guidance naming the repeated call, and templated hints for common errors. Everything it produces is marked
// heuristic.
import type { Step } from '../../model/types.ts';
import type { Decision } from './actions.ts';
import { formatCall } from './context-window.ts';
import { describeSignature, type Trigger } from './filter.ts';

const KEPT_ATTRIBUTES = new Set(['href', 'src', 'alt', 'title', 'aria-label', 'placeholder', 'value']);
const BOILERPLATE = [
  /^\s*(accept( all)? cookies?|we use cookies\b.*|cookie (settings|policy|preferences))\s*$/i,
  /^\s*(skip to (main )?content|toggle navigation|back to top|jump to (navigation|search))\s*$/i,
  /^\s*(share( this)?( on)? (facebook|twitter|x|linkedin|email)|follow us( on)?.*)\s*$/i,
  /^\s*(all rights reserved\.?|©.*all rights reserved.*|privacy policy|terms of (use|service))\s*$/i,
  /^\s*(sign in|log in|subscribe|sign up|menu|search)\s*$/i,
];

function cleanTag(tag: string): string {
  const m = /^<\s*(\/?)\s*([a-zA-Z][\w:-]*)([\s\S]*?)(\/?)\s*>$/.exec(tag);
  if (!m) return tag;
  const [, closing, name, attrs, selfClose] = m;
  if (closing) return `</${name.toLowerCase()}>`;
  const kept: string[] = [];
  const attrRe = /([^\s=/>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g;
  let a: RegExpExecArray | null;
  while ((a = attrRe.exec(attrs)) !== null) {
    const key = a[1].toLowerCase();
    if (KEPT_ATTRIBUTES.has(key) && a[2] !== undefined) kept.push(`${key}=${a[2]}`);
  }
  return `<${name.toLowerCase()}${kept.length ? ` ${kept.join(' ')}` : ''}${selfClose ? ' /' : ''}>`;
}

/**
 * Strip markup noise and boilerplate while keeping structure, links and metadata lines (`Address:`, `Viewport…`,
 * `Title:`). Never invents text; only removes.
 */
export function purifyObservation(observation: string): string {
  let s = observation.replace(/\r\n?/g, '\n');
  s = s.replace(/<!--[\s\S]*?-->/g, '');
  s = s.replace(/<(script|style|noscript|svg|template)\b[\s\S]*?<\/\1\s*>/gi, '');
  s = s.replace(/<(script|style|noscript|svg|template)\b[^>]*\/>/gi, '');
  s = s.replace(/<\/?[a-zA-Z][^<>]*>/g, cleanTag);
  // Markdown images with data URIs and long tracking query strings are pure noise for an agent.
  s = s.replace(/!\[([^\]]*)\]\(data:[^)]*\)/g, '![$1](data:…)');
  s = s.replace(/\b(https?:\/\/[^\s)"'<>?]+)\?(?:utm_[^\s)"'<>]*)/g, '$1');
  const out: string[] = [];
  let blank = 0;
  let previous = '';
  for (const raw of s.split('\n')) {
    const line = raw.replace(/[ \t\u00a0]+/g, ' ').replace(/\s+$/, '');
    const metadata = /^(Address|Viewport|Title|URL|Source):/i.test(line.trim()) || /^Viewport\b/.test(line.trim());
    if (!metadata && BOILERPLATE.some((re) => re.test(line))) continue;
    if (line.trim() === '') {
      if (++blank > 1) continue;
    } else {
      blank = 0;
      // A line repeated right after itself (menus, pagination widgets) carries nothing new.
      if (line === previous && !metadata) continue;
      previous = line;
    }
    out.push(line);
  }
  return out.join('\n').trim();
}

export function loopGuidance(step: Step, trigger: Trigger): string {
  const calls = describeSignature(step).map((c) => formatCall(c, 160)).join(', ');
  if (trigger.rule === 'loop' || trigger.loopAlso) {
    return (
      `You have made the same call ${trigger.repeated} times in a row: ${calls}. Repeating it will not give new ` +
      'information. Change the approach: use a different tool, change the query or arguments, or, if you already ' +
      'have enough, give your answer.'
    );
  }
  return (
    `This is step ${trigger.n} of your current task. Check your progress against the task: if the last steps did not ` +
    'bring new information, change the approach (another tool, a narrower query) or conclude with what you have.'
  );
}

const ERROR_HINTS: [RegExp, string][] = [
  [/not among (the )?(allowed|authorized) imports|import of .* is not allowed/i, 'That module cannot be imported here; use the tools you were given or an allowed module.'],
  [/ModuleNotFoundError|No module named/i, 'That module is not installed; use a different approach or one of your tools.'],
  [/FileNotFoundError|No such file|does not exist/i, 'The path does not exist. Check the exact file name or list the available files before reading.'],
  [/KeyError/i, 'A key is missing. Print the available keys first, then use one that exists.'],
  [/IndexError|out of range/i, 'An index is out of range. Check the length of the data before indexing.'],
  [/TypeError|unexpected keyword|takes \d+ positional|missing \d+ required/i, 'A call had the wrong arguments. Check the tool or function signature and pass the arguments it expects.'],
  [/SyntaxError|IndentationError|invalid syntax/i, 'The code does not parse. Fix the syntax (quotes, brackets, indentation) and run it again.'],
  [/NameError|is not defined/i, 'A name is used before it is defined. Define it in this code block or use the right variable.'],
  [/timed? ?out|timeout/i, 'The call timed out. Retry with a smaller request or try another source.'],
  [/\b(403|404|forbidden|not found)\b/i, 'That page or resource could not be reached. Try another source or a search for the same information.'],
  [/\b(429|rate limit)/i, 'A rate limit was hit. Wait before calling again, or use another source.'],
  [/parsing|could not parse|invalid (json|format)|regex pattern/i, 'The output format was not what the framework expects. Follow the required format exactly (for code: a single fenced code block).'],
];

export function errorHint(step: Step): string {
  const message = step.error?.message ?? '';
  const first = message.split('\n').find((l) => l.trim() !== '')?.trim() ?? 'unknown error';
  const hint = ERROR_HINTS.find(([re]) => re.test(message))?.[1] ?? 'Read the error message, fix the cause in your next call, and do not repeat the same call unchanged.';
  const calls = describeSignature(step).map((c) => formatCall(c, 120)).join(', ');
  return `The last step failed (${first.slice(0, 200)}) while running ${calls}. ${hint}`;
}

/** What the LLM-free supervisor does for a trigger; also the safe fallback when the model's answer is unusable. */
export function heuristicDecision(step: Step, trigger: Trigger): Decision {
  switch (trigger.context) {
    case 'excessive':
    case 'subagent_completion':
      return {
        analysis: 'Deterministic purification: markup noise and boilerplate removed, structure and links kept.',
        action: 'correct_observation',
        parameters: { new_observation: purifyObservation(step.observation ?? '') },
      };
    case 'error':
      return { analysis: 'Templated hint for the error.', action: 'provide_guidance', parameters: { guidance: errorHint(step) } };
    case 'inefficient':
      if (trigger.rule === 'loop' || trigger.loopAlso) {
        return { analysis: 'The same action repeated; templated loop guidance.', action: 'provide_guidance', parameters: { guidance: loopGuidance(step, trigger) } };
      }
      // A periodic check alone is no evidence of a problem; without a model to judge progress, do not interrupt.
      return { analysis: 'Periodic check without a repeated action: no evidence of a problem.', action: 'approve', parameters: {} };
  }
}
