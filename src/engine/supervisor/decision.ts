// Reading the supervisor model's answer. Models wrap JSON in fences, add prose around it, leave trailing commas,
// or pick an action the context does not allow; each repair is noted so the UI can show what happened.
import { recordOf } from '../../model/record.ts';
import { readJsonAnswer } from '../../llm/json-answer.ts';
import { ALL_ACTIONS, type Decision, type SupervisorAction } from './actions.ts';

export interface ParsedDecision {
  decision?: Decision;
  /** What had to be fixed to read the answer; empty when it was clean. */
  repairs: string[];
  /** Why no usable decision came out (then the caller falls back). */
  problem?: string;
}

const ACTION_SYNONYMS: Record<string, SupervisorAction> = recordOf({
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
});

function normaliseAction(raw: unknown): SupervisorAction | undefined {
  if (typeof raw !== 'string') return undefined;
  const key = raw.trim().toLowerCase().replace(/[\s-]+/g, '_').replace(/^['"`]|['"`]$/g, '');
  return ACTION_SYNONYMS[key];
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

export function parseDecision(answer: string, allowed: readonly SupervisorAction[]): ParsedDecision {
  const read = readJsonAnswer(answer);
  const repairs = read.repairs;
  if (!read.ok) return { repairs, problem: read.problem };
  const obj = read.value;
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
