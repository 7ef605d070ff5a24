// Failure indicators (SPEC §5.2): the published pool format `{name, detailed_definition, evaluator_prompt{trigger_condition,
// risk_alert}, metadata}`, read as-is (extra fields kept), plus the general indicators we wrote for zero-shot use.
import { hashText } from '../../model/hash.ts';
import type { Domain, Indicator, IndicatorPool } from '../../model/engine-params.ts';

// The pool's types and the domains are data the settings store holds too (src/model/engine-params.ts).
export { DOMAINS, type Domain, type Indicator, type IndicatorPool } from '../../model/engine-params.ts';

export class PoolFormatError extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path}: ${what}`);
    this.name = 'PoolFormatError';
  }
}

const str = (v: unknown) => typeof v === 'string';

/** Validate one entry; throws PoolFormatError naming the JSON path of the problem. */
export function readIndicator(value: unknown, path: string): Indicator {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new PoolFormatError(path, 'is not an object');
  const o = value as Record<string, unknown>;
  if (!str(o.name) || (o.name as string).trim() === '') throw new PoolFormatError(`${path}.name`, 'must be a non-empty string');
  if (!str(o.detailed_definition)) throw new PoolFormatError(`${path}.detailed_definition`, 'must be a string');
  const ep = o.evaluator_prompt;
  if (!ep || typeof ep !== 'object' || Array.isArray(ep)) throw new PoolFormatError(`${path}.evaluator_prompt`, 'must be an object');
  const e = ep as Record<string, unknown>;
  if (!str(e.trigger_condition)) throw new PoolFormatError(`${path}.evaluator_prompt.trigger_condition`, 'must be a string');
  if (e.risk_alert !== undefined && !str(e.risk_alert)) throw new PoolFormatError(`${path}.evaluator_prompt.risk_alert`, 'must be a string');
  if (o.metadata !== undefined && (typeof o.metadata !== 'object' || o.metadata === null || Array.isArray(o.metadata))) {
    throw new PoolFormatError(`${path}.metadata`, 'must be an object');
  }
  return o as Indicator;
}

/** A pool file: a JSON array of indicators (the published format), or `{indicators:[…]}`. */
export function parsePool(text: string, name: string): IndicatorPool {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new PoolFormatError('$', `not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const list = Array.isArray(value) ? value : value && typeof value === 'object' && Array.isArray((value as { indicators?: unknown }).indicators) ? (value as { indicators: unknown[] }).indicators : undefined;
  if (!list) throw new PoolFormatError('$', 'expected a JSON array of indicators');
  const base = Array.isArray(value) ? '$' : '$.indicators';
  return { name, indicators: list.map((v, i) => readIndicator(v, `${base}[${i}]`)) };
}

/** The pool as the published format (a JSON array), for export. */
export function serializePool(pool: IndicatorPool): string {
  return `${JSON.stringify(pool.indicators, null, 2)}\n`;
}

/** Identifies the texts a set of embeddings was computed from: any edit to them changes the hash. */
export function poolTextHash(texts: readonly string[]): string {
  return `${texts.length}-${hashText(texts.join('\u0000'))}`;
}

export const triggerText = (i: Indicator) => i.evaluator_prompt.trigger_condition;
/** Algorithm 2 embeds definition ⊕ trigger for deduplication. */
export const dedupText = (i: Indicator) => `${i.detailed_definition}\n${i.evaluator_prompt.trigger_condition}`;

/** Domain tag of an indicator (mined ones carry `domain_tag`), for the pool browser's filter. */
export function domainTagOf(i: Indicator): string | undefined {
  const tag = i.domain_tag ?? i.metadata?.domain_tag;
  return typeof tag === 'string' && tag.trim() !== '' ? tag : undefined;
}

/** Where an indicator came from: `metadata.source` when set (ours: general, mined, manual), else the published pool. */
export function sourceOf(i: Indicator): string {
  const s = i.metadata?.source;
  return typeof s === 'string' && s !== '' ? s : 'pool';
}

// Zero-shot mode: one indicator per domain that always applies. Written for this product (their structure follows
// the paper's general indicators: a name, what to look for, and a trigger that always holds).
export const GENERAL_INDICATORS: Record<Domain, Indicator> = {
  math: {
    name: 'GENERAL_MATH_REASONING_CHECK',
    detailed_definition:
      'A broad check for a mistake that would make the result wrong: an arithmetic slip, a misread condition of the problem, a case left out, or a step that does not follow from the previous one.',
    evaluator_prompt: {
      trigger_condition: 'The agent computes, derives or states a mathematical result.',
      risk_alert: 'Re-check each computation and every condition of the problem that the result depends on.',
    },
    metadata: { source: 'general', domain_tag: 'math' },
  },
  code: {
    name: 'GENERAL_CODE_CORRECTNESS_CHECK',
    detailed_definition:
      'A broad check for code that would fail or give a wrong answer: a crash, an unhandled input, an off-by-one, a wrong interface, or a requirement of the task that the code ignores.',
    evaluator_prompt: {
      trigger_condition: 'The agent writes, changes, runs or explains program code.',
      risk_alert: 'Walk through the code on the task’s inputs, including edge cases, and compare with what the task asks.',
    },
    metadata: { source: 'general', domain_tag: 'code' },
  },
  generic: {
    name: 'GENERAL_REASONING_CONSISTENCY_CHECK',
    detailed_definition:
      'A broad check for a claim that is unsupported or contradicted by what the conversation shows, a step that does not follow, or an answer that does not address what the task asks.',
    evaluator_prompt: {
      trigger_condition: 'The agent reasons about the task or reports a result to the team.',
      risk_alert: 'Compare every stated fact with the messages and tool results it rests on; flag only what changes the outcome.',
    },
    metadata: { source: 'general', domain_tag: 'generic' },
  },
};
