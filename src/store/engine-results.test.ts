// Engine results are kept at once: into the run in the library and into IndexedDB without waiting for the debounce.
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Intervention, Stage } from '../model/types.ts';
import { keepIntervention, keepLlmCall, keepStage, withIntervention } from './engine-results.ts';
import { JOURNAL_KEY, journalPartKey, journalParts, readJournal } from './results-journal.ts';
import { memoryStorage } from '../testing/memory-storage.ts';
import { useLibrary } from './library.ts';
import { openLibraryDb, startLibraryPersistence, type Persistence } from './library-db.ts';
import { makeRun } from '../testing/test-runs.ts';
import * as S from '../model/schema.ts';

const iv = (id: string, action: string): Intervention => ({ id, engine: 'rectifier', stepId: 'r1:s0', action, reason: 'r', heuristic: false });
let persistence: Persistence | undefined;
let n = 0;

beforeEach(() => useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] }));
afterEach(() => persistence?.stop());

describe('withIntervention', () => {
  it('adds a new intervention and replaces one with the same id', () => {
    const run = withIntervention(makeRun('r1'), iv('a', 'pass@1'));
    expect(withIntervention(run, iv('a', 'rejected')).interventions.map((i) => i.action)).toEqual(['rejected']);
    expect(withIntervention(run, iv('b', 'pass@2')).interventions.map((i) => i.id)).toEqual(['a', 'b']);
  });
});

describe('keeping engine results', () => {
  it('reaches IndexedDB long before the library’s debounce would write it', async () => {
    const name = `engine-results-${++n}`;
    persistence = await startLibraryPersistence({ name, debounceMs: 60_000, storage: memoryStorage() });
    useLibrary.setState({ runs: { r1: makeRun('r1') } });
    const db = await openLibraryDb({ name });
    keepIntervention('r1', iv('a', 'pass@1'));
    expect(useLibrary.getState().runs.r1.interventions.map((i) => i.id)).toEqual(['a']);
    await expect.poll(async () => (await db.get('runs', 'r1'))?.interventions.length, { timeout: 2000 }).toBe(1);
    keepLlmCall({ id: 'h#1', requestHash: 'h', model: 'm', request: {}, response: {} });
    await expect.poll(async () => (await db.get('llmCalls', 'h#1'))?.model, { timeout: 2000 }).toBe('m');
    db.close();
  });

  it('leaves the library alone when the run was removed meanwhile', () => {
    keepStage('gone', { id: 'stage-1', index: 0, subtasks: [], layers: [] } as unknown as Stage);
    keepIntervention('gone', iv('a', 'pass@1'));
    expect(useLibrary.getState().runs).toEqual({});
  });
});

/** A first page that wrote run r1 to a fresh database and stopped: the database's name. */
async function firstPageWroteR1(): Promise<string> {
  const name = `engine-results-${++n}`;
  persistence = await startLibraryPersistence({ name, debounceMs: 60_000, storage: memoryStorage() });
  useLibrary.setState({ runs: { r1: makeRun('r1') } });
  await persistence.flush();
  persistence.stop();
  persistence = undefined;
  return name;
}

describe('the journal of results not yet written (ADR 0055)', () => {
  const stage = (id: string, index: number) => ({ id, index, subtasks: [], layers: [], derivedBy: 'llm' }) as unknown as Stage;

  it('guards each result in storage before it is shown, and lets it go once the database holds it', async () => {
    const name = `engine-results-${++n}`;
    const storage = memoryStorage();
    persistence = await startLibraryPersistence({ name, debounceMs: 60_000, storage });
    useLibrary.setState({ runs: { r1: makeRun('r1') } });
    keepIntervention('r1', iv('a', 'pass@1'));
    keepStage('r1', stage('stage-1', 0));
    keepLlmCall({ id: 'h#1', requestHash: 'h', model: 'm', request: {}, response: {} });
    // Synchronously, before any write could have committed: all three are in storage.
    expect(readJournal(storage, S).map((e) => e.kind)).toEqual(['intervention', 'stage', 'call']);
    await persistence.flush();
    expect(journalParts(storage)).toEqual([]);
    const db = await openLibraryDb({ name });
    expect((await db.get('runs', 'r1'))?.interventions.map((i) => i.id)).toEqual(['a']);
    db.close();
  });

  it('puts back what a page kept but did not write, before the library is shown, and writes it', async () => {
    // A first page writes the run, then keeps a result whose write never happens (the reload cuts it).
    const name = await firstPageWroteR1();
    const left = memoryStorage();
    left.map.set(
      JOURNAL_KEY,
      JSON.stringify([
        { kind: 'intervention', runId: 'r1', item: iv('a', 'pass@1') },
        { kind: 'stage', runId: 'r1', item: stage('stage-1', 0) },
        { kind: 'call', item: { id: 'h#1', requestHash: 'h', model: 'm', request: {}, response: {} } },
        { kind: 'intervention', runId: 'removed-run', item: iv('b', 'pass@1') },
        { kind: 'intervention', runId: 'r1', item: { id: 'no-engine' } },
        'not an entry',
      ]),
    );
    useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {} });
    persistence = await startLibraryPersistence({ name, debounceMs: 60_000, storage: left });
    const run = useLibrary.getState().runs.r1;
    expect(run.interventions.map((i) => i.id)).toEqual(['a']);
    expect(run.stages?.map((s) => s.id)).toEqual(['stage-1']);
    expect(Object.keys(useLibrary.getState().llmCalls)).toEqual(['h#1']);
    expect(readJournal(left, S)).toHaveLength(3); // guarded until written; the bad and orphaned entries are gone
    await persistence.flush();
    expect(journalParts(left)).toEqual([]);
    const db = await openLibraryDb({ name });
    expect((await db.get('runs', 'r1'))?.interventions.map((i) => i.id)).toEqual(['a']);
    expect((await db.get('llmCalls', 'h#1'))?.model).toBe('m');
    db.close();
  });

  it('guards results kept together in a part of their own, written alone, and lets each part go as its results are written', async () => {
    const name = `engine-results-${++n}`;
    const storage = memoryStorage();
    persistence = await startLibraryPersistence({ name, debounceMs: 60_000, storage });
    useLibrary.setState({ runs: { r1: makeRun('r1'), r2: makeRun('r2') } });
    keepIntervention('r1', iv('a', 'pass@1'));
    const first = storage.map.get(journalPartKey(1));
    keepIntervention('r2', iv('b', 'pass@1'));
    // The second keep wrote its own part and left the first as it was.
    expect(journalParts(storage)).toEqual([1, 2]);
    expect(storage.map.get(journalPartKey(1))).toBe(first);
    expect(JSON.parse(storage.map.get(journalPartKey(2))!)).toEqual([{ kind: 'intervention', runId: 'r2', item: iv('b', 'pass@1') }]);
    expect(readJournal(storage, S).map((e) => e.item.id)).toEqual(['a', 'b']);
    // r2 is removed before the write: its part goes, as does r1's once written.
    useLibrary.getState().removeRuns(['r2']);
    await persistence.flush();
    expect(journalParts(storage)).toEqual([]);
  });

  it('at load, puts back the parts of a journal in the order written, ignores keys that only look like parts, and rewrites it whole', async () => {
    const name = await firstPageWroteR1();
    const entry = (action: string) => JSON.stringify([{ kind: 'intervention', runId: 'r1', item: iv('a', action) }]);
    // Part 10 was written after part 9 (numbers, not text, order them); the whole journal comes first.
    const left = memoryStorage([
      [journalPartKey(10), entry('pass@3')],
      [JOURNAL_KEY, entry('pass@1')],
      [journalPartKey(9), entry('pass@2')],
      [`${JOURNAL_KEY}#x`, entry('rejected')],
      [`${JOURNAL_KEY}#01`, entry('rejected')],
    ]);
    useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {} });
    persistence = await startLibraryPersistence({ name, debounceMs: 60_000, storage: left });
    expect(useLibrary.getState().runs.r1.interventions.map((i) => i.action)).toEqual(['pass@3']);
    // Written whole again (one key), until the database holds it.
    expect(journalParts(left)).toEqual([0]);
    await persistence.flush();
    expect(journalParts(left)).toEqual([]);
    expect(left.map.has(`${JOURNAL_KEY}#x`)).toBe(true);
  });

  it('drops a guarded result the library no longer holds (a fresh pass cleared it)', async () => {
    const name = `engine-results-${++n}`;
    const storage = memoryStorage();
    persistence = await startLibraryPersistence({ name, debounceMs: 60_000, storage });
    useLibrary.setState({ runs: { r1: makeRun('r1') } });
    keepIntervention('r1', iv('a', 'pass@1'));
    useLibrary.getState().updateRun({ ...useLibrary.getState().runs.r1, interventions: [] });
    await persistence.flush();
    expect(journalParts(storage)).toEqual([]);
  });
});
