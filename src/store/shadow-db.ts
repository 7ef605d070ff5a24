// The corpus's shadow-supervised estimates in IndexedDB, so replaying the supervisor over a corpus is not lost on a
// reload (issue: corpus files and their derived statistics persist). A database of its own, apart from the library's:
// the estimates are derived data that can always be made again, and a change to them never needs a library migration.
// Each estimate is stored with a stamp of the run it was made from; an estimate whose run has since changed (new
// interventions from the engines panel, a re-import) is not served.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { emptyRecord, ownValue } from '../model/record.ts';
import type { ShadowEstimate } from '../model/statistics.ts';
import type { Run } from '../model/types.ts';

export const SHADOW_DB_NAME = 'mas-replay-corpus';

interface StoredEstimate {
  runId: string;
  /** `runStamp` of the run when the estimate was made. */
  stamp: string;
  preset: string;
  estimate: ShadowEstimate;
}

interface ShadowSchema extends DBSchema {
  shadow: { key: string; value: StoredEstimate };
}

/** What a shadow estimate depends on: the run's steps and the supervisor interventions it already carries. */
export function runStamp(run: Run): string {
  const last = run.interventions.at(-1);
  return `${run.steps.length}:${run.steps.at(-1)?.id ?? ''}:${run.interventions.length}:${last?.id ?? ''}`;
}

const connections = new Map<string, Promise<IDBPDatabase<ShadowSchema> | undefined>>();

function db(name: string): Promise<IDBPDatabase<ShadowSchema> | undefined> {
  if (typeof indexedDB === 'undefined') return Promise.resolve(undefined);
  let connection = connections.get(name);
  if (!connection) {
    connection = openDB<ShadowSchema>(name, 1, {
      upgrade(database) {
        database.createObjectStore('shadow', { keyPath: 'runId' });
      },
    }).catch(() => undefined);
    connections.set(name, connection);
  }
  return connection;
}

/** For tests: close the open connections. */
export function closeShadowDb(): void {
  for (const connection of connections.values()) void connection.then((d) => d?.close());
  connections.clear();
}

export async function saveEstimates(runs: Record<string, Run>, estimates: ShadowEstimate[], preset: string, name = SHADOW_DB_NAME): Promise<void> {
  const database = await db(name);
  if (!database) return;
  const tx = database.transaction('shadow', 'readwrite');
  for (const estimate of estimates) {
    const run = ownValue(runs, estimate.runId);
    if (run) void tx.store.put({ runId: estimate.runId, stamp: runStamp(run), preset, estimate });
  }
  await tx.done;
}

/** The stored estimates that still fit their runs, by run id; runs no longer in the library are skipped. */
export async function loadEstimates(runs: Record<string, Run>, preset: string, name = SHADOW_DB_NAME): Promise<Record<string, ShadowEstimate>> {
  const database = await db(name);
  if (!database) return emptyRecord();
  const out = emptyRecord<ShadowEstimate>();
  for (const stored of await database.getAll('shadow')) {
    const run = ownValue(runs, stored.runId);
    if (run && stored.preset === preset && stored.stamp === runStamp(run)) out[stored.runId] = stored.estimate;
  }
  return out;
}

export async function clearEstimates(name = SHADOW_DB_NAME): Promise<void> {
  const database = await db(name);
  await database?.clear('shadow');
}
