import { describe, expect, it } from 'vitest';
import { poolCost, reusedPool, type PreparedPool } from './gate.ts';

describe('a prepared pool used again', () => {
  it('reports its one-time embedding as served from cache, with nothing sent, and leaves the first use’s figures alone', () => {
    const first: PreparedPool = { name: 'p', indicators: [], retrieval: 'embedding', vectors: [[1]], embedModel: 'e', fromCache: false, usage: { input: 90, output: 0, total: 90 }, embedRequests: 2 };
    expect(poolCost(first)).toMatchObject({ calls: 2, tokens: { total: 90 }, cached: false });
    const again = reusedPool(first);
    expect(poolCost(again)).toMatchObject({ calls: 0, tokens: { input: 0, output: 0, total: 0 }, cached: true });
    expect(again.vectors).toBe(first.vectors);
    expect(poolCost(first)).toMatchObject({ calls: 2, tokens: { total: 90 }, cached: false });
    // BM25 has no one-time cost either way.
    const bm25: PreparedPool = { name: 'p', indicators: [], retrieval: 'bm25' };
    expect(poolCost(reusedPool(bm25))).toBeNull();
  });
});
