// Where embeddings of texts are kept between sessions (SPEC §5.2: pool embeddings are computed once and cached with
// the pool's hash and the model name): the interface the engines ask, and its IndexedDB implementation. It sits with
// the endpoint client because embeddings are the endpoint's answers: the rectifier and live workers read and write the
// cache directly (embeddings never cross to the page), without importing the page's store.
// The database `mas-replay-indicator-pools` (ADR 0006, 0015) also holds the current pool: its `pools` store belongs to
// src/store/pool-db.ts, which opens the database through `openPoolDb` so the schema is declared once.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { IndicatorPool } from '../model/engine-params.ts';

/** Where embeddings of a pool are kept between sessions (IndexedDB in the studio, memory in the CLI and tests). */
export interface EmbeddingCache {
  get(key: string): Promise<number[][] | undefined>;
  put(key: string, vectors: number[][]): Promise<void>;
}

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

export interface PoolSchema extends DBSchema {
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
