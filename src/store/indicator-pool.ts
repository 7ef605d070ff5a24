// The indicator pool the studio works with (loaded from a file by the user, edited in the pool browser), kept in
// IndexedDB so it is still there after a reload. Edits replace the indicators array, which changes the pool's text
// hash and so invalidates cached embeddings of changed trigger conditions automatically.
import { create } from 'zustand';
import type { Indicator, IndicatorPool } from '../model/engine-params.ts';
import { loadStoredPool, saveStoredPool } from './pool-db.ts';

interface PoolStore {
  pool?: IndicatorPool;
  hydrated: boolean;
  /** A write to IndexedDB failed (the pool still holds for this session). */
  storeError?: string;
  setPool(pool: IndicatorPool | undefined): void;
  update(index: number, indicator: Indicator): void;
  add(indicator: Indicator): void;
  remove(index: number): void;
}

export const usePool = create<PoolStore>((set, get) => {
  const persist = (pool: IndicatorPool | undefined) => {
    saveStoredPool(pool).then(
      () => set({ storeError: undefined }),
      (e: unknown) => set({ storeError: e instanceof Error ? e.message : String(e) }),
    );
  };
  const change = (indicators: Indicator[]) => {
    const pool = get().pool;
    if (!pool) return;
    const next = { ...pool, indicators };
    set({ pool: next });
    persist(next);
  };
  return {
    hydrated: false,
    setPool(pool) {
      set({ pool });
      persist(pool);
    },
    update(index, indicator) {
      const list = [...(get().pool?.indicators ?? [])];
      list[index] = indicator;
      change(list);
    },
    add(indicator) {
      change([...(get().pool?.indicators ?? []), indicator]);
    },
    remove(index) {
      change((get().pool?.indicators ?? []).filter((_, i) => i !== index));
    },
  };
});

if (typeof window !== 'undefined') {
  loadStoredPool().then(
    (pool) => usePool.setState((s) => ({ hydrated: true, pool: s.pool ?? pool })),
    (e: unknown) => usePool.setState({ hydrated: true, storeError: e instanceof Error ? e.message : String(e) }),
  );
}
