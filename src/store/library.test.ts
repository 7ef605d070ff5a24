import { beforeEach, describe, expect, it } from 'vitest';
import { runsOfFile, useLibrary, type LoadedFile } from './library.ts';
import { makeAnnotation, makeRun } from '../testing/test-runs.ts';

const loaded = (file: string, patch: Partial<LoadedFile> = {}): LoadedFile => ({
  file,
  format: 'native',
  formatLabel: 'MAS Replay session',
  runs: [],
  warnings: [],
  ...patch,
});

beforeEach(() => useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] }));

describe('library store', () => {
  it('adds a file with its runs and marks it simulated only when every run is', () => {
    const f1 = useLibrary.getState().addLoaded(loaded('a.json', { runs: [makeRun('r1', { simulated: true }), makeRun('r2', { simulated: true })] }));
    const f2 = useLibrary.getState().addLoaded(loaded('b.json', { runs: [makeRun('r3', { simulated: true }), makeRun('r4')] }));
    const s = useLibrary.getState();
    expect(s.files.map((f) => f.name)).toEqual(['a.json', 'b.json']);
    expect(f1.simulated).toBe(true);
    expect(f2.simulated).toBe(false);
    expect(runsOfFile(f1, s.runs).map((r) => r.id)).toEqual(['r1', 'r2']);
  });

  it('re-importing the same runs moves them to the newer file instead of listing them twice', () => {
    useLibrary.getState().addLoaded(loaded('old.json', { runs: [makeRun('r1'), makeRun('r2')] }));
    useLibrary.getState().addLoaded(loaded('new.json', { runs: [makeRun('r2', { title: 'newer' })] }));
    const s = useLibrary.getState();
    expect(s.files.map((f) => [f.name, f.runIds])).toEqual([
      ['old.json', ['r1']],
      ['new.json', ['r2']],
    ]);
    expect(s.runs.r2.title).toBe('newer');
    useLibrary.getState().addLoaded(loaded('again.json', { runs: [makeRun('r1')] }));
    expect(useLibrary.getState().files.map((f) => f.name)).toEqual(['new.json', 'again.json']);
  });

  it('removes a file, its runs and the llm calls no other file uses', () => {
    const call = { id: 'c1', requestHash: 'h', model: 'm', request: {} };
    const f = useLibrary.getState().addLoaded(loaded('a.json', { runs: [makeRun('r1')], llmCalls: [call] }));
    useLibrary.getState().addLoaded(loaded('b.json', { runs: [makeRun('r2')] }));
    expect(useLibrary.getState().llmCalls.c1).toEqual(call);
    useLibrary.getState().removeFile(f.id);
    const s = useLibrary.getState();
    expect(Object.keys(s.runs)).toEqual(['r2']);
    expect(s.llmCalls).toEqual({});
    expect(s.files.map((x) => x.name)).toEqual(['b.json']);
  });

  it('removes chosen runs across files and puts them back on undo, in place', () => {
    const call = { id: 'c1', requestHash: 'h', model: 'm', request: {} };
    useLibrary.getState().addLoaded(loaded('a.json', { runs: [makeRun('r1'), makeRun('r2')], llmCalls: [call] }));
    useLibrary.getState().addLoaded(loaded('b.json', { runs: [makeRun('r3')] }));
    useLibrary.getState().addLoaded(loaded('c.json', { runs: [makeRun('r4')] }));
    const removed = useLibrary.getState().removeRuns(['r2', 'r3']);
    let s = useLibrary.getState();
    expect(s.files.map((f) => [f.name, f.runIds])).toEqual([
      ['a.json', ['r1']],
      ['c.json', ['r4']],
    ]);
    expect(Object.keys(s.runs).sort()).toEqual(['r1', 'r4']);
    expect(s.llmCalls.c1).toEqual(call);
    expect(removed.runs.map((r) => r.id)).toEqual(['r2', 'r3']);
    useLibrary.getState().restoreRemoved(removed);
    s = useLibrary.getState();
    expect(s.files.map((f) => [f.name, f.runIds])).toEqual([
      ['a.json', ['r1', 'r2']],
      ['b.json', ['r3']],
      ['c.json', ['r4']],
    ]);
    expect(Object.keys(s.runs).sort()).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  it('undoes a file removal with its llm calls; a run opened again meanwhile is not replaced', () => {
    const call = { id: 'c1', requestHash: 'h', model: 'm', request: {} };
    const f = useLibrary.getState().addLoaded(loaded('a.json', { runs: [makeRun('r1'), makeRun('r2')], llmCalls: [call] }));
    const removed = useLibrary.getState().removeFile(f.id)!;
    expect(useLibrary.getState().llmCalls).toEqual({});
    useLibrary.getState().addLoaded(loaded('again.json', { runs: [makeRun('r2', { title: 'newer' })] }));
    useLibrary.getState().restoreRemoved(removed);
    const s = useLibrary.getState();
    expect(s.runs.r2.title).toBe('newer');
    expect(s.llmCalls.c1).toEqual(call);
    expect(s.files.map((x) => [x.name, x.runIds])).toEqual([
      ['a.json', ['r1']],
      ['again.json', ['r2']],
    ]);
  });

  it('attaches an annotation file to runs already in the library without mutating them', () => {
    useLibrary.getState().addLoaded(loaded('trace.json', { runs: [makeRun('t1')] }));
    const before = useLibrary.getState().runs.t1;
    useLibrary.getState().addLoaded(
      loaded('t1-annotations.json', { format: 'trail-annotations', annotationSets: [{ runId: 't1', annotations: [makeAnnotation('a1', 't1:s0')] }] }),
    );
    const after = useLibrary.getState().runs.t1;
    expect(after).not.toBe(before);
    expect(before.annotations).toEqual([]);
    expect(after.annotations.map((a) => a.id)).toEqual(['a1']);
    expect(useLibrary.getState().files).toHaveLength(2);
  });

  it('attaches annotations opened earlier to a trace opened later, once', () => {
    const sets = [{ runId: 't1', annotations: [makeAnnotation('a1'), makeAnnotation('a2')] }];
    useLibrary.getState().addLoaded(loaded('ann.json', { format: 'trail-annotations', annotationSets: sets }));
    useLibrary.getState().addLoaded(loaded('trace.json', { runs: [makeRun('t1')] }));
    useLibrary.getState().addLoaded(loaded('trace.json', { runs: [makeRun('t1')] }));
    expect(useLibrary.getState().runs.t1.annotations.map((a) => a.id)).toEqual(['a1', 'a2']);
  });

  it('hydrate keeps files opened before the stored library arrived, and they win over stored runs', () => {
    useLibrary.getState().addLoaded(loaded('fresh.json', { runs: [makeRun('r1', { title: 'fresh' })] }));
    useLibrary.getState().hydrate({
      files: [{ id: 'f-old', name: 'old.json', format: 'native', formatLabel: 'x', runIds: ['r1', 'r9'], addedAt: 1, simulated: false, warnings: [] }],
      runs: { r1: makeRun('r1', { title: 'stale' }), r9: makeRun('r9') },
    });
    const s = useLibrary.getState();
    expect(s.hydrated).toBe(true);
    expect(s.files.map((f) => [f.name, f.runIds])).toEqual([
      ['old.json', ['r9']],
      ['fresh.json', ['r1']],
    ]);
    expect(s.runs.r1.title).toBe('fresh');
  });

  it('records and dismisses import failures', () => {
    useLibrary.getState().addFailure({ file: 'bad.json', format: 'json', location: 'line 1, column 5', detail: 'invalid JSON' });
    const [f] = useLibrary.getState().failures;
    expect(f).toMatchObject({ file: 'bad.json', location: 'line 1, column 5' });
    useLibrary.getState().dismissFailure(f.id);
    expect(useLibrary.getState().failures).toEqual([]);
  });
});
