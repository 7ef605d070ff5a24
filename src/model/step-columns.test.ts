import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { JOINED_MIN_CHARS, rebuild, RunStrings, StringTable, textChars, toColumns, transferablesOf, type Column, type ColumnSlice } from './step-columns.ts';
import { firstDifference } from '../testing/same-value.ts';

/** Slices made with one table, then crossed as postMessage would (a clone, the buffers transferred), rebuilt in order. */
function crossed(slices: readonly object[][]): { sent: ColumnSlice[]; got: unknown[][] } {
  const table = new StringTable();
  const strings = new RunStrings();
  const sent: ColumnSlice[] = [];
  const got: unknown[][] = [];
  for (const records of slices) {
    const slice = toColumns(records, table);
    sent.push(slice);
    got.push(rebuild(structuredClone(slice, { transfer: transferablesOf(slice) }), strings));
  }
  return { sent, got };
}

const STEP = {
  id: 's1',
  index: 1,
  kind: 'message',
  agentId: 'Planner',
  agentRunId: 'r:Planner',
  number: 1,
  output: 'hello',
  raw: { role: 'assistant' },
  usage: { input: 0, output: 8, total: 8, estimated: true },
  recipients: ['Writer'],
};

describe('records in columns (ADR 0029)', () => {
  it('gives a nested record equal to the one before it as that same object (one object, not a copy per step)', () => {
    const records = [
      { ...STEP, id: 'a', raw: { role: 'assistant' }, usage: { input: 0, output: 8, total: 8, estimated: true }, extra: {} },
      { ...STEP, id: 'b', raw: { role: 'assistant' }, usage: { input: 0, output: 9, total: 9, estimated: true }, extra: {} },
      { ...STEP, id: 'c', raw: { role: 'user' }, usage: { input: 0, output: 9, total: 9, estimated: true }, extra: {} },
      { ...STEP, id: 'd', raw: { role: 'user' }, usage: { input: -0, output: 9, total: 9, estimated: true }, extra: {} },
    ];
    const got = crossed([records]).got[0] as (typeof records)[number][];
    expect(JSON.stringify(got)).toBe(JSON.stringify(records));
    expect(got.map((r) => r.raw)).toEqual(records.map((r) => r.raw));
    expect(got[1].raw).toBe(got[0].raw);
    expect(got[2].raw).not.toBe(got[1].raw);
    expect(got[3].raw).toBe(got[2].raw);
    expect(got[1].usage).not.toBe(got[0].usage);
    expect(got[2].usage).toBe(got[1].usage);
    // -0 is not 0: a record holding it is its own.
    expect(Object.is(got[3].usage.input, -0)).toBe(true);
    expect(got[3].usage).not.toBe(got[2].usage);
    expect(got[3].extra).toBe(got[0].extra);
    // The records themselves are never shared.
    expect(new Set(got).size).toBe(4);
  });

  it('makes one object per distinct nested record or array of scalars in a run, given to every step that has it', () => {
    // A chat log's steps: the speakers take turns, so equal usages and one-name recipients lists are rarely adjacent.
    const names = ['Planner', 'Writer', 'Critic'];
    const records = Array.from({ length: 300 }, (_, i) => ({
      ...STEP,
      id: `s${i}`,
      usage: { input: 0, output: 8 + (i % 4), total: 8 + (i % 4), estimated: true },
      recipients: i % 50 === 0 ? [names[i % 3], 'Critic'] : [names[(i + 1) % 3]],
    }));
    const { got } = crossed([records.slice(0, 150), records.slice(150)]);
    const steps = got.flat() as (typeof records)[number][];
    expect(firstDifference(steps, records)).toBeUndefined();
    expect(new Set(steps.map((s) => s.usage)).size).toBe(4);
    expect(new Set(steps.map((s) => s.recipients)).size).toBe(6);
    expect(steps[4].usage).toBe(steps[0].usage);
    expect(steps[204].usage).toBe(steps[0].usage);
    expect(steps[4].recipients).toBe(steps[1].recipients);
    expect(steps[150].recipients).toBe(steps[0].recipients);
    expect(steps[2].recipients).not.toBe(steps[1].recipients);
    // -0 is not 0 and NaN is NaN, from slice to slice.
    const odd = [{ usage: { input: 0, cost: Number.NaN } }, { usage: { input: -0, cost: Number.NaN } }, { usage: { input: 0, cost: 1 } }];
    const twice = crossed([odd, odd]).got.flat() as (typeof odd)[number][];
    expect(firstDifference(twice, [...odd, ...odd])).toBeUndefined();
    expect(twice[3].usage).toBe(twice[0].usage);
    expect(twice[4].usage).toBe(twice[1].usage);
    expect(twice[1].usage).not.toBe(twice[0].usage);
    // Past a few thousand distinct values (a count per step) the rest are made each on its own, as they were.
    const counted = Array.from({ length: 6000 }, (_, i) => ({ usage: { input: i, output: 1 } }));
    const many = crossed([counted.slice(0, 3000), counted.slice(3000), counted.slice(0, 10)]).got.flat() as (typeof counted)[number][];
    expect(firstDifference(many, [...counted, ...counted.slice(0, 10)])).toBeUndefined();
    // (once past them, a repeat of an early value is made anew too)
    expect(many[6000].usage).not.toBe(many[0].usage);
    expect(new Set(many.map((r) => r.usage)).size).toBe(6010);
  });

  it('never gives a nested record of one slice to a row of another whose values are of other types or keys', () => {
    // One run, slices in order: a nested record's values as table strings, then as numbers, then as booleans, all sent
    // as the same raw numbers (index 0, the number 0, false); then keys that join alike but are not the same keys.
    const slices = [
      [{ raw: { x: 'foo' } }, { raw: { x: 'foo' } }],
      [{ raw: { x: 0 } }, { raw: { x: 0 } }],
      [{ raw: { x: false } }, { raw: { x: false } }],
      [{ raw: { 'a\u0000b': 1, c: 2 } }, { raw: { 'a\u0000b': 1, c: 2 } }],
      [{ raw: { a: 1, 'b\u0000c': 2 } }, { raw: { a: 1, 'b\u0000c': 2 } }],
    ];
    const { sent, got } = crossed(slices);
    // Each slice's records went as a nested column of records of scalars (the ones made once per run).
    expect(sent.map((slice) => slice.shapes[0].cols[0].t)).toEqual(['obj', 'obj', 'obj', 'obj', 'obj']);
    expect(sent.map((slice) => { const col = slice.shapes[0].cols[0]; return col.t === 'obj' ? col.cols[0].t : ''; })).toEqual(['str', 'i32', 'bool', 'i32', 'i32']);
    const difference = firstDifference(got, slices);
    if (difference !== undefined) throw new Error(difference);
  });

  it('rebuilds the same records, key order, -0, NaN, undefined values and loose keys included', () => {
    const records = [
      { ...STEP },
      { ...STEP, id: 's2', index: -0, number: Number.NaN, output: undefined },
      { id: 's3', kind: 'tool', index: 2.5, agentId: 'Planner', startTime: Infinity, looseKey: { deep: [1, 'x', null] } },
      { ...STEP, id: 's4', recipients: [], usage: { input: 1, output: 2, total: 3 } },
      JSON.parse('{"__proto__": {"polluted": true}, "id": "s5", "kind": "message"}') as object,
    ];
    const { got } = crossed([records]);
    expect(firstDifference(got[0], records)).toBeUndefined();
    // An array with a hole and another own key, as many keys as its length: it goes whole, as a clone takes it.
    const odd: unknown[] = [];
    odd[1] = 'Writer';
    Object.assign(odd, { extra: 1 });
    const arrays = [{ recipients: ['Planner'] }, { recipients: odd }];
    expect(firstDifference(crossed([arrays]).got[0], structuredClone(arrays))).toBeUndefined();
    expect(Object.keys(got[0][4] as object)).toEqual(['__proto__', 'id', 'kind']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('sends each repeated string once per run, and numbers as typed arrays', () => {
    const slice = (from: number) => Array.from({ length: 100 }, (_, i) => ({ ...STEP, id: `s${from + i}`, index: from + i, agentId: ['A', 'B'][i % 2] }));
    const { sent, got } = crossed([slice(0), slice(100)]);
    expect(sent[0].strings).toEqual(expect.arrayContaining(['A', 'B', 'message', 'assistant', 'Writer']));
    expect(sent[0].strings).not.toContain('s0');
    expect(sent[1].strings).toEqual([]);
    const [shape] = sent[0].shapes;
    expect(shape.cols[shape.keys.indexOf('index')].t).toBe('i32');
    expect(shape.cols[shape.keys.indexOf('id')].t).toBe('text');
    // Every step has STEP's own usage object: sent once, as the one value the rows point to.
    const usage = shape.cols[shape.keys.indexOf('usage')];
    expect(usage.t === 'ref' && usage.n === 1 && usage.items.t).toBe('obj');
    expect(firstDifference(got, [slice(0), slice(100)])).toBeUndefined();
  });

  it('sends records and arrays that rows share once per slice, as indices, and the page gives them once per run', () => {
    // A chat log's steps: a few frozen usage records, `{ role }` records and one-name recipient lists, each given to
    // many steps by the importer (chat-log.ts), the speakers taking turns.
    const names = ['Planner', 'Writer', 'Critic'];
    const usages = [8, 9, 10].map((output) => Object.freeze({ input: 0, output, total: output, estimated: true }));
    const roles = ['assistant', 'user'].map((role) => Object.freeze({ role }));
    const lists = names.map((name) => Object.freeze([name]));
    const records = Array.from({ length: 400 }, (_, i) => ({ ...STEP, id: `s${i}`, raw: roles[i % 2], usage: usages[i % 3], recipients: lists[(i + 1) % 3] }));
    const { got } = crossed([records.slice(0, 200), records.slice(200)]);
    const steps = got.flat() as (typeof records)[number][];
    expect(firstDifference(steps, records)).toBeUndefined();
    // The slices as made (crossed transfers their buffers away).
    const table = new StringTable();
    for (const slice of [toColumns(records.slice(0, 200), table), toColumns(records.slice(200), table)]) {
      const [shape] = slice.shapes;
      const col = (key: string) => shape.cols[shape.keys.indexOf(key)];
      for (const [key, n, items] of [['usage', 3, 'obj'], ['raw', 2, 'obj'], ['recipients', 3, 'arr']] as const) {
        const c = col(key);
        expect(c.t, key).toBe('ref');
        if (c.t === 'ref') {
          expect([c.n, c.items.t, c.v.length]).toEqual([n, items, 200]);
          // The indices' buffer is transferred with the slice.
          expect(transferablesOf(slice)).toContain(c.v.buffer);
        }
      }
    }
    // One object per distinct value on the page, across the slices too.
    expect(new Set(steps.map((s) => s.usage)).size).toBe(3);
    expect(new Set(steps.map((s) => s.raw)).size).toBe(2);
    expect(new Set(steps.map((s) => s.recipients)).size).toBe(3);
    expect(steps[201].usage).toBe(steps[0].usage);
    expect(steps[202].raw).toBe(steps[0].raw);
    // Objects made per row (equal or not) are not indexed: usage records as columns, each row its own in the worker.
    const own = records.map((r, i) => ({ ...r, usage: { ...usages[i % 3] }, recipients: [...lists[i % 3]] }));
    const [ownShape] = crossed([own]).sent[0].shapes;
    expect(ownShape.cols[ownShape.keys.indexOf('usage')].t).toBe('obj');
    expect(ownShape.cols[ownShape.keys.indexOf('recipients')].t).toBe('arr');
    // Half distinct or more, past the first 32: not indexed either, and still the same records.
    const halves = Array.from({ length: 64 }, (_, i) => ({ usage: i < 20 ? usages[0] : { ...usages[0], input: i } }));
    const [halfShape] = crossed([halves]).sent[0].shapes;
    expect(halfShape.cols[0].t).toBe('obj');
    expect(firstDifference(crossed([halves]).got[0], halves)).toBeUndefined();
  });

  it('sends mostly distinct strings as text and keeps none of them in the run\'s table, however they begin', () => {
    // The first two repeat (so the look at the first 32 does not decide), the rest are all different.
    const records = Array.from({ length: 200 }, (_, i) => ({ kind: i % 2 ? 'tool' : 'llm', note: i < 2 ? 'same' : `note ${i}` }));
    const { sent, got } = crossed([records]);
    const [shape] = sent[0].shapes;
    expect(shape.cols[shape.keys.indexOf('note')].t).toBe('text');
    expect(shape.cols[shape.keys.indexOf('kind')].t).toBe('str');
    expect(sent[0].strings.sort()).toEqual(['llm', 'tool']);
    expect(firstDifference(got[0], records)).toBeUndefined();
  });

  it('decides from the first 32 strings alone when they are all different, and only then', () => {
    // 32 different notes, then one note over and over: the look at the first 32 sends the column as text.
    const different = Array.from({ length: 200 }, (_, i) => ({ note: i < 32 ? `note ${i}` : 'same' }));
    // The same, but the 32nd repeats the 1st (a repeat at the look's last place, and of one length with it): the
    // look does not decide, and the column, mostly one string, goes through the table.
    const repeated = different.map((r, i) => (i === 31 ? { note: 'note 0' } : r));
    for (const [records, t] of [[different, 'text'], [repeated, 'str']] as const) {
      const { sent, got } = crossed([records]);
      expect(sent[0].shapes[0].cols[0].t).toBe(t);
      expect(firstDifference(got[0], records)).toBeUndefined();
    }
  });

  it('sends a column of long texts joined, Latin-1 and wider texts apart, and the page gets each text back (ADR 0074)', () => {
    const latin = (i: number) => `result ${i}: caf\u00e9 `.padEnd(JOINED_MIN_CHARS + (i % 5) * 40, 'xyz');
    const wide = (i: number) => `r\u00e9sum\u00e9 \u2019${i}\u2019 \u{1f600} `.padEnd(JOINED_MIN_CHARS + 3, '\u4e2d');
    // Every third text has a character past U+00FF; one text is empty, one shorter than a slice V8 points into.
    const texts = Array.from({ length: 60 }, (_, i) => (i === 7 ? '' : i === 8 ? 'short' : i % 3 === 0 ? wide(i) : latin(i)));
    const records = texts.map((output, i) => ({ kind: i % 2 ? 'tool' : 'llm', output, call: { name: 'search', result: latin(i + 100) } }));
    const table = new StringTable();
    for (const part of [records.slice(0, 25), records.slice(25)]) {
      const slice = toColumns(part, table);
      const [shape] = slice.shapes;
      const col = shape.cols[shape.keys.indexOf('output')];
      if (col.t !== 'joined') throw new Error(`output sent as ${col.t}`);
      expect(/[^\u0000-\u00ff]/.test(col.one)).toBe(false);
      expect(col.two.length).toBeGreaterThan(0);
      expect(col.wide?.filter((w) => w === 1).length).toBe(part.filter((r) => /[^\u0000-\u00ff]/.test(r.output)).length);
      // Nested records' texts too, with no wide one: no flags sent.
      const call = shape.cols[shape.keys.indexOf('call')];
      if (call.t !== 'obj' || call.cols[1].t !== 'joined') throw new Error('the nested results were not joined');
      expect(call.cols[1].wide).toBeUndefined();
      expect(call.cols[1].two).toBe('');
      // Their ends cross as transferred buffers.
      expect(transferablesOf(slice)).toContain(col.ends.buffer);
    }
    const { got } = crossed([records.slice(0, 25), records.slice(25)]);
    expect(firstDifference(got.flat(), records)).toBeUndefined();
  });

  it('keeps short texts as they were, and refuses joined ends out of order', () => {
    const short = Array.from({ length: 40 }, (_, i) => ({ note: `note ${i}`.padEnd(JOINED_MIN_CHARS - 1, '.') }));
    expect(toColumns(short, new StringTable()).shapes[0].cols[0].t).toBe('text');
    const slice = toColumns(
      Array.from({ length: 40 }, (_, i) => ({ note: `note ${i}`.padEnd(JOINED_MIN_CHARS, '.') })),
      new StringTable(),
    );
    const col = slice.shapes[0].cols[0];
    if (col.t !== 'joined') throw new Error(`sent as ${col.t}`);
    const end5 = col.ends[5];
    col.ends[5] = col.ends[4] - 1;
    expect(() => rebuild(slice, new RunStrings())).toThrow(/out of order/);
    col.ends[5] = end5;
    col.ends[39] = col.one.length + 1;
    expect(() => rebuild(slice, new RunStrings())).toThrow(/out of order/);
  });

  it('finds the shape of records whose shapes alternate without a signature per record, and groups them the same', () => {
    const records = Array.from({ length: 400 }, (_, i) => (i % 2 ? { kind: 'tool', id: `t${i}`, toolCalls: [] } : { kind: 'llm', id: `m${i}`, usage: { input: i, output: 1 } }));
    const join = vi.spyOn(Array.prototype, 'join');
    let slice: ColumnSlice;
    try {
      slice = toColumns(records, new StringTable());
      expect(join.mock.calls.length).toBeLessThanOrEqual(2);
    } finally {
      join.mockRestore();
    }
    expect(slice.shapes.map((s) => s.keys)).toEqual([['kind', 'id', 'usage'], ['kind', 'id', 'toolCalls']]);
    expect(Array.from(slice.shapeOf!)).toEqual(records.map((_, i) => i % 2));
    expect(crossed([records]).got[0]).toEqual(records);
  });

  it('the comparison fails on a dropped or reordered key (the round trips below can fail)', () => {
    expect(firstDifference({ a: 1, b: 2 }, { b: 2, a: 1 })).toMatch(/key 0/);
    expect(firstDifference({ a: 1, b: undefined }, { a: 1 })).toMatch(/keys/);
    expect(firstDifference([1, , 3], [1, undefined, 3])).toBeDefined();
    expect(firstDifference(-0, 0)).toBeDefined();
  });

  it('round-trips any records (fast-check)', () => {
    const repeated = fc.constantFrom('Planner', 'Writer', 'message', 'tool', 'assistant', 'gpt-4o', '', '__proto__');
    const key = fc.oneof(fc.constantFrom('id', 'index', 'kind', 'agentId', 'usage', 'raw', 'toolCalls', 'recipients', 'error', '__proto__', 'constructor', '1', '0'), fc.string({ maxLength: 4 }));
    // Long texts, of Latin-1 or wider characters, are sent joined (ADR 0074).
    const long = fc.oneof(
      fc.string({ minLength: JOINED_MIN_CHARS, maxLength: JOINED_MIN_CHARS + 40, unit: fc.constantFrom('a', '\u00e9', ' ') }),
      fc.string({ minLength: JOINED_MIN_CHARS, maxLength: JOINED_MIN_CHARS + 40, unit: 'binary' }),
    );
    const leaf = fc.oneof(
      repeated,
      fc.string(),
      long,
      fc.integer(),
      fc.double(),
      fc.constantFrom(-0, Number.NaN, Infinity, 2 ** 31, -(2 ** 31)),
      fc.boolean(),
      fc.constant(undefined),
      fc.constant(null),
    );
    const value = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('record'), tie('array'), tie('sparse')),
      // fast-check's records have no prototype; a clone of one is a plain record (its own `__proto__` key kept).
      record: fc.oneof(fc.dictionary(key, tie('value'), { maxKeys: 5 }), fc.dictionary(key, tie('value'), { maxKeys: 5 }).map((d) => structuredClone(d))),
      array: fc.array(tie('value'), { maxLength: 4 }),
      sparse: fc.sparseArray(leaf, { maxLength: 4 }),
    })).value;
    // Records of a few shapes, as a run's steps are: a template's keys with values drawn anew.
    const record = fc.dictionary(key, value, { maxKeys: 8 }).map((d) => structuredClone(d));
    const run = fc
      .tuple(fc.array(record, { minLength: 1, maxLength: 4 }), fc.array(fc.tuple(fc.nat(), fc.array(value, { maxLength: 8 })), { maxLength: 60 }), fc.integer({ min: 1, max: 20 }))
      .map(([templates, rows, sliceSize]) => {
        const records = rows.map(([t, vals]) => {
          const template = templates[t % templates.length];
          const r: Record<string, unknown> = {};
          Object.keys(template).forEach((k, i) => {
            const v = i < vals.length ? vals[i] : template[k];
            if (k === '__proto__') Object.defineProperty(r, k, { value: v, writable: true, enumerable: true, configurable: true });
            else r[k] = v;
          });
          return r;
        });
        const slices: object[][] = [];
        for (let at = 0; at < records.length; at += sliceSize) slices.push(records.slice(at, at + sliceSize));
        return slices;
      });
    const kinds = new Set<string>();
    const note = (col: Column): void => {
      kinds.add(col.t);
      if (col.t === 'obj') col.cols.forEach(note);
      if (col.t === 'arr' || col.t === 'ref') note(col.items);
    };
    fc.assert(
      fc.property(run, (slices) => {
        // What a structured clone of the records gives (the hand-off before columns): a record without a prototype
        // arrives as a plain one either way.
        const { sent, got } = crossed(slices);
        for (const slice of sent) for (const shape of slice.shapes) shape.cols.forEach(note);
        const difference = firstDifference(got, structuredClone(slices));
        if (difference !== undefined) throw new Error(difference);
      }),
      { numRuns: 300 },
    );
    // Every kind of column was made (and rebuilt) along the way.
    expect([...kinds].sort()).toEqual(['arr', 'bool', 'f64', 'i32', 'joined', 'obj', 'ref', 'str', 'text', 'val']);
  });
});

describe('the text a slice carries (textChars, ADR 0073)', () => {
  it('counts every string once: text columns, nested and shared ones, values sent as they are, and new table strings', () => {
    const records = [
      // `kind` repeats (the run's table: counted once, as a new string), `output` is free text, `calls` nested
      // records with text, `tags` arrays of text, `odd` a column of mixed values (sent as they are).
      { kind: 'tool', output: 'a'.repeat(100), calls: { name: 'search', args: 'b'.repeat(50) }, tags: ['xy', 'z'], odd: 'c'.repeat(7) },
      { kind: 'tool', output: 'd'.repeat(200), calls: { name: 'fetch', args: 'e'.repeat(60) }, tags: ['w'], odd: 3 },
    ];
    const slice = toColumns(records, new StringTable());
    const strings = (v: unknown): number =>
      typeof v === 'string' ? v.length : Array.isArray(v) ? v.reduce((n: number, x) => n + strings(x), 0) : v && typeof v === 'object' ? Object.values(v).reduce((n: number, x) => n + strings(x), 0) : 0;
    // Every string of the records, but 'tool' once: the table sends it once.
    expect(textChars(slice)).toBe(strings(records) - 'tool'.length);
    // A second slice of the same run does not count the table's strings again.
    const table = new StringTable();
    toColumns(records, table);
    expect(textChars(toColumns(records, table))).toBe(strings(records) - 2 * 'tool'.length);
  });

  it('counts joined texts once', () => {
    const records = [{ output: 'a'.repeat(JOINED_MIN_CHARS) }, { output: '\u4e2d'.repeat(JOINED_MIN_CHARS + 1) }];
    const slice = toColumns(records, new StringTable());
    expect(slice.shapes[0].cols[0].t).toBe('joined');
    expect(textChars(slice)).toBe(2 * JOINED_MIN_CHARS + 1);
  });

  it('is 0 for a slice of numbers and booleans only', () => {
    expect(textChars(toColumns([{ a: 1, b: true }, { a: 2.5, b: false }], new StringTable()))).toBe(0);
  });
});
