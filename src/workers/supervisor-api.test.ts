// The supervisor worker's API, called directly (no Worker in Node): shadow-supervised runs derived to be written by
// the worker are held by run id, so two derivations in flight at once each write their own run.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { startLibraryPersistence, usePersistence } from '../store/library-db.ts';
import { useLibrary } from '../store/library.ts';
import { shadowRunId } from '../engine/supervisor/index.ts';
import { applyRunPatch } from '../model/run-patch.ts';
import { makeRun } from '../testing/test-runs.ts';
import { supervisorApi } from './supervisor-api.ts';
import type { FerriedRun } from './run-ferry.ts';

const thresholds = { tauStep: 100, tauLoop: 100, tauLen: 3000 };
/** A run small enough to cross whole (no array in parts). */
const whole = (id: string): FerriedRun => ({ head: makeRun(id), arrays: [] });

let dbCount = 0;
let stopPersistence: (() => void) | undefined;

async function freshLibrary(): Promise<string> {
  useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] });
  usePersistence.setState({ status: 'loading', problem: undefined, writes: 0, savingRuns: new Set(), storedSpans: new Set() });
  const name = `supervisor-api-test-${dbCount++}`;
  const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
  stopPersistence = () => persistence.stop();
  return name;
}

async function storedRunIds(name: string): Promise<string[]> {
  stopPersistence?.();
  useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] });
  const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
  stopPersistence = () => persistence.stop();
  return Object.keys(useLibrary.getState().runs).sort();
}

afterEach(() => stopPersistence?.());

describe('runs the supervisor worker derives and writes', () => {
  it('two derivations made before either is written: each write finds its own run', async () => {
    const name = await freshLibrary();
    const api = supervisorApi();
    // A is derived, then B, before the page's request to write A arrives (the Corpus deriving while Compare derives).
    const a = await api.deriveShadow(whole('a'), thresholds, [], true);
    const b = await api.deriveShadow(whole('b'), thresholds, [], true);
    expect(api.heldDerived().sort()).toEqual([shadowRunId('a'), shadowRunId('b')]);
    expect(applyRunPatch(makeRun('a'), a).id).toBe(shadowRunId('a'));

    await api.storeDerived(shadowRunId('a'), { name, version: 3 });
    await api.storeDerived(shadowRunId('b'), { name, version: 3 });
    expect(api.heldDerived()).toEqual([]);
    expect(await storedRunIds(name)).toEqual([shadowRunId('a'), shadowRunId('b')]);
    expect(applyRunPatch(makeRun('b'), b).steps).toHaveLength(2);
  });

  it('a run the page lets go of is no longer held, and cannot be written', async () => {
    const name = await freshLibrary();
    const api = supervisorApi();
    await api.deriveShadow(whole('a'), thresholds, [], true);
    api.dropDerived(shadowRunId('a'));
    expect(api.heldDerived()).toEqual([]);
    await expect(api.storeDerived(shadowRunId('a'), { name, version: 3 })).rejects.toThrow(/no longer held/);
  });

  it('a derivation without a write to come keeps nothing', async () => {
    const api = supervisorApi();
    await api.deriveShadow(whole('a'), thresholds, []);
    expect(api.heldDerived()).toEqual([]);
  });
});
