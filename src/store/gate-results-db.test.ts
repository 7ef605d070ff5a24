import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { ENGINE_PASSES_DB_NAME, loadGateResults, saveGateResult, type GateRecordOutline } from './gate-results-db.ts';

const figures = (sent: number) => ({ summary: { edges: 8, sentToModel: sent }, cost: { oneTime: null, perRun: { calls: sent, tokens: { input: 10, output: 2, total: 12 }, estimated: false } } });
const any = (_r: GateRecordOutline): _r is GateRecordOutline => true;

describe('clarifier gate results in IndexedDB', () => {
  it('keeps one record per run and gate setting, read back per run, whatever the run id spells', async () => {
    for (const runId of ['__proto__', 'constructor', 'run-1']) {
      await saveGateResult({ runId, gate: 'all', ...figures(8) });
      await saveGateResult({ runId, gate: 'flagged', ...figures(1) });
    }
    await saveGateResult({ runId: 'run-1', gate: 'flagged', ...figures(2) });
    const proto = await loadGateResults('__proto__', any);
    expect(proto.map((r) => [r.runId, r.gate]).sort()).toEqual([
      ['__proto__', 'all'],
      ['__proto__', 'flagged'],
    ]);
    const run1 = await loadGateResults('run-1', any);
    expect(run1).toHaveLength(2);
    expect(run1.find((r) => r.gate === 'flagged')?.summary).toEqual({ edges: 8, sentToModel: 2 });
    expect(await loadGateResults('run-2', any)).toEqual([]);
  });

  it('skips a stored record of the wrong shape and one the caller’s check refuses', async () => {
    const d = await openDB(ENGINE_PASSES_DB_NAME, 1);
    await d.put('clarifierGates', { runId: 'damaged', gate: 'all', summary: 'not an object', cost: {} });
    d.close();
    await saveGateResult({ runId: 'damaged', gate: 'flagged', ...figures(1) });
    await saveGateResult({ runId: 'damaged', gate: 'flagged+sample:0.2', summary: { edges: 'eight' }, cost: {} });
    const ok = (r: GateRecordOutline): r is GateRecordOutline => typeof (r.summary as { edges?: unknown }).edges === 'number';
    expect((await loadGateResults('damaged', ok)).map((r) => r.gate)).toEqual(['flagged']);
  });
});
