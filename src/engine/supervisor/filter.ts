// The LLM-free adaptive filter (SPEC §5.1, SupervisorAgent Algorithm 1): decides, per action step, whether the
// supervisor looks at it and in which context. It runs over every step of every run, so it is written to cost
// little more than reading the fields: no per-step allocation, signatures compared against the previous step in
// place, and code points counted only when the UTF-16 length is near the threshold.
import type { Step } from '../../model/types.ts';
import type { FilterThresholds } from './presets.ts';

export type SupervisorContext = 'subagent_completion' | 'error' | 'inefficient' | 'excessive';

/** Which rule fired; `inefficient` has two. */
export type FilterRule = 'summary_marker' | 'error' | 'periodic' | 'loop' | 'length';

export interface FilterParams extends FilterThresholds {
  /** Errors the agents handle themselves: a string matches as a substring of the message or type; RegExp on the message. */
  nonCriticalErrors: readonly (string | RegExp)[];
  /** Cap on inefficient triggers per agent run (the paper uses 2). */
  maxInefficientPerRun: number;
}

export interface Trigger {
  stepId: string;
  /** Index into run.steps. */
  stepIndex: number;
  agentId: string;
  agentRunKey: string;
  context: SupervisorContext;
  rule: FilterRule;
  /** N: action steps of this agent run so far, the current one included. */
  n: number;
  /** How many consecutive action steps, ending here, share this step's signature. */
  repeated: number;
  /** The periodic rule fired and the loop rule held as well. */
  loopAlso: boolean;
  /** Observation length in code points (only measured for `excessive`). */
  length: number | undefined;
}

export const SUMMARY_MARKER = '<summary_of_work>';
export const MAX_INEFFICIENT_PER_RUN = 2;

export function filterParams(t: FilterThresholds, extra: Partial<Omit<FilterParams, keyof FilterThresholds>> = {}): FilterParams {
  return { ...t, nonCriticalErrors: extra.nonCriticalErrors ?? [], maxInefficientPerRun: extra.maxInefficientPerRun ?? MAX_INEFFICIENT_PER_RUN };
}

class RunState {
  n = 0;
  inefficient = 0;
  repeated = 0;
  previous: Step | undefined = undefined;
  /** Code range of `previous` when already measured, else -1. */
  previousStart = -1;
  previousEnd = -1;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code points in `s`, but stops counting once past `limit` (the caller only needs to know "more than limit"). */
export function codePointLengthExceeds(s: string, limit: number): number | false {
  const units = s.length;
  if (units <= limit) return false;
  // Each code point is one or two UTF-16 units, so more than 2·limit units is over the limit whatever the text.
  if (units > 2 * limit) return countCodePoints(s);
  // A native regex scan is far cheaper than a charCodeAt loop, and most observations have no astral characters.
  if (!SURROGATE.test(s)) return units;
  let pairs = 0;
  for (let i = 0; i < units; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < units) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
        if (units - pairs <= limit) return false;
      }
    }
  }
  return units - pairs;
}

function countCodePoints(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let pairs = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return s.length - pairs;
}

// Bounds of the last codeRange() result; module-level so comparing two steps allocates nothing.
let rangeStart = 0;
let rangeEnd = 0;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** Sets rangeStart/rangeEnd to the first fenced block's body (trimmed), or the whole output when there is none. */
function codeRange(output: string): void {
  rangeStart = 0;
  rangeEnd = output.length;
  const open = output.indexOf('```');
  if (open === -1) return;
  const lineEnd = output.indexOf('\n', open + 3);
  if (lineEnd === -1) return;
  const close = output.indexOf('```', lineEnd + 1);
  let start = lineEnd + 1;
  let end = close === -1 ? output.length : close;
  while (start < end && isSpace(output.charCodeAt(start))) start++;
  while (end > start && isSpace(output.charCodeAt(end - 1))) end--;
  rangeStart = start;
  rangeEnd = end;
}

/** The code an action step ran when it made no tool call: its output's first fenced block, else the whole output. */
export function firstCodeBlock(output: string): string {
  codeRange(output);
  return rangeStart === 0 && rangeEnd === output.length ? output : output.slice(rangeStart, rangeEnd);
}

/** The action signature as text, for display and templated guidance (the filter itself compares in place). */
export function describeSignature(step: Step): { name: string; arguments: string }[] {
  const calls = step.toolCalls;
  if (calls && calls.length > 0) return calls.map((c) => ({ name: c.name, arguments: c.arguments }));
  return [{ name: 'python_interpreter', arguments: firstCodeBlock(step.output ?? '') }];
}

export function sameSignature(a: Step, b: Step): boolean {
  return signatureMatches(a, b, -1, -1);
}

/** Whether the last signatureMatches() call measured b's code range (then rangeStart/rangeEnd hold it). */
let bRangeKnown = false;

/**
 * Whether b's signature equals a's. `aStart`/`aEnd` are a's code range when already known (-1 when not). Code
 * ranges are measured only when a comparison needs them; bRangeKnown says whether b's was, so the caller can keep
 * it for the next comparison.
 */
function signatureMatches(a: Step, b: Step, aStart: number, aEnd: number): boolean {
  bRangeKnown = false;
  const ca = a.toolCalls;
  const cb = b.toolCalls;
  const la = ca ? ca.length : 0;
  const lb = cb ? cb.length : 0;
  if (la !== lb) {
    // A step without calls has the signature [("python_interpreter", code)], which a recorded call can equal.
    if (la + lb !== 1) return false;
    if (la === 1) {
      if (ca![0].name !== 'python_interpreter') return false;
      const ob = b.output ?? '';
      codeRange(ob);
      bRangeKnown = true;
      return equalsRange(ca![0].arguments, ob, rangeStart, rangeEnd);
    }
    if (cb![0].name !== 'python_interpreter') return false;
    const oa = a.output ?? '';
    if (aStart === -1) codeRange(oa);
    return equalsRange(cb![0].arguments, oa, aStart === -1 ? rangeStart : aStart, aStart === -1 ? rangeEnd : aEnd);
  }
  if (la > 0) {
    for (let i = 0; i < la; i++) {
      const x = ca![i];
      const y = cb![i];
      if (x.name !== y.name || x.arguments !== y.arguments) return false;
    }
    return true;
  }
  const oa = a.output ?? '';
  const ob = b.output ?? '';
  if (oa === ob) return true;
  let as = aStart;
  let ae = aEnd;
  if (as === -1) {
    codeRange(oa);
    as = rangeStart;
    ae = rangeEnd;
  }
  codeRange(ob);
  bRangeKnown = true;
  if (ae - as !== rangeEnd - rangeStart) return false;
  for (let i = 0, n = ae - as; i < n; i++) if (oa.charCodeAt(as + i) !== ob.charCodeAt(rangeStart + i)) return false;
  return true;
}

function equalsRange(text: string, source: string, start: number, end: number): boolean {
  if (text.length !== end - start) return false;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== source.charCodeAt(start + i)) return false;
  return true;
}

export function isNonCritical(error: NonNullable<Step['error']>, patterns: FilterParams['nonCriticalErrors']): boolean {
  for (const p of patterns) {
    if (typeof p === 'string') {
      if (error.message.includes(p) || error.type === p) return true;
    } else if (p.test(error.message)) return true;
  }
  return false;
}

/**
 * Streaming form: feed action steps in run order, get a trigger or undefined. Holds only one small record per agent
 * run, so a replay can check steps as they arrive.
 */
export class AdaptiveFilter {
  private readonly runs = new Map<string, RunState>();
  private lastKey: string | undefined;
  private lastState: RunState | undefined;
  // Copied out of params so the hot loop reads fields of one stable object shape.
  private readonly tauStep: number;
  private readonly tauLoop: number;
  private readonly tauLen: number;
  private readonly maxInefficient: number;
  private readonly nonCritical: FilterParams['nonCriticalErrors'];

  constructor(readonly params: FilterParams) {
    this.tauStep = params.tauStep;
    this.tauLoop = params.tauLoop;
    this.tauLen = params.tauLen;
    this.maxInefficient = params.maxInefficientPerRun;
    this.nonCritical = params.nonCriticalErrors;
    if (!(params.tauStep >= 1 && params.tauLoop >= 1 && params.tauLen >= 0)) {
      throw new Error(`filter thresholds must be positive (τ_step ${params.tauStep}, τ_loop ${params.tauLoop}, τ_len ${params.tauLen})`);
    }
  }

  /** Non-action steps are ignored and return undefined. */
  check(step: Step, stepIndex: number): Trigger | undefined {
    if (step.kind !== 'action') return undefined;
    const key = step.agentRunId ?? step.agentId;
    let state = this.lastState;
    if (key !== this.lastKey || state === undefined) {
      state = this.runs.get(key);
      if (state === undefined) {
        state = new RunState();
        this.runs.set(key, state);
      }
      this.lastKey = key;
      this.lastState = state;
    }
    const n = ++state.n;
    const capped = state.inefficient >= this.maxInefficient;
    const tauLoop = this.tauLoop;
    // After the cap, rules 3-4 are off for this run, so the signature history no longer matters.
    if (!capped) {
      const previous = state.previous;
      const same = previous !== undefined && signatureMatches(previous, step, state.previousStart, state.previousEnd);
      state.repeated = same ? state.repeated + 1 : 1;
      state.previous = step;
      // Keep this step's code range only if it was measured; otherwise the next comparison measures it if needed.
      state.previousStart = previous !== undefined && bRangeKnown ? rangeStart : -1;
      state.previousEnd = previous !== undefined && bRangeKnown ? rangeEnd : -1;
    }

    const observation = step.observation;
    let context: SupervisorContext | undefined;
    let rule: FilterRule | undefined;
    let loopAlso = false;
    let length = -1;
    if (observation !== undefined && observation.includes(SUMMARY_MARKER)) {
      context = 'subagent_completion';
      rule = 'summary_marker';
    } else if (step.error !== undefined && (this.nonCritical.length === 0 || !isNonCritical(step.error, this.nonCritical))) {
      context = 'error';
      rule = 'error';
    } else if (!capped && n % this.tauStep === 0) {
      context = 'inefficient';
      rule = 'periodic';
      loopAlso = n >= tauLoop && state.repeated >= tauLoop;
    } else if (!capped && n >= tauLoop && state.repeated >= tauLoop) {
      context = 'inefficient';
      rule = 'loop';
    } else if (observation !== undefined && observation.length > this.tauLen) {
      const over = codePointLengthExceeds(observation, this.tauLen);
      if (over !== false) {
        length = over;
        context = 'excessive';
        rule = 'length';
      }
    }
    if (context === undefined || rule === undefined) return undefined;
    if (context === 'inefficient') state.inefficient++;
    const trigger: Trigger = {
      stepId: step.id,
      stepIndex,
      agentId: step.agentId,
      agentRunKey: key,
      context,
      rule,
      n,
      repeated: state.repeated,
      loopAlso,
      // Always present (undefined when not measured) so every trigger has one object shape.
      length: length === -1 ? undefined : length,
    };
    return trigger;
  }
}

/** Every trigger of a run, in step order. */
export function filterSteps(steps: readonly Step[], params: FilterParams): Trigger[] {
  const filter = new AdaptiveFilter(params);
  const out: Trigger[] = [];
  for (let i = 0; i < steps.length; i++) {
    const t = filter.check(steps[i], i);
    if (t !== undefined) out.push(t);
  }
  return out;
}
