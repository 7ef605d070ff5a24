// Engine results are kept at once: into the run in the library and into IndexedDB without waiting for the debounce.
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Intervention } from '../model/types.ts';
import { keepIntervention, keepLlmCall, keepRunChange, withIntervention } from './engine-results.ts';
import { useLibrary } from './library.ts';
import { openLibraryDb, startLibraryPersistence, type Persistence } from './library-db.ts';
import { makeRun } from '../testing/test-runs.ts';

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
    persistence = await startLibraryPersistence({ name, debounceMs: 60_000 });
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
    keepRunChange('gone', (run) => ({ ...run, title: 'x' }));
    keepIntervention('gone', iv('a', 'pass@1'));
    expect(useLibrary.getState().runs).toEqual({});
  });
});
