// The journal of engine results not yet written: read from untrusted storage entry by entry, put back idempotently.
import { describe, expect, it } from 'vitest';
import { emptyRecord, recordOf } from '../model/record.ts';
import type { Intervention, LlmCallRecord } from '../model/types.ts';
import { makeRun } from '../testing/test-runs.ts';
import { applyJournal, JOURNAL_KEY, readJournal, stillUnsaved, writeJournal, type UnsavedResult } from './results-journal.ts';
import * as S from '../model/schema.ts';
import { memoryStorage } from '../testing/memory-storage.ts';

const iv = (id: string, action = 'pass@1'): Intervention => ({ id, engine: 'supervisor', stepId: 's0', action, reason: 'r', heuristic: false });
const call = (id: string): LlmCallRecord => ({ id, requestHash: 'h', model: 'm', request: {}, response: {} });
const store = (value: string | null) => memoryStorage(value === null ? [] : [[JOURNAL_KEY, value]]);

describe('readJournal', () => {
  it('is empty for nothing, bad JSON or a non-array, and skips each bad entry alone', () => {
    expect(readJournal(undefined, S)).toEqual([]);
    expect(readJournal(store(null), S)).toEqual([]);
    expect(readJournal(store('{oops'), S)).toEqual([]);
    expect(readJournal(store('{"kind":"call"}'), S)).toEqual([]);
    const good = { kind: 'intervention', runId: 'r', item: iv('a') };
    const entries = readJournal(store(JSON.stringify([good, { kind: 'run', runId: 'r', item: {} }, { kind: 'call', item: { id: 1 } }, null])), S);
    expect(entries).toEqual([good]);
  });

  it('checks each kind: a run id for results of a run, the record against its schema; keeps only the known fields', () => {
    const stage = { id: 'stage-1', index: 0, subtasks: [], layers: [], derivedBy: 'llm' };
    const entries = readJournal(
      store(
        JSON.stringify([
          { kind: 'stage', runId: 'r', item: stage, extra: 1 },
          { kind: 'stage', item: stage },
          { kind: 'intervention', runId: 7, item: iv('a') },
          { kind: 'intervention', runId: 'r', item: { ...iv('b'), stepId: 3 } },
          { kind: 'call', runId: 'ignored', item: call('c') },
          [{ kind: 'call', item: call('d') }],
        ]),
      ),
      S,
    );
    expect(entries.map((e) => [e.kind, e.item.id])).toEqual([
      ['stage', 'stage-1'],
      ['call', 'c'],
    ]);
    expect(entries[0]).toEqual({ kind: 'stage', runId: 'r', item: expect.objectContaining({ id: 'stage-1' }) });
    expect(entries[1]).toEqual({ kind: 'call', item: call('c') });
  });

  it('survives a storage that refuses to write', () => {
    const refusing = memoryStorage([[JOURNAL_KEY, '[]']]);
    refusing.setItem = () => {
      throw new Error('QuotaExceededError');
    };
    refusing.removeItem = () => {
      throw new Error('no');
    };
    expect(() => writeJournal(refusing, [{ kind: 'call', item: call('c') }])).not.toThrow();
    expect(() => writeJournal(refusing, [])).not.toThrow();
  });

  it('round-trips through a storage', () => {
    const s = memoryStorage();
    const map = s.map;
    const entries: UnsavedResult[] = [{ kind: 'call', item: call('c') }];
    writeJournal(s, entries);
    expect(readJournal(s, S)).toEqual(entries);
    writeJournal(s, []);
    expect(map.has(JOURNAL_KEY)).toBe(false);
  });
});

describe('applyJournal and stillUnsaved', () => {
  it('puts each result back once, leaves equal ones alone, and drops results of absent runs; hostile run ids are plain keys', () => {
    const stored = { runs: recordOf({ r1: makeRun('r1', { interventions: [iv('same')] }) }), llmCalls: emptyRecord<LlmCallRecord>() };
    const entries: UnsavedResult[] = [
      { kind: 'intervention', runId: 'r1', item: iv('same') },
      { kind: 'intervention', runId: 'r1', item: iv('new') },
      { kind: 'intervention', runId: '__proto__', item: iv('x') },
      { kind: 'intervention', runId: 'constructor', item: iv('y') },
      { kind: 'call', item: call('c') },
    ];
    const { library, applied } = applyJournal(stored, entries);
    expect(applied.map((e) => (e.kind === 'call' ? e.item.id : e.item.id))).toEqual(['new', 'c']);
    expect(library.runs.r1.interventions.map((i) => i.id)).toEqual(['same', 'new']);
    expect(Object.keys(library.runs)).toEqual(['r1']);
    expect(stored.runs.r1.interventions).toHaveLength(1); // the stored records are not changed
    // Until written, both are guarded; once the written records hold the same objects, neither is.
    expect(stillUnsaved(applied, library, stored)).toEqual(applied);
    expect(stillUnsaved(applied, library, library)).toEqual([]);
    // A replaced result is no longer the library's: dropped.
    const replaced = { ...library, runs: recordOf(library.runs, { r1: makeRun('r1') }) };
    expect(stillUnsaved(applied, replaced, stored).map((e) => e.kind)).toEqual(['call']);
  });

  it('guards by identity over many results: a copy with the same id is not the result, in the library or the database', () => {
    const n = 20_000;
    const shown = Array.from({ length: n }, (_, i) => iv(`i${i}`));
    // The database holds the first half as the very objects, the rest as equal copies (written from another page).
    const stored = shown.map((x, i) => (i < n / 2 ? x : { ...x }));
    // The library replaced every 7th result with a fresh copy (a verdict changed, then changed back).
    const current = shown.map((x, i) => (i % 7 === 0 ? { ...x } : x));
    const stages = [{ id: 'st', index: 0, subtasks: [], layers: [], derivedBy: 'llm' as const }];
    const library = { runs: recordOf({ r1: makeRun('r1', { interventions: current, stages }) }), llmCalls: emptyRecord<LlmCallRecord>() };
    const written = { runs: recordOf({ r1: makeRun('r1', { interventions: stored }) }), llmCalls: emptyRecord<LlmCallRecord>() };
    const entries: UnsavedResult[] = [
      ...shown.filter((_, i) => i % 10 === 3 || i % 10 === 7 || i % 7 === 0).map((item): UnsavedResult => ({ kind: 'intervention', runId: 'r1', item })),
      { kind: 'stage', runId: 'r1', item: stages[0] },
      { kind: 'intervention', runId: 'gone', item: shown[1] },
    ];
    const at = new Map(shown.map((x, i) => [x, i]));
    const expected = entries.filter((e) => {
      if (e.kind !== 'intervention') return e.kind === 'stage';
      const i = at.get(e.item)!;
      return e.runId === 'r1' && i % 7 !== 0 && i >= n / 2;
    });
    expect(expected.length).toBeGreaterThan(n / 20);
    expect(stillUnsaved(entries, library, written)).toEqual(expected);
  });

  it('replaces an intervention whose stored version differs (a rectifier verdict changed after its write)', () => {
    const stored = { runs: recordOf({ r1: makeRun('r1', { interventions: [iv('a', 'pass@1')] }) }), llmCalls: emptyRecord<LlmCallRecord>() };
    const { library } = applyJournal(stored, [{ kind: 'intervention', runId: 'r1', item: iv('a', 'rejected') }]);
    expect(library.runs.r1.interventions.map((i) => i.action)).toEqual(['rejected']);
  });
});
