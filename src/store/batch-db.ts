// Batch states in IndexedDB (their own database, beside the library's): every state a batch reports is written
// before it goes on, so a reload, a pause or a failing endpoint leaves a batch that resumes where it was.
// A batch is stored as its spec (written once), a small header (status, tokens, message) and one record per item;
// a save writes the header and only the items that changed, so a batch of thousands of tasks costs little per step.
// A stored record of the wrong shape is skipped and reported, never deleted.
// The store knows only the outline of a batch it needs to store one (below); the runner's BatchState
// (src/engine/runner/batch.ts) has that outline, and the caller that reads batches back says what a whole one is.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { sameFlatRecord } from '../model/record.ts';

export const BATCH_DB_NAME = 'mas-replay-live';

/** One item of a batch: a task in one arm, keyed `<task id>:<arm>`. Its other fields are flat values. */
export interface BatchItemOutline {
  key: string;
}

export interface BatchSpecOutline {
  id: string;
  tasks: { id: string }[];
  arms: string[];
  createdAt: number;
}

/** What the store needs of a batch state. */
export interface BatchOutline<Spec extends BatchSpecOutline = BatchSpecOutline, Item extends BatchItemOutline = BatchItemOutline> {
  spec: Spec;
  items: Item[];
  status: string;
  tokensUsed: number;
  message?: string;
  updatedAt: number;
}

type Header = Pick<BatchOutline, 'status' | 'tokensUsed' | 'message' | 'updatedAt'> & { id: string };
type StoredItem = BatchItemOutline & { batchId: string };
type BatchItem = BatchItemOutline;

interface BatchSchema extends DBSchema {
  specs: { key: string; value: BatchSpecOutline };
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

export async function saveBatch(state: BatchOutline): Promise<void> {
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
    if (sameFlatRecord(known.get(item.key), item)) continue;
    changed.push(item);
    ops.push(tx.objectStore('items').put({ ...item, batchId: id }));
  }
  await Promise.all([...ops, tx.done]);
  for (const item of changed) known.set(item.key, item);
  written.set(id, known);
}

/** The stored batches, newest first; `isBatch` says whether a record read back is a whole batch of the caller's kind. */
export async function loadBatches<S extends BatchOutline>(isBatch: (value: unknown) => value is S): Promise<{ batches: S[]; problems: string[] }> {
  const d = await db();
  const specs = await d.getAll('specs');
  const batches: S[] = [];
  const problems: string[] = [];
  for (const spec of specs) {
    const header = await d.get('headers', spec.id);
    const stored = await d.getAllFromIndex('items', 'batchId', spec.id);
    const byKey = new Map(stored.map(({ batchId: _b, ...item }) => (void _b, [item.key, item as BatchItem])));
    // Items in the batch's own order: task by task, arm by arm.
    const items = spec.tasks?.flatMap((t) => (spec.arms ?? []).flatMap((arm) => byKey.get(`${t.id}:${arm}`) ?? [])) ?? [];
    const state = { spec, items, status: header?.status, tokensUsed: header?.tokensUsed ?? 0, message: header?.message, updatedAt: header?.updatedAt ?? spec.createdAt };
    if (!header || !isBatch(state) || items.length !== byKey.size) {
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
