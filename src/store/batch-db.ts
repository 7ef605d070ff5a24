// Batch states in IndexedDB (their own database, beside the library's): every state a batch reports is written
// before it goes on, so a reload, a pause or a failing endpoint leaves a batch that resumes where it was.
// A batch is stored as its spec (written once), a small header (status, tokens, message) and one record per item;
// a save writes the header and only the items that changed, so a batch of thousands of tasks costs little per step.
// A stored record of the wrong shape is skipped and reported, never deleted.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { isBatchState, sameItem, type BatchItem, type BatchSpec, type BatchState } from '../engine/runner/batch.ts';

export const BATCH_DB_NAME = 'mas-replay-live';

type Header = Pick<BatchState, 'status' | 'tokensUsed' | 'message' | 'updatedAt'> & { id: string };
type StoredItem = BatchItem & { batchId: string };

interface BatchSchema extends DBSchema {
  specs: { key: string; value: BatchSpec };
  headers: { key: string; value: Header };
  items: { key: [string, string]; value: StoredItem; indexes: { batchId: string } };
}

let opened: Promise<IDBPDatabase<BatchSchema>> | undefined;

function db(): Promise<IDBPDatabase<BatchSchema>> {
  opened ??= openDB<BatchSchema>(BATCH_DB_NAME, 1, {
    upgrade(d) {
      d.createObjectStore('specs', { keyPath: 'id' });
      d.createObjectStore('headers', { keyPath: 'id' });
      d.createObjectStore('items', { keyPath: ['batchId', 'key'] }).createIndex('batchId', 'batchId');
    },
  });
  return opened;
}

/** What was last written per batch: items by key (compared field by field, since states arrive as copies). */
const written = new Map<string, Map<string, BatchItem>>();

export async function saveBatch(state: BatchState): Promise<void> {
  const id = state.spec.id;
  const d = await db();
  const tx = d.transaction(['specs', 'headers', 'items'], 'readwrite');
  let known = written.get(id);
  const ops: Promise<unknown>[] = [];
  if (!known) {
    known = new Map();
    ops.push(tx.objectStore('specs').put(state.spec));
  }
  ops.push(tx.objectStore('headers').put({ id, status: state.status, tokensUsed: state.tokensUsed, message: state.message, updatedAt: state.updatedAt }));
  const changed: BatchItem[] = [];
  for (const item of state.items) {
    if (sameItem(known.get(item.key), item)) continue;
    changed.push(item);
    ops.push(tx.objectStore('items').put({ ...item, batchId: id }));
  }
  await Promise.all([...ops, tx.done]);
  for (const item of changed) known.set(item.key, item);
  written.set(id, known);
}

export async function loadBatches(): Promise<{ batches: BatchState[]; problems: string[] }> {
  const d = await db();
  const specs = await d.getAll('specs');
  const batches: BatchState[] = [];
  const problems: string[] = [];
  for (const spec of specs) {
    const header = await d.get('headers', spec.id);
    const stored = await d.getAllFromIndex('items', 'batchId', spec.id);
    const byKey = new Map(stored.map(({ batchId: _b, ...item }) => (void _b, [item.key, item as BatchItem])));
    // Items in the batch's own order: task by task, arm by arm.
    const items = spec.tasks?.flatMap((t) => (spec.arms ?? []).flatMap((arm) => byKey.get(`${t.id}:${arm}`) ?? [])) ?? [];
    const state = { spec, items, status: header?.status, tokensUsed: header?.tokensUsed ?? 0, message: header?.message, updatedAt: header?.updatedAt ?? spec.createdAt };
    if (!header || !isBatchState(state) || items.length !== byKey.size) {
      problems.push(`stored batch ${spec.id ?? '?'} is incomplete or not a batch; skipped`);
      continue;
    }
    written.set(spec.id, new Map(items.map((i) => [i.key, i])));
    batches.push(state);
  }
  batches.sort((a, b) => b.spec.createdAt - a.spec.createdAt);
  return { batches, problems };
}

export async function deleteBatch(id: string): Promise<void> {
  const d = await db();
  const tx = d.transaction(['specs', 'headers', 'items'], 'readwrite');
  const keys = await tx.objectStore('items').index('batchId').getAllKeys(id);
  await Promise.all([tx.objectStore('specs').delete(id), tx.objectStore('headers').delete(id), ...keys.map((k) => tx.objectStore('items').delete(k)), tx.done]);
  written.delete(id);
}
