// The indicator pool and its embeddings in IndexedDB (SPEC §5.2: pool embeddings are computed once and cached with
// the pool's hash and the model name). A database of its own, so the library's database and its migrations are
// untouched. No DOM: the rectifier worker reads and writes the embeddings cache directly.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { EmbeddingCache, IndicatorPool } from '../engine/rectifier/index.ts';

export const POOL_DB_NAME = 'mas-replay-indicator-pools';

export interface StoredPool {
  id: 'current';
  pool: IndicatorPool;
  updatedAt: number;
}

export interface StoredEmbeddings {
  /** `kind|<texts hash>|<model>` (see embeddingKey). */
  key: string;
  /** Row-major, `count × dim`. */
  data: Float32Array;
  count: number;
  dim: number;
  createdAt: number;
}

interface PoolSchema extends DBSchema {
  pools: { key: string; value: StoredPool };
  embeddings: { key: string; value: StoredEmbeddings };
}

let dbPromise: Promise<IDBPDatabase<PoolSchema>> | undefined;

export function openPoolDb(): Promise<IDBPDatabase<PoolSchema>> {
  dbPromise ??= openDB<PoolSchema>(POOL_DB_NAME, 1, {
    upgrade(db) {
      db.createObjectStore('pools', { keyPath: 'id' });
      db.createObjectStore('embeddings', { keyPath: 'key' });
    },
  });
  return dbPromise;
}

export const hasIndexedDb = () => typeof indexedDB !== 'undefined';

export async function loadStoredPool(): Promise<IndicatorPool | undefined> {
  if (!hasIndexedDb()) return undefined;
  return (await (await openPoolDb()).get('pools', 'current'))?.pool;
}

export async function saveStoredPool(pool: IndicatorPool | undefined): Promise<void> {
  if (!hasIndexedDb()) return;
  const db = await openPoolDb();
  if (pool) await db.put('pools', { id: 'current', pool, updatedAt: Date.now() });
  else await db.delete('pools', 'current');
}

/** Float32 rows: a 2000 × 1024 pool is 8 MB instead of ~40 MB of JSON numbers. */
export const idbEmbeddingCache: EmbeddingCache & { has(key: string): Promise<boolean> } = {
  async get(key) {
    if (!hasIndexedDb()) return undefined;
    const rec = await (await openPoolDb()).get('embeddings', key);
    if (!rec) return undefined;
    const rows: number[][] = [];
    for (let i = 0; i < rec.count; i++) rows.push(Array.from(rec.data.subarray(i * rec.dim, (i + 1) * rec.dim)));
    return rows;
  },
  async put(key, vectors) {
    if (!hasIndexedDb()) return;
    const dim = vectors[0]?.length ?? 0;
    const data = new Float32Array(vectors.length * dim);
    vectors.forEach((v, i) => data.set(v, i * dim));
    await (await openPoolDb()).put('embeddings', { key, data, count: vectors.length, dim, createdAt: Date.now() });
  },
  async has(key) {
    if (!hasIndexedDb()) return false;
    return (await (await openPoolDb()).getKey('embeddings', key)) !== undefined;
  },
};
