// The clarifier's figures per gate setting (issue 21: edges sent, types asked, one-shot rate, extra tokens and their
// share of the run's), one record per run and gate setting, in a database of its own (ADR 0015): they are measurements
// of passes, not the user's work, so they may be dropped whole and never run the library's migrations. A stored record
// of the wrong shape is skipped. Run ids come from files: they are only ever IndexedDB keys and compared as strings.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

export const ENGINE_PASSES_DB_NAME = 'mas-replay-engine-passes';

/** What the store needs of a gate result: the run, the gate setting's label, and the figures (stored as they are). */
export interface GateRecordOutline {
  runId: string;
  gate: string;
  summary: object;
  cost: object;
}

interface PassesSchema extends DBSchema {
  clarifierGates: { key: [string, string]; value: GateRecordOutline & { savedAt: number }; indexes: { runId: string } };
}

let opened: Promise<IDBPDatabase<PassesSchema>> | undefined;

function db(): Promise<IDBPDatabase<PassesSchema>> {
  opened ??= openDB<PassesSchema>(ENGINE_PASSES_DB_NAME, 1, {
    upgrade(d) {
      d.createObjectStore('clarifierGates', { keyPath: ['runId', 'gate'] }).createIndex('runId', 'runId');
    },
  });
  return opened;
}

const hasIndexedDb = () => typeof indexedDB !== 'undefined';

function isGateRecord(v: unknown): v is GateRecordOutline {
  const r = v as Partial<GateRecordOutline> | null;
  return !!r && typeof r === 'object' && typeof r.runId === 'string' && typeof r.gate === 'string' && !!r.summary && typeof r.summary === 'object' && !!r.cost && typeof r.cost === 'object';
}

/** Replaces the record of the same run and gate setting. */
export async function saveGateResult(r: GateRecordOutline): Promise<void> {
  if (!hasIndexedDb()) return;
  await (await db()).put('clarifierGates', { runId: r.runId, gate: r.gate, summary: r.summary, cost: r.cost, savedAt: Date.now() });
}

/** The stored records of one run, in no particular order. */
export async function loadGateResults<T extends GateRecordOutline>(runId: string, check: (r: GateRecordOutline) => r is T): Promise<T[]> {
  if (!hasIndexedDb()) return [];
  const all = await (await db()).getAllFromIndex('clarifierGates', 'runId', runId);
  const out: T[] = [];
  for (const rec of all) {
    if (!isGateRecord(rec)) continue;
    const r = { runId: rec.runId, gate: rec.gate, summary: rec.summary, cost: rec.cost };
    if (check(r)) out.push(r);
  }
  return out;
}
