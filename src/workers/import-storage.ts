// The import worker's write of the runs it imported into the library's IndexedDB database (ADR 0020): the page has
// opened and migrated the database and names it and its version; the worker writes each run without its source spans
// into `runs` and the spans (step spans compacted, as in a session file) into `runSpans`, in one transaction per file.
// Serialising a large run for IndexedDB takes hundreds of milliseconds: here it costs the page nothing.
import { openDB, type IDBPDatabase } from 'idb';
import { compactRun } from '../model/session-spans.ts';
import type { Run, RunSpan } from '../model/types.ts';

/** The library database as the page opened it (store/library-db.ts owns its schema and migrations). */
export interface RunStorage {
  name: string;
  version: number;
}

let open: { key: string; db: Promise<IDBPDatabase> } | undefined;

function database(target: RunStorage): Promise<IDBPDatabase> {
  const key = `${target.name}@${target.version}`;
  if (open?.key !== key) {
    let upgraded = false;
    const db = openDB(target.name, target.version, {
      // The page migrates; a database that would need it here (deleted meanwhile, or newer) is not this worker's to shape.
      upgrade(_db, _old, _new, tx) {
        upgraded = true;
        tx.done.catch(() => {}); // the open request reports the failure
        tx.abort();
      },
      blocking() {
        void db.then((d) => d.close());
        open = undefined;
      },
    }).catch((e: unknown) => {
      open = undefined;
      throw upgraded ? new Error(`the library database ${target.name} is not at version ${target.version}`) : e;
    });
    open = { key, db };
  }
  return open.db;
}

/** Spans per message when they go back to the page: each slice is a short task to receive and restore (5,000 made tasks of ~100 ms on a loaded 2-core machine). */
export const SPAN_SLICE = 2000;

/**
 * Read a run's stored spans here (deserialising them costs the page nothing) and send them in slices, posted without
 * waiting for each to be taken. Resolves to how many were sent; 0 when none are stored.
 */
export async function readSpans(target: RunStorage, runId: string, send: (slice: RunSpan[]) => Promise<void>): Promise<number> {
  const db = await database(target);
  const spans = (await db.get('runSpans', runId)) as RunSpan[] | undefined;
  if (!spans) return 0;
  const sent: Promise<void>[] = [];
  for (let at = 0; at < spans.length; at += SPAN_SLICE) sent.push(send(spans.slice(at, at + SPAN_SLICE)));
  await Promise.all(sent);
  return spans.length;
}

/** Write these runs (spans apart). Resolves when the transaction has committed. */
export async function storeRuns(target: RunStorage, runs: readonly Run[]): Promise<void> {
  if (runs.length === 0) return;
  const db = await database(target);
  const tx = db.transaction(['runs', 'runSpans'], 'readwrite');
  const writes: Promise<unknown>[] = [];
  for (const run of runs) {
    const { spans, ...slim } = compactRun(run);
    writes.push(tx.objectStore('runs').put(slim));
    if (spans !== undefined) writes.push(tx.objectStore('runSpans').put(spans, run.id));
    else writes.push(tx.objectStore('runSpans').delete(run.id));
  }
  await Promise.all([...writes, tx.done]);
}
