// Batch states in IndexedDB (their own database, beside the library's): every state a batch reports is written
// before it goes on, so a reload, a pause or a failing endpoint leaves a batch that resumes where it was.
// A stored record of the wrong shape is skipped and reported, never deleted.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { isBatchState, type BatchState } from '../engine/runner/batch.ts';

export const BATCH_DB_NAME = 'mas-replay-live';

interface BatchSchema extends DBSchema {
  batches: { key: string; value: BatchState };
}

let opened: Promise<IDBPDatabase<BatchSchema>> | undefined;

function db(name = BATCH_DB_NAME): Promise<IDBPDatabase<BatchSchema>> {
  opened ??= openDB<BatchSchema>(name, 1, {
    upgrade(d) {
      d.createObjectStore('batches', { keyPath: 'spec.id' });
    },
  });
  return opened;
}

export async function saveBatch(state: BatchState): Promise<void> {
  await (await db()).put('batches', state);
}

export async function loadBatches(): Promise<{ batches: BatchState[]; problems: string[] }> {
  const all: unknown[] = await (await db()).getAll('batches');
  const batches: BatchState[] = [];
  const problems: string[] = [];
  all.forEach((v, i) => (isBatchState(v) ? batches.push(v) : problems.push(`stored batch #${i + 1} is not a batch state; skipped`)));
  batches.sort((a, b) => b.spec.createdAt - a.spec.createdAt);
  return { batches, problems };
}

export async function deleteBatch(id: string): Promise<void> {
  await (await db()).delete('batches', id);
}
