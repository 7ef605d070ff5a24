import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { useLibrary } from './library.ts';
import {
  EMPTY_SNAPSHOT,
  forgetQuarantined,
  MIGRATIONS,
  openLibraryDb,
  readLibrary,
  readQuarantine,
  deferRunWrites,
  startLibraryPersistence,
  usePersistence,
  writeChanges,
  chunkRange,
  type LoadProgress,
  type Migration,
} from './library-db.ts';
import { chunkInColumns, type ChunkLimits } from '../model/run-chunks.ts';
import type { Intervention, Run, Step } from '../model/types.ts';
import { makeRun } from '../testing/test-runs.ts';
import { countStepFacts, knownStepFacts } from '../model/step-facts.ts';

let dbCount = 0;
const freshName = () => `library-test-${dbCount++}`;

const file = (id: string, runIds: string[]) => ({ id, name: `${id}.json`, format: 'native', formatLabel: 'x', runIds, addedAt: dbCount, simulated: false, warnings: [] });

beforeEach(() => {
  useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] });
  usePersistence.setState({ status: 'loading', problem: undefined, writes: 0 });
});

describe('library database', () => {
  it('writes only what changed, in one transaction, and reads it back', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const r1 = makeRun('r1');
    const r2 = makeRun('r2');
    const s1 = { files: [file('f1', ['r1', 'r2'])], runs: { r1, r2 }, llmCalls: {} };
    expect(await writeChanges(db, EMPTY_SNAPSHOT, s1)).toBe(3);
    const r2b = { ...r2, title: 'renamed' };
    const s2 = { files: [{ ...s1.files[0], runIds: ['r2'] }], runs: { r2: r2b }, llmCalls: {} };
    // file rewritten, r1 deleted, r2 rewritten
    expect(await writeChanges(db, s1, s2)).toBe(3);
    const { library, quarantined } = await readLibrary(db);
    expect(quarantined).toEqual([]);
    expect(library.files.map((f) => f.runIds)).toEqual([['r2']]);
    expect(Object.keys(library.runs)).toEqual(['r2']);
    expect(library.runs.r2.title).toBe('renamed');
    db.close();
  });

  it('counts the step facts of every run it reads, so that the Library\'s first render does not (ADR 0059)', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const r1 = makeRun('r1');
    const s1 = { files: [file('f1', ['r1'])], runs: { r1 }, llmCalls: {} };
    await writeChanges(db, EMPTY_SNAPSHOT, s1);
    const { library } = await readLibrary(db);
    expect(knownStepFacts(library.runs.r1)).toEqual(countStepFacts(r1.steps));
    db.close();
  });

  it('reads a run stored with the runner\'s semantics in raw into the typed fields (ADR 0014)', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const old = { ...makeRun('live'), sourceFormat: 'runner' as const, raw: { liveStatus: 'failed', liveNote: 'endpoint down' } };
    old.steps = [{ id: 'live:s0', index: 0, kind: 'message', agentId: 'a', output: 'x', raw: { origin: 'live', llmCallId: 'h#1', pruned: true } }];
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['live'])], runs: { live: old }, llmCalls: {} });
    const { library } = await readLibrary(db);
    expect(library.runs.live.live).toEqual({ status: 'failed', note: 'endpoint down' });
    expect(library.runs.live.raw).toBeUndefined();
    expect(library.runs.live.steps[0]).toMatchObject({ runner: { origin: 'live', llmCallId: 'h#1', pruned: true } });
    expect(library.runs.live.steps[0].raw).toBeUndefined();
    db.close();
  });

  it('moves a corrupt record to quarantine instead of deleting it, and reports it', async () => {
    const name = freshName();
    const db = await openLibraryDb({ name });
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['good', 'bad'])], runs: { good: makeRun('good'), bad: makeRun('bad') }, llmCalls: {} });
    const broken = { ...makeRun('bad'), steps: 'oops' };
    await db.put('runs', broken as never);
    db.close();

    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const s = useLibrary.getState();
    expect(s.hydrated).toBe(true);
    expect(Object.keys(s.runs)).toEqual(['good']);
    expect(s.files[0].runIds).toEqual(['good']);
    const shown = usePersistence.getState().quarantined;
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ store: 'runs', key: 'bad' });
    expect(shown[0].reason).toMatch(/^\$\.steps: .*expected array/);
    persistence.stop();

    const again = await openLibraryDb({ name });
    const q = await readQuarantine(again);
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ store: 'runs', key: 'bad', value: broken });
    expect(await again.get('runs', 'bad')).toBeUndefined();
    again.close();
  });

  // Issue 17, item 7: each of these blanked every view on every reload before stored runs met the import schema.
  const CORRUPT: [string, (r: Record<string, unknown>) => void, RegExp][] = [
    ['agents: [null]', (r) => (r.agents = [null]), /^\$\.agents\[0\]: /],
    ['a step whose toolCalls is not a list', (r) => ((r.steps as Record<string, unknown>[])[0].toolCalls = { name: 'x' }), /^\$\.steps\[0\]\.toolCalls: /],
    ['a step without agentId', (r) => delete (r.steps as Record<string, unknown>[])[1].agentId, /^\$\.steps\[1\]\.agentId: /],
    ['handoffs: [null]', (r) => (r.handoffs = [null]), /^\$\.handoffs\[0\]: /],
    ['an object where text belongs', (r) => ((r.steps as Record<string, unknown>[])[0].output = { text: 'hi' }), /^\$\.steps\[0\]\.output: /],
    ['a title that is not text', (r) => (r.title = ['t']), /^\$\.title: /],
    ['a step that is null', (r) => ((r.steps as unknown[])[1] = null), /^\$\.steps\[1\]: /],
  ];
  for (const [label, damage, reason] of CORRUPT) {
    it(`sets aside a stored run with ${label}, with a note, and loads the rest`, async () => {
      const name = freshName();
      const db = await openLibraryDb({ name });
      await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['good', 'bad'])], runs: { good: makeRun('good'), bad: makeRun('bad') }, llmCalls: {} });
      const broken = structuredClone(makeRun('bad')) as unknown as Record<string, unknown>;
      damage(broken);
      await db.put('runs', broken as never);
      const { library, quarantined } = await readLibrary(db);
      expect(Object.keys(library.runs)).toEqual(['good']);
      expect(library.files[0].runIds).toEqual(['good']);
      expect(quarantined).toHaveLength(1);
      expect(quarantined[0]).toMatchObject({ store: 'runs', key: 'bad', value: broken });
      expect(quarantined[0].reason).toMatch(reason);
      expect(await db.get('runs', 'bad')).toBeUndefined();
      expect(await readQuarantine(db)).toHaveLength(1);
      db.close();
    });
  }

  it('shows what was set aside on every load until it is forgotten', async () => {
    const name = freshName();
    const db = await openLibraryDb({ name });
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['good'])], runs: { good: makeRun('good') }, llmCalls: {} });
    await db.put('runs', { ...makeRun('bad'), agents: [null] } as never);
    db.close();
    const first = await startLibraryPersistence({ name });
    expect(usePersistence.getState().quarantined.map((q) => q.key)).toEqual(['bad']);
    first.stop();
    usePersistence.setState({ quarantined: [] });
    const second = await startLibraryPersistence({ name });
    expect(usePersistence.getState().quarantined.map((q) => q.key)).toEqual(['bad']);
    await forgetQuarantined();
    expect(usePersistence.getState().quarantined).toEqual([]);
    second.stop();
    const again = await openLibraryDb({ name });
    expect(await readQuarantine(again)).toEqual([]);
    again.close();
  });

  it('hydrates an empty database and then saves every change', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 5 });
    expect(useLibrary.getState().hydrated).toBe(true);
    expect(usePersistence.getState().status).toBe('saved');
    const f = useLibrary.getState().addLoaded({ file: 'a.json', format: 'native', formatLabel: 'x', runs: [makeRun('r1'), makeRun('r2')], warnings: [] });
    await persistence.flush();
    useLibrary.getState().updateRun(makeRun('r2', { title: 'edited' }));
    await persistence.flush();
    persistence.stop();

    // A reload: a fresh store state read back from the same database.
    useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] });
    const reloaded = await startLibraryPersistence({ name });
    const s = useLibrary.getState();
    expect(s.files.map((x) => x.id)).toEqual([f.id]);
    expect(s.runs.r2.title).toBe('edited');
    expect(s.failures).toEqual([]);

    useLibrary.getState().removeFile(f.id);
    await reloaded.flush();
    reloaded.stop();
    const db = await openLibraryDb({ name });
    expect(await db.count('runs')).toBe(0);
    expect(await db.count('files')).toBe(0);
    db.close();
  });

  it('says saving while a change waits for its debounced write (a reload then could lose it)', async () => {
    const persistence = await startLibraryPersistence({ name: freshName(), debounceMs: 50 });
    expect(usePersistence.getState().status).toBe('saved');
    useLibrary.getState().addLoaded({ file: 'pending.json', format: 'native', formatLabel: 'x', runs: [makeRun('pending')], warnings: [] });
    expect(usePersistence.getState().status).toBe('saving');
    await persistence.flush();
    expect(usePersistence.getState().status).toBe('saved');
    persistence.stop();
  });

  it('debounces a burst of changes into one write', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 20 });
    const statuses: string[] = [];
    const off = usePersistence.subscribe((s) => statuses.push(s.status));
    for (let i = 0; i < 5; i++) useLibrary.getState().addLoaded({ file: `f${i}.json`, format: 'native', formatLabel: 'x', runs: [makeRun(`r${i}`)], warnings: [] });
    await new Promise((r) => setTimeout(r, 80));
    await persistence.flush();
    off();
    expect(statuses.filter((s) => s === 'saving')).toHaveLength(1);
    expect(usePersistence.getState().writes).toBe(1);
    persistence.stop();
    const db = await openLibraryDb({ name });
    expect(await db.count('runs')).toBe(5);
    db.close();
  });

  it('still marks the library hydrated when IndexedDB cannot be opened', async () => {
    const failing: Migration[] = [
      ...MIGRATIONS,
      () => {
        throw new Error('upgrade refused');
      },
    ];
    const persistence = await startLibraryPersistence({ name: freshName(), migrations: failing });
    expect(useLibrary.getState().hydrated).toBe(true);
    expect(usePersistence.getState()).toMatchObject({ status: 'unavailable' });
    expect(usePersistence.getState().problem).toContain('upgrade refused');
    await persistence.flush();
  });

  it('runs the migration hook for each newer version on existing data', async () => {
    const name = freshName();
    const v1 = await openLibraryDb({ name });
    await writeChanges(v1, EMPTY_SNAPSHOT, { files: [file('f1', ['r1'])], runs: { r1: makeRun('r1', { title: 'old title' }) }, llmCalls: {} });
    v1.close();
    const toV2: Migration = async (_db, tx) => {
      let cursor = await tx.objectStore('runs').openCursor();
      while (cursor) {
        await cursor.update({ ...cursor.value, title: `${cursor.value.title} (migrated)` });
        cursor = await cursor.continue();
      }
    };
    const v2 = await openLibraryDb({ name, migrations: [...MIGRATIONS, toV2] });
    expect(v2.version).toBe(MIGRATIONS.length);
    const { library } = await readLibrary(v2);
    expect(library.runs.r1.title).toBe('old title (migrated)');
    v2.close();
  });
});

describe('deferred run writes (live runs, issue 19)', () => {
  it('keeps a deferred run and its file out of the database, and writes them once the deferral ends', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const growing = new Set(['live']);
    deferRunWrites((id) => growing.has(id));
    try {
      useLibrary.getState().addLoaded({ file: 'a.json', format: 'native', formatLabel: 'x', runs: [makeRun('kept')], warnings: [] });
      const live = useLibrary.getState().addLoaded({ file: 'live', format: 'otlp', formatLabel: 'x', runs: [makeRun('live')], warnings: [] });
      await persistence.flush();
      const db = await openLibraryDb({ name });
      expect((await db.getAllKeys('runs')).sort()).toEqual(['kept']);
      expect(await db.get('files', live.id)).toBeUndefined();
      growing.delete('live');
      useLibrary.getState().updateRun(makeRun('live', { title: 'done' }));
      await persistence.flush();
      expect((await db.get('runs', 'live'))?.title).toBe('done');
      expect(await db.get('files', live.id)).toBeDefined();
      db.close();
    } finally {
      deferRunWrites(undefined);
      persistence.stop();
    }
  });
});

describe('write counter', () => {
  it('counts only writes that changed records', async () => {
    const name = freshName();
    const first = await startLibraryPersistence({ name, debounceMs: 0 });
    useLibrary.getState().addLoaded({ file: 'a.json', format: 'native', formatLabel: 'x', runs: [makeRun('r1')], warnings: [] });
    await first.flush();
    first.stop();
    useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] });
    usePersistence.setState({ status: 'loading', problem: undefined, writes: 0 });
    // Hydration replaces the store's arrays without changing a record: nothing to write, nothing counted.
    const second = await startLibraryPersistence({ name, debounceMs: 0 });
    await second.flush();
    expect(usePersistence.getState().writes).toBe(0);
    useLibrary.getState().updateRun(makeRun('r1', { title: 'changed' }));
    await second.flush();
    expect(usePersistence.getState().writes).toBe(1);
    second.stop();
  });
});

describe('large runs in chunks (ADR 0025)', () => {
  const SMALL: ChunkLimits = { maxItems: 4, maxBytes: 1_000_000 };
  function longRun(id: string, steps: number): Run {
    const run = makeRun(id);
    run.steps = Array.from({ length: steps }, (_, i): Step => ({ id: `${id}:s${i}`, index: i, kind: 'message', agentId: 'manager', output: `text ${i}` }));
    return run;
  }
  const chunkKeys = async (db: Awaited<ReturnType<typeof openLibraryDb>>, id: string) => (await db.getAllKeys('runChunks', chunkRange(id))).map((k) => (k as unknown[]).slice(1).join(':'));
  /** A mark in the first step of the run `long`'s stored steps chunk `index`: a write that writes the steps again removes it. */
  const markChunk = async (db: Awaited<ReturnType<typeof openLibraryDb>>, index: number) => {
    // The page writes its chunks as items (planRunWrite without `columns`).
    const chunk = (await db.get('runChunks', ['long', 'steps', index])) as { items: unknown[]; of: number };
    await db.put('runChunks', { ...chunk, items: [{ ...(chunk.items[0] as Step), output: 'mark' }, ...chunk.items.slice(1)] }, ['long', 'steps', index]);
  };
  /** A library holding the 10-step run `long` in chunks, its first chunk marked (markChunk). */
  const storedMarkedRun = async () => {
    const db = await openLibraryDb({ name: freshName() });
    const long = longRun('long', 10);
    const s1 = { files: [file('f1', ['long'])], runs: { long }, llmCalls: {} };
    await writeChanges(db, EMPTY_SNAPSHOT, s1, SMALL);
    await markChunk(db, 0);
    return { db, long, s1 };
  };
  /** The run as read back still has the mark (its steps were not written again), and the other steps as written. */
  const expectMarkKept = (read: Run, long: Run) => {
    expect(read.steps[0].output).toBe('mark');
    expect(read.steps.slice(1)).toEqual(long.steps.slice(1));
  };

  it('writes a long run in chunks and reads it back whole; a change replaces its chunks; a removal leaves them to the next load', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const long = longRun('long', 10);
    const s1 = { files: [file('f1', ['long', 'r2'])], runs: { long, r2: makeRun('r2') }, llmCalls: {} };
    expect(await writeChanges(db, EMPTY_SNAPSHOT, s1, SMALL)).toBe(3);
    expect(await chunkKeys(db, 'long')).toEqual(['steps:0', 'steps:1', 'steps:2']);
    expect(await chunkKeys(db, 'r2')).toEqual([]);
    const record = await db.get('runs', 'long');
    expect(record?.steps).toEqual([]);
    expect((await readLibrary(db)).library.runs.long).toEqual(long);

    const shorter = { ...long, steps: long.steps.slice(0, 5) };
    const s2 = { ...s1, runs: { long: shorter, r2: s1.runs.r2 } };
    await writeChanges(db, s1, s2, SMALL);
    expect(await chunkKeys(db, 'long')).toEqual(['steps:0', 'steps:1']);
    expect((await readLibrary(db)).library.runs.long).toEqual(shorter);

    await writeChanges(db, s2, { files: [file('f1', ['r2'])], runs: { r2: s1.runs.r2 }, llmCalls: {} }, SMALL);
    expect(await db.get('runs', 'long')).toBeUndefined();
    // Kept for an undo until the library is read again, which drops them.
    expect(await chunkKeys(db, 'long')).toEqual(['steps:0', 'steps:1']);
    expect(Object.keys((await readLibrary(db)).library.runs)).toEqual(['r2']);
    expect(await db.count('runChunks')).toBe(0);
    db.close();
  });

  it('an undo of a removal writes only the run’s record: its chunks were kept (a mark in one survives)', async () => {
    const { db, long, s1 } = await storedMarkedRun();
    const none = { files: [], runs: {}, llmCalls: {} };
    await writeChanges(db, s1, none, SMALL);
    // Undo: the same run object back.
    expect(await writeChanges(db, none, s1, SMALL)).toBe(2);
    expectMarkKept((await readLibrary(db)).library.runs.long, long);
    db.close();
  });

  it('a changed run whose steps are the same array keeps their chunks: only its record is written (ADR 0058)', async () => {
    // A mark in a stored chunk: a write that wrote the steps again would remove it.
    const { db, long, s1 } = await storedMarkedRun();
    const relabelled = { ...long, title: 'relabelled', annotations: [{ id: 'a1', stepId: 'long:s1', source: 'human', taxonomy: 'AgentAsk', code: 'RD' }] } as Run;
    const s2 = { ...s1, runs: { long: relabelled } };
    await writeChanges(db, s1, s2, SMALL);
    const read = (await readLibrary(db)).library.runs.long;
    expect(read.title).toBe('relabelled');
    expect(read.annotations).toEqual(relabelled.annotations);
    expectMarkKept(read, long);
    // The run's new annotations are in a chunk of their own (the run is in chunks); the steps' are the same three.
    expect(await chunkKeys(db, 'long')).toEqual(['annotations:0', 'steps:0', 'steps:1', 'steps:2']);

    // Steps appended to in place (runs are replaced, not edited, but a live run might): written again from their last
    // chunk on (ADR 0086). (`read` holds the arrays the library read: those are the ones the database is known to hold now.)
    const grown = { ...read, title: 'grown' };
    grown.steps.push({ id: 'long:s10', index: 10, kind: 'message', agentId: 'manager', output: 'late' });
    await writeChanges(db, { ...s1, runs: { long: read } }, { ...s1, runs: { long: grown } }, SMALL);
    const readGrown = (await readLibrary(db)).library.runs.long;
    expect(readGrown.steps).toHaveLength(11);
    expect(readGrown.steps[10].output).toBe('late');

    // New steps (even equal ones): written again, the mark gone.
    const copied = { ...relabelled, steps: [...long.steps] };
    await writeChanges(db, s2, { ...s1, runs: { long: copied } }, SMALL);
    expect((await readLibrary(db)).library.runs.long.steps).toEqual(long.steps);
    db.close();
  });

  it("an engine's interventions appended: a write keeps their chunks but the last, and writes the rest (ADR 0086)", async () => {
    const db = await openLibraryDb({ name: freshName() });
    const iv = (i: number, reason = `said ${i}`): Intervention => ({ id: `rectifier:long:s${i}`, stepId: `long:s${i % 10}`, engine: 'rectifier', action: 'pass', reason, heuristic: true }) as Intervention;
    const long = { ...longRun('long', 10), interventions: Array.from({ length: 10 }, (_, i) => iv(i)) };
    const s1 = { files: [file('f1', ['long'])], runs: { long }, llmCalls: {} };
    await writeChanges(db, EMPTY_SNAPSHOT, s1, SMALL);
    expect((await chunkKeys(db, 'long')).filter((k) => k.startsWith('interventions'))).toEqual(['interventions:0', 'interventions:1', 'interventions:2']);
    /** A mark in the first intervention of stored chunk `index`: a write that writes that chunk again removes it. */
    const mark = async (index: number) => {
      const chunk = (await db.get('runChunks', ['long', 'interventions', index])) as { items: Intervention[]; of: number };
      await db.put('runChunks', { ...chunk, items: [{ ...chunk.items[0], reason: 'mark' }, ...chunk.items.slice(1)] }, ['long', 'interventions', index]);
    };
    // Read from the chunks as stored (readLibrary would make the arrays it reads the ones known to be stored).
    const reasons = async () => ((await db.getAll('runChunks', chunkRange('long', 'interventions'))) as { items: Intervention[] }[]).flatMap((c) => c.items.map((i) => i.reason));
    await mark(0);
    await mark(1);
    await mark(2);

    // Five more results (the same objects before them, as withInterventions makes them): chunks 0 and 1 are kept, the
    // last (two items) is written again with the five after it.
    const grown = { ...long, interventions: [...long.interventions, ...[10, 11, 12, 13, 14].map((i) => iv(i))] };
    await writeChanges(db, s1, { ...s1, runs: { long: grown } }, SMALL);
    const expected = grown.interventions.map((i) => i.reason);
    expected[0] = 'mark';
    expected[4] = 'mark';
    expect(await reasons()).toEqual(expected);
    expect((await chunkKeys(db, 'long')).filter((k) => k.startsWith('interventions'))).toEqual(['interventions:0', 'interventions:1', 'interventions:2', 'interventions:3']);

    // One result replaced in chunk 1: chunk 0 is kept, the rest written again.
    const replaced = { ...grown, interventions: grown.interventions.map((x, i) => (i === 5 ? iv(5, 'again') : x)) };
    await writeChanges(db, { ...s1, runs: { long: grown } }, { ...s1, runs: { long: replaced } }, SMALL);
    const afterReplace = replaced.interventions.map((i) => i.reason);
    afterReplace[0] = 'mark';
    expect(await reasons()).toEqual(afterReplace);
    expect(afterReplace[5]).toBe('again');

    // Fewer, their first chunk unchanged: kept, and no chunk of the longer array is left behind.
    const fewer = { ...replaced, interventions: replaced.interventions.slice(0, 6) };
    await writeChanges(db, { ...s1, runs: { long: replaced } }, { ...s1, runs: { long: fewer } }, SMALL);
    expect(await reasons()).toEqual(['mark', ...fewer.interventions.slice(1).map((i) => i.reason)]);
    expect((await chunkKeys(db, 'long')).filter((k) => k.startsWith('interventions'))).toEqual(['interventions:0', 'interventions:1']);

    // Cleared (a fresh pass): none left.
    const cleared = { ...fewer, interventions: [] };
    await writeChanges(db, { ...s1, runs: { long: fewer } }, { ...s1, runs: { long: cleared } }, SMALL);
    expect(await reasons()).toEqual([]);
    expect((await chunkKeys(db, 'long')).filter((k) => k.startsWith('interventions'))).toEqual([]);
    expect((await readLibrary(db)).library.runs.long).toEqual(cleared);
    db.close();
  });

  it('interventions read back from chunks: the next append keeps them too (after a reload)', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const iv = (i: number): Intervention => ({ id: `rectifier:s${i}`, stepId: `long:s${i % 10}`, engine: 'rectifier', action: 'pass', reason: `said ${i}`, heuristic: true }) as Intervention;
    const long = { ...longRun('long', 10), interventions: Array.from({ length: 9 }, (_, i) => iv(i)) };
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['long'])], runs: { long }, llmCalls: {} }, SMALL);
    const read = (await readLibrary(db)).library;
    const chunk = (await db.get('runChunks', ['long', 'interventions', 1])) as { items: Intervention[]; of: number };
    await db.put('runChunks', { ...chunk, items: [{ ...chunk.items[0], reason: 'mark' }, ...chunk.items.slice(1)] }, ['long', 'interventions', 1]);
    const before = { files: read.files, runs: read.runs, llmCalls: read.llmCalls ?? {} };
    const grown = { ...read.runs.long, interventions: [...read.runs.long.interventions, iv(9), iv(10)] };
    await writeChanges(db, before, { ...before, runs: { long: grown } }, SMALL);
    const again = (await readLibrary(db)).library.runs.long;
    expect(again.interventions).toHaveLength(11);
    expect(again.interventions[4].reason).toBe('mark');
    expect(again.interventions.slice(8).map((i) => i.reason)).toEqual(['said 8', 'said 9', 'said 10']);
    db.close();
  });

  it('the steps read back from chunks are kept by the next change too (after a reload)', async () => {
    const name = freshName();
    const db = await openLibraryDb({ name });
    const long = longRun('long', 10);
    const s1 = { files: [file('f1', ['long'])], runs: { long }, llmCalls: {} };
    await writeChanges(db, EMPTY_SNAPSHOT, s1, SMALL);
    const read = (await readLibrary(db)).library;
    await markChunk(db, 2);
    const before = { files: read.files, runs: read.runs, llmCalls: read.llmCalls ?? {} };
    await writeChanges(db, before, { ...before, runs: { long: { ...read.runs.long, title: 'after a reload' } } }, SMALL);
    const again = (await readLibrary(db)).library.runs.long;
    expect(again.title).toBe('after a reload');
    expect(again.steps[8].output).toBe('mark');
    // Removed, then put back (an undo): its chunks stayed, and the undo writes its record only (the mark survives).
    await writeChanges(db, { ...before, runs: { long: again } }, { ...before, runs: {} }, SMALL);
    await writeChanges(db, { ...before, runs: {} }, { ...before, runs: { long: again } }, SMALL);
    expect(await chunkKeys(db, 'long')).toEqual(['steps:0', 'steps:1', 'steps:2']);
    expect((await readLibrary(db)).library.runs.long.steps[8].output).toBe('mark');
    db.close();
  });

  it('chunks are put one at a time, and one that cannot be stored aborts the whole write: nothing of it lands', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const good = longRun('long', 10);
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['long'])], runs: { long: good }, llmCalls: {} }, SMALL);
    // The last chunk's step holds a value IndexedDB cannot clone: its put throws, after the earlier chunks' puts.
    const bad = longRun('long', 10);
    (bad.steps[9] as unknown as Record<string, unknown>).raw = () => 'not cloneable';
    const s1 = { files: [file('f1', ['long'])], runs: { long: good }, llmCalls: {} };
    await expect(writeChanges(db, s1, { ...s1, runs: { long: { ...bad, title: 'bad' } } }, SMALL)).rejects.toThrow();
    // The write before it stands, whole.
    const read = (await readLibrary(db)).library.runs.long;
    expect(read.title).toBe(good.title);
    expect(read.steps).toEqual(good.steps);
    db.close();
  });

  it('a run written whole after being in chunks leaves no chunk behind', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const long = longRun('long', 10);
    const s1 = { files: [file('f1', ['long'])], runs: { long }, llmCalls: {} };
    await writeChanges(db, EMPTY_SNAPSHOT, s1, SMALL);
    const short = { ...long, steps: long.steps.slice(0, 2) };
    await writeChanges(db, s1, { ...s1, runs: { long: short } }, SMALL);
    expect(await db.count('runChunks')).toBe(0);
    expect((await readLibrary(db)).library.runs.long).toEqual(short);
    db.close();
  });

  const DAMAGE: [string, (db: Awaited<ReturnType<typeof openLibraryDb>>) => Promise<unknown>, RegExp][] = [
    ['a chunk missing', (db) => db.delete('runChunks', ['long', 'steps', 1]), /steps: 2 of 3 chunks/],
    ['a chunk that is not one', (db) => db.put('runChunks', { items: 'oops', of: 3 } as never, ['long', 'steps', 1]), /steps: chunk 1 is not a chunk of 3/],
    ['a step in a chunk that fails the schema', (db) => db.put('runChunks', { items: [null], of: 3 }, ['long', 'steps', 2]), /^\$\.steps\[8\]: /],
    ['a count that is not one', async (db) => db.put('runs', { ...(await db.get('runs', 'long'))!, chunks: { steps: 'three' } } as never), /chunks\.steps is not a count/],
  ];
  for (const [label, damage, reason] of DAMAGE) {
    it(`sets aside a run in chunks with ${label}, chunks and all, and loads the rest`, async () => {
      const name = freshName();
      const db = await openLibraryDb({ name });
      await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['long', 'ok'])], runs: { long: longRun('long', 10), ok: longRun('ok', 10) }, llmCalls: {} }, SMALL);
      await damage(db);
      const { library, quarantined } = await readLibrary(db);
      expect(Object.keys(library.runs)).toEqual(['ok']);
      expect(library.runs.ok.steps).toHaveLength(10);
      expect(library.files[0].runIds).toEqual(['ok']);
      expect(quarantined[0]).toMatchObject({ store: 'runs', key: 'long' });
      expect(quarantined[0].reason).toMatch(reason);
      // Its chunks are kept in the quarantine, one record each, and gone from the chunk store.
      const kept = await readQuarantine(db);
      expect(kept.filter((q) => q.store === 'runChunks').length).toBeGreaterThanOrEqual(2);
      expect(await chunkKeys(db, 'long')).toEqual([]);
      expect(await chunkKeys(db, 'ok')).toHaveLength(3);
      db.close();
    });
  }

  it('reports its load: each chunk read, then the runs checked step by step, up to their totals', async () => {
    const db = await openLibraryDb({ name: freshName() });
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['long', 'ok'])], runs: { long: longRun('long', 10), ok: longRun('ok', 10) }, llmCalls: {} }, SMALL);
    const reports: LoadProgress[] = [];
    await readLibrary(db, { onProgress: (p) => reports.push({ ...p }) });
    const reading = reports.filter((p) => p.phase === 'reading');
    const checking = reports.filter((p) => p.phase === 'checking');
    // Two runs of 10 steps in 3 chunks each (SMALL: 4 items a chunk).
    expect(reading.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(new Set(reading.map((p) => p.total))).toEqual(new Set([6]));
    expect(reports.findIndex((p) => p.phase === 'checking')).toBe(reading.length);
    // Each run counts its steps and one: 22 in all; the reports never go back.
    expect(new Set(checking.map((p) => p.total))).toEqual(new Set([22]));
    for (let i = 1; i < checking.length; i++) expect(checking[i].done).toBeGreaterThanOrEqual(checking[i - 1].done);
    expect(checking[0].done).toBe(0);
    expect(checking.at(-1)!.done).toBe(11);
    db.close();
  });

  /** Both runs' (`long`, `ok`) three step chunks rewritten as the import worker writes them: in columns. */
  const inColumns = async (db: Awaited<ReturnType<typeof openLibraryDb>>) => {
    for (const id of ['long', 'ok']) {
      for (let i = 0; i < 3; i++) {
        const key: [string, 'steps', number] = [id, 'steps', i];
        const chunk = (await db.get('runChunks', key)) as { items: unknown[]; of: number };
        await db.put('runChunks', chunkInColumns({ key, value: chunk }), key);
      }
    }
  };

  it('reads the chunks the worker stores in columns, and sets aside a run whose columns are damaged with its chunks as items (ADR 0075)', async () => {
    const db = await openLibraryDb({ name: freshName() });
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['long', 'ok'])], runs: { long: longRun('long', 10), ok: longRun('ok', 10) }, llmCalls: {} }, SMALL);
    await inColumns(db);
    const damaged = (await db.get('runChunks', ['long', 'steps', 1])) as { slices: { rows: number }[]; of: number };
    expect('slices' in damaged).toBe(true);
    await db.put('runChunks', { ...damaged, slices: [{ ...damaged.slices[0], shapes: [{ keys: ['id'], cols: [{ t: 'str', v: new Uint32Array([7, 7, 7, 7]) }] }] }] } as never, ['long', 'steps', 1]);
    const { library, quarantined } = await readLibrary(db);
    expect(library.runs.ok).toEqual(longRun('ok', 10));
    expect(quarantined.map((q) => [q.key, q.reason])).toEqual([['long', expect.stringMatching(/steps: chunk 1 is not a chunk of 3/)]]);
    const chunks = (await readQuarantine(db)).filter((q) => q.store === 'runChunks');
    // The readable chunks are set aside as their steps; the damaged one as it was found.
    expect(chunks.map((q) => ('items' in (q.value as object) ? 'items' : 'slices'))).toEqual(['items', 'slices', 'items']);
    db.close();
  });

  it('checks the steps of chunks stored in columns: one whose columns rebuild to a step the schema refuses is set aside, naming it (ADR 0101)', async () => {
    const db = await openLibraryDb({ name: freshName() });
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['long', 'ok'])], runs: { long: longRun('long', 10), ok: longRun('ok', 10) }, llmCalls: {} }, SMALL);
    await inColumns(db);
    // The second chunk of `long` rebuilds, but its table names a kind no step has: every step of that kind gets it.
    const damaged = (await db.get('runChunks', ['long', 'steps', 1])) as { slices: { strings: string[] }[] };
    const strings = damaged.slices[0].strings;
    expect(strings).toContain('message');
    strings[strings.indexOf('message')] = 'dance';
    await db.put('runChunks', damaged as never, ['long', 'steps', 1]);
    const { library, quarantined } = await readLibrary(db);
    expect(library.runs.ok).toEqual(longRun('ok', 10));
    expect(quarantined.map((q) => [q.key, q.reason])).toEqual([['long', expect.stringMatching(/^\$\.steps\[4\]\.kind: /)]]);
    db.close();
  });

  // ADR 0059: the records are read, then checked outside any transaction (a slice at a time), then tidied in a second
  // transaction. What another tab does in between must not be undone by the tidy.
  it('keeps the chunks of a run put back between the read and the tidy (an undo in another tab)', async () => {
    const db = await openLibraryDb({ name: freshName() });
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['back'])], runs: { back: longRun('back', 10) }, llmCalls: {} }, SMALL);
    const record = await db.get('runs', 'back');
    // Removed: its record is gone and its chunks are left over, for an undo to find.
    await db.delete('runs', 'back');
    const { library } = await readLibrary(db, { afterRead: async () => void (await db.put('runs', record!)) });
    expect(Object.keys(library.runs)).toEqual([]);
    expect(await chunkKeys(db, 'back')).toEqual(['steps:0', 'steps:1', 'steps:2']);
    // The next load reads it whole.
    expect((await readLibrary(db)).library.runs.back).toEqual(longRun('back', 10));
    db.close();
  });

  it('sets aside a failed run as it is stored when the tidy runs, and skips one removed meanwhile', async () => {
    const db = await openLibraryDb({ name: freshName() });
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file('f1', ['gone', 'bad'])], runs: { gone: longRun('gone', 10), bad: longRun('bad', 10) }, llmCalls: {} }, SMALL);
    await db.put('runChunks', { items: [null], of: 3 }, ['gone', 'steps', 2]);
    await db.put('runChunks', { items: [null], of: 3 }, ['bad', 'steps', 2]);
    const renamed = { ...(await db.get('runs', 'bad'))!, title: 'renamed meanwhile' };
    const { library, quarantined } = await readLibrary(db, {
      afterRead: async () => {
        await writeChanges(db, { files: [], runs: { gone: longRun('gone', 10) }, llmCalls: {} }, { files: [], runs: {}, llmCalls: {} }, SMALL);
        await db.put('runs', renamed);
      },
    });
    expect(Object.keys(library.runs)).toEqual([]);
    expect(quarantined.map((q) => [q.key, q.reason])).toEqual([['bad', expect.stringMatching(/^\$\.steps\[8\]: /)]]);
    expect(quarantined[0].value).toEqual(renamed);
    const kept = await readQuarantine(db);
    expect(kept.filter((q) => q.store === 'runChunks').map((q) => q.key)).toEqual(['["bad","steps",0]', '["bad","steps",1]', '["bad","steps",2]']);
    expect(await db.get('runs', 'bad')).toBeUndefined();
    db.close();
  });

  it('opens a version 2 library with its runs and spans as they were, then writes in chunks', async () => {
    const name = freshName();
    const v2 = await openLibraryDb({ name, migrations: MIGRATIONS.slice(0, 3) });
    expect(v2.version).toBe(2);
    const old = longRun('old', 10);
    // A version 2 database has no chunk store: write the way version 2 did.
    const tx = v2.transaction(['files', 'runs', 'runSpans'], 'readwrite');
    await Promise.all([tx.objectStore('files').put(file('f1', ['old'])), tx.objectStore('runs').put(old), tx.objectStore('runSpans').put([], 'old'), tx.done]);
    v2.close();

    const v3 = await openLibraryDb({ name });
    expect(v3.version).toBe(3);
    const { library, storedSpans } = await readLibrary(v3);
    expect(library.runs.old).toEqual(old);
    expect(storedSpans.has('old')).toBe(true);
    const changed = { ...old, title: 'changed' };
    await writeChanges(v3, { files: library.files, runs: library.runs, llmCalls: {} }, { files: library.files, runs: { old: changed }, llmCalls: {} }, SMALL);
    expect(await chunkKeys(v3, 'old')).toEqual(['steps:0', 'steps:1', 'steps:2']);
    const again = await readLibrary(v3);
    expect(again.library.runs.old).toEqual(changed);
    // Its spans stayed apart (the change had none inline).
    expect(again.storedSpans.has('old')).toBe(true);
    v3.close();
  });
});
