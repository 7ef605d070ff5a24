// The current indicator pool in IndexedDB, so it is still there after a reload. The database and its embeddings
// cache are declared in src/llm/embedding-cache.ts (the workers use the cache without the store); this module keeps
// the `pools` store and passes the cache on to the page (the pool browser shows whether embeddings are cached).
import type { IndicatorPool } from '../model/engine-params.ts';
import { hasIndexedDb, openPoolDb } from '../llm/embedding-cache.ts';

export { idbEmbeddingCache, POOL_DB_NAME } from '../llm/embedding-cache.ts';

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
