import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { sliceLookOf } from './fast-check-columns.ts';
import { Look, quickLookOf } from './fast-check-schema.ts';
import { Handoff, Step } from './schema.ts';
import { rebuild, RunStrings, StringTable, toColumns, type Column, type ColumnSlice } from './step-columns.ts';
import { importText } from '../import/index.ts';

const SHARED = join(import.meta.dirname, '../../../shared/traces');

/** Slices of `records` as the import worker stores a chunk: a table of strings for them all, in this order. */
function inColumns(records: readonly object[][]): ColumnSlice[] {
  const table = new StringTable();
  return records.map((slice) => toColumns(slice, table));
}

/**
 * Each slice rebuilt in order (a structured clone first, as storage gives it back), with what the slice look says of
 * it; undefined where rebuild refuses a slice (the chunk is then read as it is stored, without a look).
 */
function looked(slices: readonly ColumnSlice[], schema: object): { records: unknown[]; look: Look }[] | undefined {
  const look = sliceLookOf(schema)!;
  const strings = new RunStrings();
  const out: { records: unknown[]; look: Look }[] = [];
  for (const stored of structuredClone(slices)) {
    let records: unknown[];
    try {
      records = rebuild(stored, strings);
    } catch {
      return undefined;
    }
    out.push({ records, look: look(stored, strings.table) });
  }
  return out;
}

/** What the slice look promises of every record of a slice it says Valid of: the quick look's Valid, and zod's same values. */
function promiseKept(schema: z.ZodType, slices: { records: unknown[]; look: Look }[]): void {
  const quick = quickLookOf(schema)!;
  for (const { records, look } of slices) {
    expect(look === Look.Valid || look === Look.Unsure).toBe(true);
    if (look !== Look.Valid) continue;
    for (const record of records) {
      expect(quick(record)).toBe(Look.Valid);
      const parsed = schema.safeParse(record);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(record);
    }
  }
}

// Values of every kind, right and wrong for the step's fields.
const text = fc.oneof(fc.constantFrom('a', 'Planner', 'tool', 'llm', 'message', 'final', 'bogus', '__proto__', ''), fc.string({ maxLength: 6 }), fc.string({ minLength: 256, maxLength: 300 }));
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, 1, 2 ** 31, Number.NaN, Infinity));
const scalar = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.constant(undefined));
const usage = fc.oneof(
  fc.record({ input: number, output: number, total: number }),
  fc.record({ input: number, output: number, total: number, estimated: fc.boolean() }),
  fc.record({ input: scalar, output: scalar }),
  scalar,
);
const toolCall = fc.oneof(fc.record({ name: text, arguments: fc.oneof(text, scalar) }), fc.record({ id: text, name: text }), scalar);
const raw = fc.oneof(fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__', 'constructor')), scalar, { maxKeys: 4 }).map((d) => structuredClone(d)), scalar);
/** A step of right and wrong values: each field drawn from its kind or from any other, some keys absent, some unknown. */
const step = fc
  .record(
    {
      id: fc.oneof(text, scalar),
      index: fc.oneof(number, scalar),
      kind: fc.oneof(fc.constantFrom('llm', 'action', 'tool', 'message', 'planning', 'final'), scalar),
      agentId: fc.oneof(fc.constantFrom('a', 'b'), scalar),
      agentRunId: fc.oneof(text, scalar),
      output: fc.oneof(text, scalar),
      startTime: fc.oneof(number, scalar),
      usage,
      toolCalls: fc.oneof(fc.array(toolCall, { maxLength: 3 }), scalar),
      recipients: fc.oneof(fc.array(text, { maxLength: 3 }), scalar),
      raw,
      extra: scalar,
    },
    { requiredKeys: [] },
  )
  .map((r) => structuredClone(r));

/** A right step: every field of its kind (the long texts, numbers and records of a real run). */
const finite = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
const rightStep = fc
  .record(
    {
      id: fc.string({ maxLength: 8 }),
      index: fc.nat(),
      kind: fc.constantFrom('llm', 'action', 'tool', 'message', 'planning', 'final'),
      agentId: fc.constantFrom('a', 'b'),
      output: fc.oneof(fc.string({ maxLength: 8 }), fc.string({ minLength: 256, maxLength: 300 })),
      startTime: finite,
      usage: fc.record({ input: fc.nat(9), output: fc.nat(9), total: fc.nat(20) }, { requiredKeys: ['input', 'output', 'total'] }),
      toolCalls: fc.array(fc.record({ name: fc.constantFrom('search', 'read'), arguments: fc.string({ maxLength: 6 }) }), { maxLength: 2 }),
      recipients: fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }),
      raw: fc.dictionary(fc.constantFrom('x', 'y', 'gen_ai.system'), fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 3 }).map((d) => structuredClone(d)),
      extra: scalar,
    },
    { requiredKeys: ['id', 'index', 'kind', 'agentId'] },
  )
  .map((r) => structuredClone(r));
const anyStep = fc.oneof({ arbitrary: rightStep, weight: 3 }, { arbitrary: step, weight: 1 });

/** Changes to a slice as stored, as a damaged or hostile database could hold it. */
function tamper(slices: ColumnSlice[], pick: number): void {
  const columns: Column[] = [];
  const visit = (col: Column): void => {
    columns.push(col);
    if (col.t === 'obj') col.cols.forEach(visit);
    if (col.t === 'arr' || col.t === 'ref') visit(col.items);
  };
  for (const slice of slices) for (const shape of slice.shapes) shape.cols.forEach(visit);
  if (columns.length === 0) return;
  const col = columns[pick % columns.length] as Record<string, unknown>;
  switch (Math.floor(pick / columns.length) % 7) {
    case 0:
      // Another kind of column, its values left as they are.
      col.t = ['i32', 'f64', 'bool', 'str', 'text', 'val'][pick % 6];
      break;
    case 1:
      if (ArrayBuffer.isView(col.v)) col.v = Array.from(col.v as Uint32Array, (x) => String(x));
      break;
    case 2:
      if (slices[0].strings.length > 0) (slices[0].strings as unknown[])[pick % slices[0].strings.length] = pick;
      break;
    case 3:
      if (col.v instanceof Float64Array && col.v.length > 0) col.v[pick % col.v.length] = Number.NaN;
      break;
    case 4:
      if (Array.isArray(col.v) && col.v.length > 0) col.v[pick % col.v.length] = { pick };
      break;
    case 5:
      if (Array.isArray(col.keys) && col.keys.length > 0) col.keys[pick % col.keys.length] = '__proto__';
      break;
    case 6:
      if (col.v instanceof Uint32Array) col.v = new Int32Array(col.v);
      break;
  }
}

describe('the quick look of a whole slice in columns (sliceLookOf, ADR 0101)', () => {
  it('says Valid of a slice only when the quick look says Valid of every record rebuilt from it (fast-check)', () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.array(fc.array(anyStep, { minLength: 0, maxLength: 40 }), { minLength: 1, maxLength: 3 }), (records) => {
        const slices = looked(inColumns(records), Step);
        expect(slices).toBeDefined();
        promiseKept(Step, slices!);
        valid += slices!.filter((s) => s.look === Look.Valid && s.records.length > 0).length;
      }),
      { numRuns: 400 },
    );
    // Not a look that never says Valid.
    expect(valid).toBeGreaterThan(40);
  });

  it('keeps that promise on slices a damaged or hostile database holds (fast-check)', () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.array(fc.array(rightStep, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3 }), fc.nat(), (records, pick) => {
        const stored = inColumns(records);
        tamper(stored, pick);
        const slices = looked(stored, Step);
        if (slices === undefined) return;
        valid += slices.filter((s) => s.look === Look.Valid).length;
        promiseKept(Step, slices);
      }),
      { numRuns: 600 },
    );
    // Not a look that never says Valid.
    expect(valid).toBeGreaterThan(0);
  });

  it('says Valid of slices of right steps and handoffs, every kind of column included', () => {
    const steps = Array.from({ length: 300 }, (_, i) => ({
      id: `s${i}`,
      index: i,
      kind: i % 3 === 0 ? 'tool' : 'llm',
      agentId: i % 2 ? 'a' : 'b',
      startTime: 1.5 + i,
      output: i % 5 === 0 ? 'x'.repeat(400) : `out ${i}`,
      usage: { input: i % 7, output: 3, total: (i % 7) + 3 },
      toolCalls: i % 3 === 0 ? [{ name: 'search', arguments: `{"q":${i}}` }] : [],
      recipients: ['b'],
      raw: { 'gen_ai.system': 'openai', n: i % 4, ok: i % 2 === 0 },
      custom: { anything: [i] },
    }));
    const slices = looked(inColumns([steps.slice(0, 150), steps.slice(150)]), Step)!;
    expect(slices.map((s) => s.look)).toEqual([Look.Valid, Look.Valid]);
    promiseKept(Step, slices);
    const handoffs = steps.map((s, i) => ({ id: `h${i}`, from: s.agentId, to: ['a'], kind: 'message', stepId: s.id, content: s.output }));
    expect(looked(inColumns([handoffs]), Handoff)!.map((s) => s.look)).toEqual([Look.Valid]);
  });

  it('leaves to the quick look a slice with a wrong value, a missing required key or an own __proto__ key', () => {
    const right = { id: 's', index: 0, kind: 'llm', agentId: 'a' };
    for (const wrong of [
      { ...right, kind: 'bogus' },
      { ...right, index: Number.NaN },
      { ...right, index: '0' },
      { id: 's', index: 0, kind: 'llm' },
      { ...right, usage: { input: 1, output: 2 } },
      JSON.parse('{"id":"s","index":0,"kind":"llm","agentId":"a","raw":{"__proto__":1}}'),
    ]) {
      const slices = looked(inColumns([[right, wrong, right]]), Step)!;
      expect(slices[0].look).toBe(Look.Unsure);
    }
  });

  it('has no look for a schema the quick look does not know, nor for one not of objects', () => {
    expect(sliceLookOf(z.object({ n: z.number().min(1) }))).toBeUndefined();
    expect(sliceLookOf(z.array(z.string()))).toBeUndefined();
    expect(sliceLookOf(z.object({ n: z.number() }))).toBeDefined();
  });

  it.skipIf(!existsSync(SHARED))('says Valid of every slice of the real traces\' steps and handoffs whose records the quick look finds valid', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.jsonl?$/.test(name) && statSync(path).size < 30e6) files.push(path);
      }
    };
    walk(SHARED);
    let slices = 0;
    for (const file of files) {
      let runs;
      try {
        runs = importText(file, readFileSync(file, 'utf8')).runs;
      } catch {
        continue; // not a trace (a manifest's data, an annotation file)
      }
      for (const run of runs) {
        for (const [items, schema] of [[run.steps, Step], [run.handoffs, Handoff]] as const) {
          const parts: object[][] = [];
          for (let at = 0; at < items.length; at += 2000) parts.push(items.slice(at, at + 2000));
          for (const slice of looked(inColumns(parts), schema)!) {
            slices++;
            const quick = quickLookOf(schema)!;
            if (slice.records.every((r) => quick(r) === Look.Valid)) expect(slice.look, file).toBe(Look.Valid);
          }
        }
      }
    }
    expect(slices).toBeGreaterThan(50);
  });
});
