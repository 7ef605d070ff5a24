import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Look, quickLook, quickLookOf } from './fast-check-schema.ts';
import * as schemas from './schema.ts';
import type { Run } from './types.ts';
import { makeRun } from '../testing/test-runs.ts';
import { HAVE_SHARED, sharedRuns } from '../testing/fixture-kit.ts';

const RunSchema = schemas.Run;

/** The schemas the library's load checks item by item (stored-run-check.ts), and the run's own. */
const PARTS = {
  run: RunSchema,
  step: RunSchema.shape.steps.element,
  handoff: RunSchema.shape.handoffs.element,
  annotation: RunSchema.shape.annotations.element,
  intervention: RunSchema.shape.interventions.element,
  span: RunSchema.shape.spans.unwrap().element,
  agentRun: RunSchema.shape.agentRuns.element,
} as const;
type Part = keyof typeof PARTS;

/**
 * Whether `b` holds the values of `a`: primitives by Object.is, arrays item by item (a hole only where the other has
 * one), records by their own keys (a key whose value is undefined counts), key order and a null prototype aside.
 */
function sameValues(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (i in a !== i in other || !sameValues(a[i], other[i])) return false;
    return true;
  }
  const plain = (o: object) => [Object.prototype, null].includes(Object.getPrototypeOf(o) as object | null);
  if (!plain(a) || !plain(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameValues((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The one promise of the quick look: Valid means zod accepts the value and gives back the same values (key order
 * aside; a key whose value is undefined counts); Invalid means zod refuses it. Fails the test otherwise.
 */
function expectSound(schema: z.ZodType, look: (v: unknown) => Look, value: unknown): Look {
  const answer = look(value);
  const parsed = schema.safeParse(value);
  if (answer === Look.Valid) {
    expect(parsed.success, 'the quick look said valid, zod refused').toBe(true);
    expect(sameValues(value, parsed.data), 'the quick look said valid, zod gave back other values').toBe(true);
  } else if (answer === Look.Invalid) expect(parsed.success, 'the quick look said invalid, zod accepted').toBe(false);
  return answer;
}

/** The paths to every value inside `v` (objects and arrays, then their members), `v` itself first. */
function pathsOf(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (typeof v === 'object' && v !== null && out.length < 400) {
    for (const key of Object.keys(v)) pathsOf((v as Record<string, unknown>)[key], [...at, Array.isArray(v) ? Number(key) : key], out);
  }
  return out;
}

const strange = fc.oneof(
  fc.constantFrom<unknown>(undefined, null, NaN, Infinity, -Infinity, -0, 0, 1.5, '', 'message', true, false, [], {}, new Date(0), new Map(), Object.create(null)),
  fc.constantFrom<unknown>(JSON.parse('{"__proto__": {"id": 1}}'), { toString: 'x' }, [undefined], [1, 'a'], ['a', 'b'], { input: 1, output: 2, total: 3 }),
  fc.anything({ maxDepth: 2, withNullPrototype: true, withBoxedValues: true, withSparseArray: true, withDate: true, withMap: true }),
);

const keyNames = fc.oneof(
  fc.constantFrom('id', 'kind', 'agentId', 'output', 'usage', 'input', 'total', 'to', 'from', 'content', 'stepId', 'name', 'raw', 'toolCalls', 'arguments', 'constructor', 'toString', '__proto__', 'extra'),
  fc.string({ maxLength: 6 }),
);

/** One damage at one place in a copy of `seed`: a value replaced, a key removed, or a key added. */
const damaged = (seed: unknown) =>
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 }), strange, keyNames).map(([pick, how, value, key]) => {
    const copy = structuredClone(seed);
    const paths = pathsOf(copy);
    const path = paths[pick % paths.length];
    if (path.length === 0) return how === 0 ? value : copy;
    let parent = copy as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
    const last = path[path.length - 1];
    const target = parent[last];
    if (how === 0) parent[last] = value;
    else if (how === 1 && !Array.isArray(parent)) delete parent[last];
    else if (typeof target === 'object' && target !== null && !Array.isArray(target)) Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
    else parent[last] = value;
    return copy;
  });

/** A small run with every long array filled, its items varied (the seeds of the damages). */
function seedRun(): Run {
  return makeRun('seed', {
    agents: [
      { id: 'a', name: 'Planner' },
      { id: 'b', name: 'Coder' },
    ],
    steps: [
      { id: 's0', index: 0, kind: 'message', agentId: 'a', output: 'plan', usage: { input: 3, output: 4, total: 7 }, recipients: ['b'] },
      { id: 's1', index: 1, kind: 'llm', agentId: 'b', input: [{ role: 'user', content: 'go', toolCalls: [{ name: 'search', arguments: '{}' }] }], toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }], raw: { 'gen_ai.system': 'openai', n: 1 } },
      { id: 's2', index: 2, kind: 'tool', agentId: 'b', error: { message: 'boom', type: 'Timeout' }, startTime: 1, endTime: 2, runner: { origin: 'live', pruned: true } },
      { id: 's3', index: 3, kind: 'action', agentId: 'a', bus: { kind: 'poll', pollId: 'p1', options: ['yes', 'no'], voteStepIds: ['s0'], tally: [{ option: 'yes', votes: 1 }] } },
    ],
    handoffs: [{ id: 'h0', from: 'a', to: ['b'], kind: 'delegation', stepId: 's0', content: 'plan' }],
    annotations: [{ id: 'n0', stepId: 's1', source: 'human', taxonomy: 'TRAIL', code: 'x', evidence: 'e' }],
    interventions: [{ id: 'i0', engine: 'supervisor', stepId: 's2', action: 'approve', reason: 'fine', heuristic: true, details: { a: 1 } }],
  });
}

describe('quickLook (a first look at a stored run, ADR 0076)', () => {
  it('reads every schema the library checks item by item: none of them is left to zod alone', () => {
    for (const [name, schema] of Object.entries(PARTS)) expect(quickLook(schema), name).toBeDefined();
  });

  it('is made once per schema for every caller (quickLookOf), and stays absent for one it cannot read', () => {
    const look = quickLookOf(PARTS.step);
    expect(look).toBeDefined();
    expect(quickLookOf(PARTS.step)).toBe(look);
    const checked = z.string().min(1);
    expect(quickLookOf(checked)).toBeUndefined();
    expect(quickLookOf(checked)).toBeUndefined();
  });

  it('knows the parts of the model and nothing else: a check, a transform, a default or a recursive schema is zod’s', () => {
    expect(quickLook(z.string().min(1))).toBeUndefined();
    expect(quickLook(z.number().int())).toBeUndefined();
    expect(quickLook(z.object({ a: z.string().transform((s) => s.length) }))).toBeUndefined();
    expect(quickLook(z.object({ a: z.string().default('x') }))).toBeUndefined();
    expect(quickLook(z.object({ constructor: z.string() }))).toBeUndefined();
    expect(quickLook(z.record(z.string().min(2), z.number()))).toBeUndefined();
    const tree: z.ZodType = z.lazy(() => z.object({ children: z.array(tree) }));
    expect(quickLook(tree)).toBeUndefined();
    expect(quickLook('not a schema')).toBeUndefined();
  });

  it('answers as zod does on values built to sit on the edges', () => {
    const strip = z.object({ a: z.string(), b: z.number().optional() });
    const look = quickLook(strip)!;
    expect(expectSound(strip, look, { a: 'x' })).toBe(Look.Valid);
    expect(expectSound(strip, look, { a: 'x', b: undefined })).toBe(Look.Valid);
    // zod drops the unknown key of an object that is not loose: not the same values, so zod's
    expect(expectSound(strip, look, { a: 'x', c: 1 })).toBe(Look.Unsure);
    expect(expectSound(strip, look, { b: 1 })).toBe(Look.Invalid);
    expect(expectSound(strip, look, { a: 'x', b: NaN })).toBe(Look.Invalid);
    expect(expectSound(strip, look, { a: 'x', b: Infinity })).toBe(Look.Invalid);
    expect(expectSound(strip, look, Object.assign(Object.create({ a: 'inherited' }), { b: 1 }))).toBe(Look.Unsure);
    expect(expectSound(strip, look, ['x'])).toBe(Look.Invalid);
    const union = z.union([z.object({ kind: z.literal('a') }), z.object({ kind: z.literal('a'), n: z.number() }).loose()]);
    const u = quickLook(union)!;
    // The first option accepts it and drops `n`: a later option that keeps it may not answer for zod.
    expect(expectSound(union, u, { kind: 'a', n: 1 })).toBe(Look.Unsure);
    expect(expectSound(union, u, { kind: 'a' })).toBe(Look.Valid);
    expect(expectSound(union, u, { kind: 'b' })).toBe(Look.Invalid);
    const rec = z.record(z.string(), z.number());
    const r = quickLook(rec)!;
    expect(expectSound(rec, r, { a: 1, b: 2 })).toBe(Look.Valid);
    expect(expectSound(rec, r, JSON.parse('{"__proto__": 1}'))).toBe(Look.Unsure);
    expect(expectSound(rec, r, { a: 'x' })).toBe(Look.Invalid);
  });

  it('is sound on any one damage anywhere in any part of a run (property)', () => {
    const run = seedRun();
    const seeds: [Part, unknown][] = [
      ['run', run],
      ...run.steps.map((s) => ['step', s] as [Part, unknown]),
      ['handoff', run.handoffs[0]],
      ['annotation', run.annotations[0]],
      ['intervention', run.interventions[0]],
    ];
    const looks = new Map(Object.entries(PARTS).map(([name, schema]) => [name, quickLook(schema)!]));
    const answers = [0, 0, 0];
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds).chain(([part, seed]) => damaged(seed).map((value) => [part, value] as const)),
        ([part, value]) => {
          answers[expectSound(PARTS[part], looks.get(part)!, value)]++;
        },
      ),
      { numRuns: 3000 },
    );
    // The damages reach all three answers (a generator that never made an invalid value would prove nothing).
    expect(answers.every((n) => n > 0), `answers: ${answers.join(' / ')}`).toBe(true);
  });

  it.skipIf(!HAVE_SHARED)('takes every step and handoff of every real trace as zod does, and finds them valid', () => {
    const step = quickLook(PARTS.step)!;
    const handoff = quickLook(PARTS.handoff)!;
    let items = 0;
    const notValid: string[] = [];
    for (const { file, run } of sharedRuns()) {
      for (const s of run.steps) {
        items++;
        if (expectSound(PARTS.step, step, s) !== Look.Valid) notValid.push(`${file} ${run.id} step ${s.id}`);
      }
      for (const h of run.handoffs) {
        items++;
        if (expectSound(PARTS.handoff, handoff, h) !== Look.Valid) notValid.push(`${file} ${run.id} handoff ${h.id}`);
      }
    }
    expect(items).toBeGreaterThan(1000);
    expect(notValid.slice(0, 5)).toEqual([]);
  });
});
