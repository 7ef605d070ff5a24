// Reading the supervisor model's answer. Models wrap JSON in fences, add prose around it, leave trailing commas,
// or pick an action the context does not allow; each repair is noted so the UI can show what happened.
import { ALL_ACTIONS, type Decision, type SupervisorAction } from './actions.ts';

export interface ParsedDecision {
  decision?: Decision;
  /** What had to be fixed to read the answer; empty when it was clean. */
  repairs: string[];
  /** Why no usable decision came out (then the caller falls back). */
  problem?: string;
}

/** The first balanced `{…}` in the text, skipping braces inside strings. */
export function extractJsonObject(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start === -1) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const ACTION_SYNONYMS: Record<string, SupervisorAction> = {
  approve: 'approve',
  approved: 'approve',
  continue: 'approve',
  none: 'approve',
  correct_observation: 'correct_observation',
  correct: 'correct_observation',
  purify: 'correct_observation',
  provide_guidance: 'provide_guidance',
  guidance: 'provide_guidance',
  guide: 'provide_guidance',
  run_verification: 'run_verification',
  verify: 'run_verification',
  verification: 'run_verification',
};

function normaliseAction(raw: unknown): SupervisorAction | undefined {
  if (typeof raw !== 'string') return undefined;
  const key = raw.trim().toLowerCase().replace(/[\s-]+/g, '_').replace(/^['"`]|['"`]$/g, '');
  return ACTION_SYNONYMS[key];
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

export function parseDecision(answer: string, allowed: readonly SupervisorAction[]): ParsedDecision {
  const repairs: string[] = [];
  const trimmed = answer.trim();
  let value = tryParse(trimmed);
  if (value === undefined) {
    const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(trimmed);
    const candidate = extractJsonObject(fenced ? fenced[1] : trimmed);
    if (candidate === undefined) return { repairs, problem: 'the answer contains no JSON object' };
    repairs.push(fenced ? 'took the JSON out of a code fence' : 'ignored text around the JSON object');
    value = tryParse(candidate);
    if (value === undefined) {
      const fixed = candidate.replace(/,\s*([}\]])/g, '$1').replace(/[“”]/g, '"');
      value = tryParse(fixed);
      if (value === undefined) return { repairs, problem: 'the JSON object in the answer does not parse' };
      repairs.push('removed trailing commas or typographic quotes');
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { repairs, problem: 'the answer is not a JSON object' };
  const obj = value as Record<string, unknown>;
  const params = (obj.parameters && typeof obj.parameters === 'object' ? obj.parameters : {}) as Record<string, unknown>;
  if (!(obj.parameters && typeof obj.parameters === 'object')) {
    // Some models put the parameters at the top level.
    for (const k of ['new_observation', 'guidance', 'task']) if (text(obj[k]) !== undefined) params[k] = obj[k];
  }
  const parameters: Decision['parameters'] = {};
  if (text(params.new_observation)) parameters.new_observation = params.new_observation as string;
  if (text(params.guidance)) parameters.guidance = params.guidance as string;
  if (text(params.task)) parameters.task = params.task as string;
  const analysis = text(obj.analysis) ?? '';

  let action = normaliseAction(obj.action);
  if (action === undefined) {
    if (typeof obj.action === 'string') repairs.push(`unknown action ${JSON.stringify(obj.action)}`);
    else repairs.push('no action given');
  } else if (obj.action !== action) repairs.push(`read action ${JSON.stringify(obj.action)} as ${action}`);

  if (action !== undefined && !allowed.includes(action)) {
    repairs.push(`${action} is not allowed here (allowed: ${allowed.join(', ')})`);
    action = undefined;
  }
  if (action === undefined) {
    // The parameters often show what the model meant: take the one allowed action they support.
    const supported = allowed.filter((a) => hasParameterFor(a, parameters));
    if (supported.length === 1) {
      action = supported[0];
      repairs.push(`chose ${action} from the parameters given`);
    } else return { repairs, problem: 'no allowed action could be read from the answer' };
  }
  if (!hasParameterFor(action, parameters)) {
    return { repairs, problem: `${action} needs ${parameterName(action)}, which the answer left empty` };
  }
  return { decision: { analysis, action, parameters }, repairs };
}

function parameterName(a: SupervisorAction): string {
  return a === 'correct_observation' ? 'new_observation' : a === 'provide_guidance' ? 'guidance' : a === 'run_verification' ? 'task' : '';
}

function hasParameterFor(a: SupervisorAction, p: Decision['parameters']): boolean {
  if (a === 'approve') return true;
  const name = parameterName(a) as keyof Decision['parameters'];
  return p[name] !== undefined;
}

export { ALL_ACTIONS };
