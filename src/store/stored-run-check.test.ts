import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Run as RunSchema } from '../model/schema.ts';
import type { Handoff, Run, Step } from '../model/types.ts';
import { makeRun } from '../testing/test-runs.ts';
import { checkRun, checkRunSlices, sliceLookFor } from './stored-run-check.ts';
import { chunkInColumns, joinChunks, lookedItemsOf, planRunWrite, readChunk } from '../model/run-chunks.ts';
import { finish, type SliceStats } from '../model/slices.ts';

/** A run with `n` steps and handoffs: long enough for its arrays to be checked a slice at a time. */
function longRun(id: string, n: number): Run {
  const agents = [
    { id: 'a', name: 'a' },
    { id: 'b', name: 'b' },
  ];
  const steps: Step[] = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, index: i, kind: 'message', agentId: agents[i % 2].id, output: `message ${i}`, usage: { input: i, output: 1, total: i + 1 } }));
  const handoffs: Handoff[] = Array.from({ length: n - 1 }, (_, i) => ({ id: `h${i}`, from: agents[i % 2].id, to: [agents[(i + 1) % 2].id], kind: 'message', stepId: `s${i + 1}`, content: `message ${i + 1}` }));
  return makeRun(id, { agents, agentRuns: [], steps, handoffs });
}

/** What one zod pass over the whole run says: the run as parsed, or its first issue in the check's words. */
function wholeRunCheck(run: unknown): { run: Run } | { problem: string } {
  const parsed = RunSchema.safeParse(run);
  if (parsed.success) return { run: parsed.data as Run };
  const { path, message } = parsed.error.issues[0];
  const at = path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), '$');
  return { problem: `${at}: ${message}` };
}


/** One damage to a stored step or handoff, by name. */
const DAMAGES: [string, (item: Record<string, unknown>) => void][] = [
  ['none', () => {}],
  ['no agentId', (item) => delete item.agentId],
  ['a number for text', (item) => (item.output = 5)],
  ['an unknown kind', (item) => (item.kind = 'dance')],
  ['usage that is not numbers', (item) => (item.usage = { input: 'x' })],
  ['no id', (item) => delete item.id],
  ['an index that is not a number', (item) => (item.index = Number.NaN)],
  ['no recipients', (item) => (item.to = 'b')],
  ['an extra field', (item) => (item.extra = { kept: true })],
  ['an own __proto__ key', (item) => Object.defineProperty(item, '__proto__', { value: { polluted: true }, enumerable: true, writable: true, configurable: true })],
];

describe('checkRun (a stored run, a slice at a time)', () => {
  /**
   * The run with its steps and handoffs as the library's load gets them: stored in columns by the import worker (chunks
   * of `per` items), read back, each slice looked at in columns as it is rebuilt (ADR 0101), and joined.
   */
  async function throughColumns(run: Run, per = 1000): Promise<Run> {
    const plan = planRunWrite(run, { spansApart: true, limits: { maxItems: per, maxBytes: 1e9 } });
    const out = { ...run } as unknown as Record<string, unknown>;
    for (const field of ['steps', 'handoffs'] as const) {
      const chunks = plan.chunks.filter((c) => c.key[1] === field);
      const read = await Promise.all(chunks.map((c) => readChunk(structuredClone(chunkInColumns(c)), async () => {}, sliceLookFor(RunSchema, field))));
      const joined = joinChunks(field, read.map((value, index) => ({ index, value })), chunks.length);
      if ('problem' in joined) throw new Error(joined.problem);
      out[field] = joined.items;
    }
    return out as unknown as Run;
  }

  // As the run is held (one pass of the schema over the whole run gives the answer), and as the library's load reads
  // long arrays back from chunks looked at in columns (ADR 0101): the same answer for any one damage anywhere.
  it.each([
    ['held whole', async (run: Run) => run],
    ['read from chunks looked at in columns', (run: Run) => throughColumns(run)],
  ])('gives what one pass of the schema over the whole run gives, for any one damage anywhere in its long arrays (%s)', async (_, read) => {
    const base = longRun('long', 2500);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('steps', 'handoffs'), fc.nat(2497), fc.constantFrom(...DAMAGES), async (field, index, [, damage]) => {
        const run = structuredClone(base) as unknown as Record<string, Record<string, unknown>[]>;
        damage(run[field][index]);
        const checked = await read(run as unknown as Run);
        expect(finish(checkRunSlices(RunSchema, 'long', checked))).toEqual(wholeRunCheck(checked));
      }),
      { numRuns: 60 },
    );
  });

  it('keeps the items the look passed in columns as they are, without looking at them again', async () => {
    const read = await throughColumns(longRun('long', 2500));
    expect(lookedItemsOf(read.steps, sliceLookFor(RunSchema, 'steps'))?.every((f) => f === 1)).toBe(true);
    // Changed after the look (nothing in the library does so): the check trusts the look, which is what saves its time.
    (read.steps[7] as unknown as Record<string, unknown>).kind = 'dance';
    const checked = finish(checkRunSlices(RunSchema, 'long', read));
    expect('run' in checked && checked.run.steps[7].kind).toBe('dance');
    // The same steps in an array of their own are looked at one by one.
    expect(finish(checkRunSlices(RunSchema, 'long', { ...read, steps: [...read.steps] }))).toEqual({ problem: expect.stringMatching(/^\$\.steps\[7\]\.kind: /) });
  });

  it('names a problem outside the long arrays as one pass would, and reads a short run in one call', async () => {
    const stats: SliceStats = { tasks: 0, workMs: 0 };
    const short = makeRun('short');
    expect(await checkRun(RunSchema, 'short', short, stats)).toEqual({ run: short });
    const badTitle = { ...longRun('long', 2000), title: ['t'] };
    expect(await checkRun(RunSchema, 'long', badTitle, stats)).toEqual(wholeRunCheck(badTitle));
    expect([...checkRunSlices(RunSchema, 'long', badTitle)]).toEqual([]);
    expect(stats.tasks).toBe(2);
    expect(await checkRun(RunSchema, 'other', short)).toEqual({ problem: 'id "short" does not match its key' });
  });

  it('gives the thread back while it checks a long run, and the run it gives is the one stored', async () => {
    const stats: SliceStats = { tasks: 0, workMs: 0 };
    const run = longRun('long', 30_000);
    const checked = await checkRun(RunSchema, 'long', run, stats);
    expect(checked).toEqual({ run });
    // Tens of milliseconds of checking at the least, in tasks of a few: a pass in one task is one task.
    expect(stats.tasks).toBeGreaterThan(1);
  });
});
