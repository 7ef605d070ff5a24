import { describe, expect, it } from 'vitest';
import { APPENDED_CHUNK_ITEMS, CHUNK_SLICE_ROWS, LONG_ARRAY_ITEMS, chunkInColumns, DEFAULT_CHUNK_LIMITS, estimateBytes, joinChunks, lookedItemsOf, needsChunks, planRunWrite, readableChunk, readChunk, splitItems, storedChunkParts, type ChunkLimits } from './run-chunks.ts';
import { sliceLookOf } from './fast-check-columns.ts';
import { Handoff as HandoffSchema, Step as StepSchema } from './schema.ts';
import { StringTable, toColumns, type ColumnSlice } from './step-columns.ts';
import { firstDifference } from '../testing/same-value.ts';
import { makeRun } from '../testing/test-runs.ts';
import type { Run, Step } from './types.ts';

const SMALL: ChunkLimits = { maxItems: 4, maxBytes: 1_000_000 };

function longRun(steps: number): Run {
  const run = makeRun('long');
  run.steps = Array.from({ length: steps }, (_, i): Step => ({ id: `s${i}`, index: i, kind: 'message', agentId: 'manager', output: `text ${i}` }));
  run.handoffs = [{ id: 'h0', from: 'manager', to: ['manager'], kind: 'message', stepId: 's0', content: 'm' }];
  return run;
}

describe('a run in chunks (ADR 0025)', () => {
  it('splits by count and by estimated bytes; an item larger than a chunk goes alone', () => {
    expect(splitItems([1, 2, 3, 4, 5, 6, 7, 8, 9], SMALL).map((c) => c.length)).toEqual([4, 4, 1]);
    const big = 'x'.repeat(1000);
    expect(splitItems(['a', big, 'b', 'c'], { maxItems: 100, maxBytes: 1500 }).map((c) => c.length)).toEqual([1, 1, 2]);
    expect(splitItems([big, big, big], { maxItems: 100, maxBytes: 100 }).map((c) => c.length)).toEqual([1, 1, 1]);
    expect(splitItems([], SMALL)).toEqual([]);
  });

  it('estimates generously and stops counting past the budget', () => {
    const value = { text: 'x'.repeat(100), list: [1, 2, 3], nested: { deep: [{ a: null }] } };
    expect(estimateBytes(value)).toBeGreaterThan(JSON.stringify(value).length);
    expect(estimateBytes({ a: 'x'.repeat(10_000), b: 'y'.repeat(10_000) }, 100)).toBeLessThan(30_000);
    // Deeply nested values do not overflow the stack.
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(estimateBytes(deep)).toBeGreaterThan(100_000);
  });

  it('keeps a small run whole, as before', () => {
    const run = makeRun('r');
    expect(needsChunks(run, SMALL)).toBe(false);
    expect(planRunWrite(run, { spansApart: false, limits: SMALL })).toEqual({ record: run, chunks: [], chunked: false, kept: [], keptUpTo: {}, sizes: {} });
  });

  it('splits a long run: the record keeps the rest and the counts, the chunks join back to the arrays', () => {
    const run = { ...longRun(10), spans: Array.from({ length: 6 }, (_, i) => ({ id: `sp${i}`, name: 'n', status: 'ok' as const, startTime: i, attributes: {}, events: [] })) } as Run;
    const plan = planRunWrite(run, { spansApart: true, limits: SMALL });
    expect(plan.chunked).toBe(true);
    expect(plan.record.steps).toEqual([]);
    expect(plan.record.spans).toBeUndefined();
    expect(plan.record.chunks).toEqual({ steps: 3, handoffs: 1, annotations: 0, interventions: 0 });
    expect(plan.record.title).toBe(run.title);
    expect(plan.chunks.map((c) => c.key)).toEqual([
      ['long', 'steps', 0], ['long', 'steps', 1], ['long', 'steps', 2], ['long', 'handoffs', 0], ['long', 'spans', 0], ['long', 'spans', 1],
    ]);
    const of = (field: string) => plan.chunks.filter((c) => c.key[1] === field).map((c) => ({ index: c.key[2], value: structuredClone(c.value) }));
    expect(joinChunks('steps', of('steps'), 3)).toEqual({ items: run.steps, ends: [4, 8, 10] });
    expect(joinChunks('spans', of('spans'))).toEqual({ items: run.spans, ends: [4, 6] });
    expect(plan.sizes).toEqual({ steps: [4, 4, 2], handoffs: [1], annotations: [], interventions: [], spans: [4, 2] });
    // The run itself is untouched.
    expect(run.steps).toHaveLength(10);
  });

  it('says what is wrong with chunks that do not join', () => {
    const plan = planRunWrite(longRun(10), { spansApart: true, limits: SMALL });
    const steps = plan.chunks.filter((c) => c.key[1] === 'steps').map((c) => ({ index: c.key[2], value: c.value as unknown }));
    expect(joinChunks('steps', steps.slice(0, 2), 3)).toEqual({ problem: 'steps: 2 of 3 chunks are stored' });
    expect(joinChunks('steps', [steps[0], steps[2], steps[1]], 3)).toEqual({ problem: 'steps: chunk 1 is missing' });
    expect(joinChunks('steps', [steps[0], { index: 1, value: { items: 'x', of: 3 } }, steps[2]], 3)).toEqual({ problem: 'steps: chunk 1 is not a chunk of 3' });
    expect(joinChunks('spans', [{ index: 0, value: null }])).toMatchObject({ problem: expect.stringContaining('count') });
  });

  it('an appended array keeps its first chunks: the rest is written after them, and the chunks join back (ADR 0086)', () => {
    const run = { ...longRun(3), interventions: Array.from({ length: 10 }, (_, i) => ({ id: `iv${i}`, engine: 'rectifier', action: 'pass', reason: `r${i}`, heuristic: true })) } as Run;
    const first = planRunWrite(run, { spansApart: false, limits: SMALL });
    expect(first.record.chunks?.interventions).toBe(3);
    expect(first.sizes.interventions).toEqual([4, 4, 2]);
    const grown = { ...run, interventions: [...run.interventions, ...Array.from({ length: 5 }, (_, i) => ({ ...run.interventions[0], id: `iv${10 + i}` }))] };
    // Its first two chunks (8 items) kept: the last stored one (2 items) is written again with the 5 after it.
    const plan = planRunWrite(grown, { spansApart: false, limits: SMALL, kept: { interventions: { chunks: 2, items: 8 } } });
    expect(plan.keptUpTo).toEqual({ interventions: 2 });
    expect(plan.sizes.interventions).toEqual([4, 3]);
    expect(plan.record.chunks?.interventions).toBe(4);
    const written = plan.chunks.filter((c) => c.key[1] === 'interventions');
    expect(written.map((c) => c.key[2])).toEqual([2, 3]);
    expect(written.map((c) => c.value.of)).toEqual([4, 4]);
    // The stored array: the kept chunks (they say 3 chunks) and the new ones (4).
    const kept = first.chunks.filter((c) => c.key[1] === 'interventions').slice(0, 2);
    const stored = [...kept, ...written].map((c) => ({ index: c.key[2], value: structuredClone(c.value) }));
    expect(joinChunks('interventions', stored, 4)).toEqual({ items: grown.interventions, ends: [4, 8, 12, 15] });
    // A chunk that says fewer chunks than its own position, or more than the record, is not one of them.
    const says = (of: number) => stored.map((c, i) => (i === 1 ? { ...c, value: { ...c.value, of } } : c));
    expect(joinChunks('interventions', says(1), 4)).toEqual({ problem: 'interventions: chunk 1 is not a chunk of 4' });
    expect(joinChunks('interventions', says(5), 4)).toEqual({ problem: 'interventions: chunk 1 is not a chunk of 4' });
    // A prefix longer than the array (it shrank since) is not kept: the array is written whole.
    const whole = planRunWrite(run, { spansApart: false, limits: SMALL, kept: { interventions: { chunks: 3, items: 12 } } });
    expect(whole.keptUpTo).toEqual({});
    expect(whole.chunks.filter((c) => c.key[1] === 'interventions').map((c) => c.key[2])).toEqual([0, 1, 2]);
  });

  it('cuts appended arrays in chunks of APPENDED_CHUNK_ITEMS at most, and a run with more of them is stored in chunks', () => {
    const run = { ...longRun(3), interventions: Array.from({ length: APPENDED_CHUNK_ITEMS + 1 }, (_, i) => ({ id: `iv${i}`, engine: 'rectifier', action: 'pass', reason: 'r', heuristic: true })) } as Run;
    expect(needsChunks(run, DEFAULT_CHUNK_LIMITS)).toBe(true);
    const plan = planRunWrite(run, { spansApart: false });
    expect(plan.sizes.interventions).toEqual([APPENDED_CHUNK_ITEMS, 1]);
    expect(plan.sizes.steps).toEqual([3]);
    // As many as a chunk holds: the run is written whole.
    expect(needsChunks({ ...run, interventions: run.interventions.slice(0, APPENDED_CHUNK_ITEMS) }, DEFAULT_CHUNK_LIMITS)).toBe(false);
    // Steps past LONG_ARRAY_ITEMS too: a later label or result writes the record, not the steps again.
    expect(needsChunks(longRun(LONG_ARRAY_ITEMS), DEFAULT_CHUNK_LIMITS)).toBe(false);
    expect(needsChunks(longRun(LONG_ARRAY_ITEMS + 1), DEFAULT_CHUNK_LIMITS)).toBe(true);
    expect(planRunWrite(longRun(LONG_ARRAY_ITEMS + 1), { spansApart: false }).sizes.steps).toEqual([LONG_ARRAY_ITEMS + 1]);
  });
});

describe('chunks in columns (ADR 0075)', () => {
  /** A run of long and short steps, nested values and a loose key, with spans, annotations and handoffs. */
  function mixedRun(): Run {
    const run = { ...longRun(10), spans: Array.from({ length: 6 }, (_, i) => ({ id: `sp${i}`, name: 'n', status: 'ok' as const, startTime: i, attributes: { k: i }, events: [] })) } as Run;
    run.steps = run.steps.map((s, i) => ({ ...s, output: i % 3 ? `text ${i}`.padEnd(400, '\u2019x') : s.output, usage: { input: i, output: 2 * i, total: 3 * i }, ...(i === 4 ? { error: { message: 'boom' }, number: -0 } : {}) }));
    run.annotations = [{ id: 'a0', source: 'human', taxonomy: 'mast', code: 'FM-1.1', stepId: 's1' }];
    return run;
  }

  it('the import worker\'s steps, handoffs and spans go in columns (ADR 0075, 0103), each chunk with a table of its own, and join back to the same arrays', () => {
    const run = mixedRun();
    const plan = planRunWrite(run, { spansApart: true, limits: SMALL });
    const stored = plan.chunks.map((c) => ({ key: c.key, value: chunkInColumns(c) }));
    const kinds = stored.map((c) => `${c.key[1]}:${'slices' in c.value ? 'slices' : 'items'}`);
    expect(kinds).toEqual(['steps:slices', 'steps:slices', 'steps:slices', 'handoffs:slices', 'annotations:items', 'spans:slices', 'spans:slices']);
    // As IndexedDB gives them back: a structured clone of each value, rebuilt in any order of arrival.
    const of = (field: string) => stored.filter((c) => c.key[1] === field).map((c) => ({ index: c.key[2], value: structuredClone(c.value) }));
    const steps: { index: number; value: unknown }[] = of('steps');
    const early = readableChunk(steps[2].value);
    expect(Array.isArray((early as { items: unknown }).items)).toBe(true);
    steps[2].value = early;
    const joined = joinChunks('steps', steps, 3);
    if ('problem' in joined) throw new Error(joined.problem);
    expect(firstDifference(joined.items, structuredClone(run.steps))).toBeUndefined();
    expect(joinChunks('handoffs', of('handoffs'), 1)).toMatchObject({ items: run.handoffs });
    expect(joinChunks('annotations', of('annotations'), 1)).toMatchObject({ items: run.annotations });
    expect(joinChunks('spans', of('spans'))).toMatchObject({ items: run.spans });
    // The plan itself (what the page writes) keeps items.
    expect(plan.chunks.every((c) => 'items' in c.value)).toBe(true);
  });

  it('a stored chunk is passed on as it is: its slices or its items and its count, or nothing when it is neither', () => {
    const plan = planRunWrite(mixedRun(), { spansApart: true, limits: SMALL });
    const spans = plan.chunks.find((c) => c.key[1] === 'spans')!;
    const inColumns = structuredClone(chunkInColumns(spans)) as { slices: ColumnSlice[]; of: number };
    expect(storedChunkParts(inColumns)).toEqual({ slices: inColumns.slices, of: inColumns.of });
    // One slice stored whole, before ADR 0079.
    expect(storedChunkParts({ columns: inColumns.slices[0], of: 2 })).toEqual({ slices: [inColumns.slices[0]], of: 2 });
    expect(storedChunkParts({ items: [1, 'a'], of: 'x' })).toEqual({ items: [1, 'a'], of: 'x' });
    for (const odd of [null, undefined, 3, 'chunk', [], { items: 'no' }, { slices: 'no', of: 1 }, { slices: [{ rows: -1 }], of: 1 }, { slices: [{ rows: 2 ** 30 }], of: 1 }, { slices: [null], of: 1 }]) {
      expect(storedChunkParts(odd)).toBeUndefined();
    }
  });

  it('a chunk with an item that is not a record is stored as items', () => {
    const chunk = { key: ['r', 'steps', 0] as ['r', 'steps', number], value: { items: [{ id: 'a' }, null], of: 1 } };
    expect(chunkInColumns(chunk)).toBe(chunk.value);
  });

  it('a chunk whose columns cannot be rebuilt is named, not read', () => {
    const plan = planRunWrite(mixedRun(), { spansApart: true, limits: SMALL });
    const steps = plan.chunks.filter((c) => c.key[1] === 'steps').map((c) => ({ index: c.key[2], value: structuredClone(chunkInColumns(c)) as unknown }));
    const broken = structuredClone(steps[1].value) as { slices: { shapes: unknown[] }[] };
    broken.slices[0].shapes = [{ keys: ['id'], cols: [{ t: 'str', v: new Uint32Array([99, 99, 99, 99]) }] }];
    expect(readableChunk(broken)).toBe(broken);
    // A row count no chunk could have is not allocated for, nor are slices that are not an array of slices.
    for (const rows of [2 ** 26, 2 ** 31, -1, 1.5, '4']) {
      const absurd = { ...(structuredClone(steps[0].value) as { slices: object[]; of: number }) };
      absurd.slices = [{ ...absurd.slices[0], rows }];
      expect(readableChunk(absurd)).toBe(absurd);
    }
    for (const slices of [null, 'x', [null], {}]) {
      const odd = { slices, of: 3 };
      expect(readableChunk(odd)).toBe(odd);
    }
    expect(joinChunks('steps', [steps[0], { index: 1, value: broken }, steps[2]], 3)).toEqual({ problem: 'steps: chunk 1 is not a chunk of 3' });
  });

  it('a chunk of more rows than a slice is stored in slices that share its strings, and is rebuilt a slice per task (ADR 0079)', async () => {
    const rows = 2 * CHUNK_SLICE_ROWS + 7;
    // Strings repeat across slices (agents, kinds, a shared text): sent once, in the first slice that has them.
    const items = Array.from({ length: rows }, (_, i) => ({ id: `s${i}`, kind: i % 2 ? 'action' : 'message', agentId: `agent${i % 3}`, output: i % 5 ? 'same words' : `text ${i}`, usage: { input: i % 4, output: 1 } }));
    const chunk = chunkInColumns({ key: ['r', 'steps', 0], value: { items, of: 1 } }) as { slices: ColumnSlice[]; of: number };
    expect(chunk.slices.map((s) => s.rows)).toEqual([CHUNK_SLICE_ROWS, CHUNK_SLICE_ROWS, 7]);
    expect(chunk.slices[1].strings).not.toContain('same words');
    expect(chunk.slices[0].strings).toContain('same words');
    const stored = structuredClone(chunk);
    // Each slice in a task of its own: the reader pauses between two slices, and only there.
    let pauses = 0;
    const read = (await readChunk(stored, async () => void pauses++)) as { items: unknown[]; of: number };
    expect(pauses).toBe(2);
    expect(read.of).toBe(1);
    expect(firstDifference(read.items, items)).toBeUndefined();
    expect(readableChunk(structuredClone(chunk))).toEqual(read);
    // A chunk stored before ADR 0079 (its columns whole) is read alike, in one go.
    const whole = structuredClone({ columns: toColumns(items, new StringTable()), of: 1 });
    expect(firstDifference((readableChunk(whole) as { items: unknown[] }).items, items)).toBeUndefined();
    pauses = 0;
    expect(firstDifference(((await readChunk(structuredClone(whole), async () => void pauses++)) as { items: unknown[] }).items, items)).toBeUndefined();
    expect(pauses).toBe(0);
    // A slice that names a string no earlier slice sent is refused: the chunk is returned as it is.
    const lost = structuredClone(chunk);
    lost.slices[0].strings = [];
    expect(await readChunk(lost, async () => {})).toBe(lost);
    // Items are read as they are.
    const plain = { items: [1, 2], of: 1 };
    expect(await readChunk(plain)).toBe(plain);
  });
});

describe('chunks looked at in columns as they are rebuilt (ADR 0101)', () => {
  /** The steps' chunks of a run as the import worker stores them and the library reads them back, each read with `look`. */
  async function readSteps(steps: Step[], look: ReturnType<typeof sliceLookOf>, damage?: (chunks: { slices: ColumnSlice[] }[]) => void) {
    const run = { ...longRun(0), steps };
    const plan = planRunWrite(run, { spansApart: true, limits: { maxItems: 2 * CHUNK_SLICE_ROWS + 10, maxBytes: 1e9 } });
    const stored = plan.chunks.filter((c) => c.key[1] === 'steps').map((c) => structuredClone(chunkInColumns(c)) as { slices: ColumnSlice[]; of: number });
    damage?.(stored);
    const read = await Promise.all(stored.map((value) => readChunk(value, async () => {}, look)));
    const joined = joinChunks('steps', read.map((value, index) => ({ index, value })), stored.length);
    if ('problem' in joined) throw new Error(joined.problem);
    return joined.items;
  }
  const steps = (n: number): Step[] => Array.from({ length: n }, (_, i) => ({ id: `s${i}`, index: i, kind: i % 2 ? 'llm' : 'message', agentId: `a${i % 3}`, output: `text ${i}`, usage: { input: i % 5, output: 1, total: (i % 5) + 1 } }));

  it('marks every item of the chunks whose slices the look passed, for that look only', async () => {
    const look = sliceLookOf(StepSchema)!;
    const items = await readSteps(steps(3 * CHUNK_SLICE_ROWS), look);
    const flags = lookedItemsOf(items, look)!;
    expect(flags).toHaveLength(3 * CHUNK_SLICE_ROWS);
    expect(flags.every((f) => f === 1)).toBe(true);
    // Another look (another schema), no look, or an array not joined here: no marks.
    expect(lookedItemsOf(items, sliceLookOf(HandoffSchema))).toBeUndefined();
    expect(lookedItemsOf(items, undefined)).toBeUndefined();
    expect(lookedItemsOf([...items], look)).toBeUndefined();
    expect(lookedItemsOf(await readSteps(steps(10), undefined), look)).toBeUndefined();
  });

  it('leaves unmarked a chunk with a slice the look did not pass, and chunks stored as items, whatever they say', async () => {
    const look = sliceLookOf(StepSchema)!;
    const n = 2 * (2 * CHUNK_SLICE_ROWS + 10);
    // The second chunk's first slice names a kind no step has (its table's string changed), as a damaged store could.
    const items = await readSteps(steps(n), look, (chunks) => {
      const strings = chunks[1].slices[0].strings;
      strings[strings.indexOf('llm')] = 'bogus';
    });
    const flags = lookedItemsOf(items, look)!;
    const first = 2 * CHUNK_SLICE_ROWS + 10;
    expect(flags.subarray(0, first).every((f) => f === 1)).toBe(true);
    expect(flags.subarray(first).every((f) => f === 0)).toBe(true);
    expect(items.some((s) => (s as Step).kind === ('bogus' as never))).toBe(true);
    // A chunk stored as items, saying anything at all about itself, is not marked.
    const plain = { items: steps(4), of: 1, looked: true, flags: [1, 1, 1, 1] };
    const joined = joinChunks('steps', [{ index: 0, value: await readChunk(plain, async () => {}, look) }], 1);
    expect('items' in joined && lookedItemsOf(joined.items, look)).toBeUndefined();
  });
});

describe('planRunWrite with kept arrays (ADR 0058)', () => {
  it('does not split an array whose chunks are stored: the record names their count, no chunk is made for it', () => {
    const run = { ...makeRun('r'), steps: Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, index: i, kind: 'message' as const, agentId: 'a' })), handoffs: [] };
    const plan = planRunWrite(run, { spansApart: false, limits: SMALL, kept: { steps: 7, spans: 2 } });
    expect(plan.chunked).toBe(true);
    expect(plan.kept).toEqual(['steps']);
    expect(plan.record.chunks?.steps).toBe(7);
    expect(plan.record.steps).toEqual([]);
    expect(plan.chunks.some((c) => c.key[1] === 'steps')).toBe(false);
    // A run stored whole keeps nothing: its record is the run.
    expect(planRunWrite(makeRun('small'), { spansApart: false, limits: SMALL, kept: { steps: 3 } })).toMatchObject({ chunked: false, kept: [] });
  });
});
