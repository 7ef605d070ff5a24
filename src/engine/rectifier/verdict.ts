// Reading an audit (SPEC §5.2 step 3): the five fields in order, and the three-part rule. A verdict is flawed only when
// `is_flawed` is true AND the suggestion is a concrete fix AND the impact assessment says yes, so a model that sets
// the flag but cannot say what to change, or admits the outcome would not change, does not prune a message.
import { readJsonAnswer } from '../../llm/json-answer.ts';

export const AUDIT_FIELDS = ['evidence_quote', 'analysis', 'suggestion', 'impact_assessment', 'is_flawed'] as const;

export interface Verdict {
  evidence_quote: string;
  analysis: string;
  suggestion: string;
  impact_assessment: string;
  is_flawed: boolean;
}

export type ParsedAudit = { ok: true; verdict: Verdict; repairs: string[] } | { ok: false; problem: string };

export function parseAudit(answer: string): ParsedAudit {
  const read = readJsonAnswer(answer);
  if (!read.ok) return { ok: false, problem: read.problem };
  const { value: o, repairs } = read;
  const missing = AUDIT_FIELDS.filter((f) => o[f] === undefined);
  if (missing.length > 0) return { ok: false, problem: `missing ${missing.join(', ')}` };
  let flag = o.is_flawed;
  if (typeof flag === 'string' && /^(true|false)$/i.test(flag.trim())) {
    flag = flag.trim().toLowerCase() === 'true';
    repairs.push('read is_flawed from a string');
  }
  if (typeof flag !== 'boolean') return { ok: false, problem: `is_flawed is ${JSON.stringify(o.is_flawed)}, not true or false` };
  const s = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const keys = Object.keys(o).filter((k) => (AUDIT_FIELDS as readonly string[]).includes(k));
  if (keys.join() !== AUDIT_FIELDS.join()) repairs.push('the fields came in another order');
  return {
    ok: true,
    verdict: {
      evidence_quote: s(o.evidence_quote),
      analysis: s(o.analysis),
      suggestion: s(o.suggestion),
      impact_assessment: s(o.impact_assessment),
      is_flawed: flag,
    },
    repairs,
  };
}

const EMPTY_SUGGESTION = /^(n\/?a|none|nothing|no|null|nil|-+|not applicable|no (fix|change|correction)s? (is |are )?(needed|required|necessary)|no issues?( found)?)\.?$/i;

/** Not N/A / none / empty: something the agent could actually change. */
export function isConcrete(suggestion: string): boolean {
  const t = suggestion.trim().replace(/^["'`]+|["'`]+$/g, '').trim();
  return t !== '' && !EMPTY_SUGGESTION.test(t);
}

/** The assessment answers YES: its first word is yes, or it says yes and never no. */
export function saysYes(assessment: string): boolean {
  const t = assessment.trim().replace(/^[^\p{L}]+/u, '');
  const first = /^\p{L}+/u.exec(t)?.[0]?.toLowerCase();
  if (first === 'yes') return true;
  if (first === 'no') return false;
  return /\byes\b/i.test(t) && !/\bno\b/i.test(t);
}

/** The three-part rule, and why a verdict with the flag set was not counted. */
export function judge(v: Verdict): { flawed: boolean; note?: string } {
  if (!v.is_flawed) return { flawed: false };
  if (!isConcrete(v.suggestion)) return { flawed: false, note: 'is_flawed was true but the suggestion is not a concrete fix' };
  if (!saysYes(v.impact_assessment)) return { flawed: false, note: 'is_flawed was true but the impact assessment does not say yes' };
  return { flawed: true };
}
