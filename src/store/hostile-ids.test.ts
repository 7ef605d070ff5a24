// Ids, names and keys that are also names of Object's own members (issue 17): every store keyed by text from a file,
// a link or storage must treat them as plain keys. Fed through the importers, the URL, the library store, IndexedDB,
// annotation attachment and the batch summary; Object.prototype must come out untouched.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { sameItem, summarizeBatch, type BatchItem, type BatchState } from '../engine/runner/batch.ts';
import { mapDatasetLabel } from '../engine/clarifier/labels.ts';
import { normaliseStatus } from '../engine/stages/parse.ts';
import { exportSession } from '../export/native.ts';
import { importText } from '../import/index.ts';
import { attachAnnotationSets } from '../model/annotations.ts';
import type { Run } from '../model/types.ts';
import { attachedSetCount, runsOfFile, useLibrary, type LoadedFile } from './library.ts';
import { EMPTY_SNAPSHOT, openLibraryDb, readLibrary, startLibraryPersistence, usePersistence, writeChanges } from './library-db.ts';
import { makeAnnotation, makeRun } from '../testing/test-runs.ts';
import { parseLocation } from './url.ts';
import { emptyRecord } from '../model/record.ts';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'] as const;

const PROTO_KEYS = Reflect.ownKeys(Object.prototype);
const PROTO_VALUES = PROTO_KEYS.map((k) => Object.getOwnPropertyDescriptor(Object.prototype, k));
afterEach(() => {
  // Nothing written into Object.prototype, nothing replaced.
  expect(Reflect.ownKeys(Object.prototype)).toEqual(PROTO_KEYS);
  expect(PROTO_KEYS.map((k) => Object.getOwnPropertyDescriptor(Object.prototype, k))).toEqual(PROTO_VALUES);
  expect(({} as Record<string, unknown>).done).toBeUndefined();
});

let dbCount = 0;
const freshName = () => `hostile-ids-${dbCount++}`;
const resetLibrary = () => useLibrary.setState({ hydrated: false, files: [], runs: emptyRecord(), llmCalls: emptyRecord(), failures: [] });
const loaded = (file: string, runs: Run[], extra: Partial<LoadedFile> = {}): LoadedFile => ({ file, format: 'native', formatLabel: 'Native', runs, warnings: [], ...extra });

describe('importers keep hostile names as data', () => {
  for (const name of NAMES) {
    it(`TRAIL span tree with trace id ${name}`, () => {
      const doc = {
        trace_id: name,
        spans: [{ span_id: 'a1', span_name: 'main', timestamp: '2025-01-01T00:00:00Z', duration: 'PT1S', span_attributes: { 'openinference.span.kind': 'AGENT' }, child_spans: [] }],
      };
      const imported = importText('trace.json', JSON.stringify(doc));
      expect(imported.format).toBe('span-tree');
      expect(imported.runs.map((r) => r.id)).toEqual([name]);
    });

    it(`Langfuse trace, agent, tool and score named ${name}`, () => {
      const obs = (id: string, type: string, parent: string | null, extra: Record<string, unknown>) => ({ id, traceId: name, type, parentObservationId: parent, startTime: '2025-01-01T00:00:01.000Z', ...extra });
      const doc = {
        trace: { id: name, name: 'demo', input: 'task', scores: [{ id: 's1', name, value: 0, source: 'ANNOTATION', observationId: 't' }] },
        observations: [obs('m', 'AGENT', null, { name, input: 'task', output: 'done' }), obs('t', 'TOOL', 'm', { name, input: { q: 1 }, output: 'ok' })],
      };
      const imported = importText('trace.json', JSON.stringify(doc));
      expect(imported.format).toBe('langfuse');
      const run = imported.runs[0];
      expect(run.id).toBe(name);
      expect(run.agents.map((a) => a.name)).toContain(name);
      expect(run.steps.find((s) => s.spanId === 't')).toMatchObject({ kind: 'tool', name });
    });

    it(`native session with a run, agent and tool call named ${name}`, () => {
      const run = makeRun(name, { agents: [{ id: name, name }], tags: { arm: name } });
      run.steps[0] = { ...run.steps[0], agentId: name, toolCalls: [{ id: 'c1', name, arguments: '{}' }] };
      const imported = importText('s.session.json', exportSession({ runs: [run], llmCalls: [] }));
      expect(imported.format).toBe('native');
      expect(imported.runs.map((r) => r.id)).toEqual([name]);
      expect(imported.runs[0].agents).toEqual([{ id: name, name }]);
      expect(imported.runs[0].steps[0].toolCalls?.[0].name).toBe(name);
    });

    it(`chat log with a speaker and an unknown field named ${name}`, () => {
      const text = `{"question":"Add 2 and 2.","history":[{"role":"user","name":${JSON.stringify(name)},"content":"4"}],${JSON.stringify(name)}:{"x":1}}`;
      const imported = importText('log.json', text);
      expect(imported.format).toBe('chat-log');
      const run = imported.runs[0];
      expect(run.agents.map((a) => a.id)).toContain(name);
      expect(Object.hasOwn(run.raw ?? {}, name)).toBe(true);
      expect(run.raw?.[name]).toEqual({ x: 1 });
    });
  }
});

describe('links', () => {
  for (const name of NAMES) {
    it(`?run=${name} and a parameter called ${name} are plain values`, () => {
      expect(parseLocation(`?run=${name}`)).toMatchObject({ view: 'run' });
      expect(parseLocation(`?run=${name}`).params.run).toBe(name);
      const compare = parseLocation(`?view=compare&a=${name}&b=valueOf&${name}=x`);
      expect(compare.view).toBe('compare');
      expect(compare.params.a).toBe(name);
      expect(Object.hasOwn(compare.params, name)).toBe(true);
      expect(compare.params[name]).toBe('x');
      // Parameters not in the link are absent, whatever their name.
      expect(parseLocation('?view=library').params[name]).toBeUndefined();
    });
  }
});

describe('library store', () => {
  it('stores, finds, replaces and removes runs with every hostile id', () => {
    resetLibrary();
    const file = useLibrary.getState().addLoaded(loaded('a.json', NAMES.map((n) => makeRun(n))));
    let { runs } = useLibrary.getState();
    expect(Object.keys(runs).sort()).toEqual([...NAMES].sort());
    for (const n of NAMES) expect(runs[n].id).toBe(n);
    expect(runsOfFile(file, runs).map((r) => r.id)).toEqual([...NAMES]);

    useLibrary.getState().updateRun({ ...runs.__proto__, title: 'renamed' });
    runs = useLibrary.getState().runs;
    expect(runs.__proto__.title).toBe('renamed');
    expect(Object.keys(runs)).toHaveLength(NAMES.length);

    useLibrary.getState().removeFile(file.id);
    runs = useLibrary.getState().runs;
    expect(Object.keys(runs)).toEqual([]);
    for (const n of NAMES) expect(runs[n]).toBeUndefined();
  });

  it('finds no run for an id that is only a name on Object.prototype', () => {
    resetLibrary();
    const file = useLibrary.getState().addLoaded(loaded('a.json', [makeRun('r1')]));
    const runs = useLibrary.getState().runs;
    for (const n of NAMES) expect(runs[n]).toBeUndefined();
    expect(runsOfFile({ ...file, runIds: [...NAMES, 'r1'] }, runs).map((r) => r.id)).toEqual(['r1']);
    useLibrary.getState().hydrate({ files: [], runs: emptyRecord() });
    for (const n of NAMES) expect(useLibrary.getState().runs[n]).toBeUndefined();
  });

  it('an annotation file naming an absent run `constructor` attaches to nothing and says so', () => {
    resetLibrary();
    useLibrary.getState().addLoaded(loaded('runs.json', [makeRun('r1')]));
    const sets = NAMES.map((n) => ({ runId: n, annotations: [makeAnnotation(`a-${n}`)] }));
    const annotationFile = useLibrary.getState().addLoaded({ ...loaded('labels.json', []), annotationSets: sets });
    expect(attachedSetCount(annotationFile, useLibrary.getState().runs)).toBe(0);
    expect(useLibrary.getState().runs.r1.annotations).toEqual([]);
    // Opening those runs later attaches the labels, one set each.
    useLibrary.getState().addLoaded(loaded('late.json', NAMES.map((n) => makeRun(n))));
    const runs = useLibrary.getState().runs;
    for (const n of NAMES) expect(runs[n].annotations.map((a) => a.id)).toEqual([`a-${n}`]);
    expect(attachedSetCount(annotationFile, runs)).toBe(NAMES.length);
  });

  it('attachAnnotationSets (the import worker) leaves sets naming absent hostile ids unattached', () => {
    const runs = [makeRun('r1')];
    const sets = NAMES.map((n) => ({ runId: n, annotations: [makeAnnotation(`a-${n}`)] }));
    expect(attachAnnotationSets(runs, sets)).toEqual(sets);
    const named = NAMES.map((n) => makeRun(n));
    expect(attachAnnotationSets(named, sets)).toEqual([]);
    for (const r of named) expect(r.annotations).toHaveLength(1);
  });
});

describe('library database', () => {
  it('writes and reads back runs with every hostile id', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const runs = emptyRecord<Run>();
    for (const n of NAMES) runs[n] = makeRun(n);
    const file = { id: 'f1', name: 'f.json', format: 'native', formatLabel: 'x', runIds: [...NAMES], addedAt: 1, simulated: false, warnings: [] };
    expect(await writeChanges(db, EMPTY_SNAPSHOT, { files: [file], runs, llmCalls: emptyRecord() })).toBe(1 + NAMES.length);
    const { library, quarantined } = await readLibrary(db);
    expect(quarantined).toEqual([]);
    expect(Object.keys(library.runs).sort()).toEqual([...NAMES].sort());
    expect(library.files[0].runIds).toEqual([...NAMES]);
    db.close();
  });

  it('a file listing runs that were never stored (the old bug) reads back without them, never as Object members', async () => {
    const db = await openLibraryDb({ name: freshName() });
    const file = { id: 'f1', name: 'f.json', format: 'native', formatLabel: 'x', runIds: ['r1', ...NAMES], addedAt: 1, simulated: false, warnings: [] };
    const runs = emptyRecord<Run>();
    runs.r1 = makeRun('r1');
    await writeChanges(db, EMPTY_SNAPSHOT, { files: [file], runs, llmCalls: emptyRecord() });
    const { library } = await readLibrary(db);
    expect(library.files[0].runIds).toEqual(['r1']);
    for (const n of NAMES) expect(library.runs[n]).toBeUndefined();
    db.close();
  });

  it('a run with id __proto__ imported in one session is in the library after a reload', async () => {
    const name = freshName();
    resetLibrary();
    usePersistence.setState({ status: 'loading', problem: undefined, writes: 0 });
    const first = await startLibraryPersistence({ name, debounceMs: 0 });
    useLibrary.getState().addLoaded(loaded('hostile.json', NAMES.map((n) => makeRun(n))));
    await first.flush();
    first.stop();

    resetLibrary();
    const second = await startLibraryPersistence({ name, debounceMs: 0 });
    const state = useLibrary.getState();
    expect(state.hydrated).toBe(true);
    expect(state.failures).toEqual([]);
    expect(state.files.map((f) => f.runIds)).toEqual([[...NAMES]]);
    expect(runsOfFile(state.files[0], state.runs).map((r) => r.id)).toEqual([...NAMES]);
    // Removing the file deletes every record, the hostile ones included.
    state.removeFile(state.files[0].id);
    await second.flush();
    second.stop();
    const db = await openLibraryDb({ name });
    expect(await db.getAllKeys('runs')).toEqual([]);
    db.close();
  });
});

describe('batch journal arms and lookup tables', () => {
  it('summarises arms with hostile names without touching Object.prototype', () => {
    const items: BatchItem[] = NAMES.map((arm, i) => ({ key: `t${i}:${arm}`, taskId: `t${i}`, arm: arm as BatchItem['arm'], status: 'done', score: 1, tokens: 5, attempts: 1 }));
    const state = { spec: { id: 'b', tasks: [], arms: [] }, items, status: 'complete', tokensUsed: 0, updatedAt: 0 } as unknown as BatchState;
    const summary = summarizeBatch(state);
    expect(Object.keys(summary.perArm).sort()).toEqual([...NAMES].sort());
    for (const n of NAMES) expect(summary.perArm[n]).toEqual({ done: 1, scored: 1, correct: 1, tokens: 5 });
    expect(sameItem(items[0], { ...items[0] })).toBe(true);
  });

  it('words read from answers and labels are not found on Object.prototype', () => {
    for (const n of NAMES) {
      expect(normaliseStatus(n)).toBeUndefined();
      expect(mapDatasetLabel({ taxonomy: 'TRAIL', code: n })).toHaveProperty('why');
      expect(mapDatasetLabel({ taxonomy: 'AgentRx', code: n })).toHaveProperty('why');
    }
  });
});
