import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { isBatchState, newBatch } from '../engine/runner/batch.ts';
import { defaultTeam } from '../engine/runner/runner.ts';
import { deleteBatch, loadBatches, saveBatch } from './batch-db.ts';

describe('batch-db', () => {
  it('stores, updates, lists newest first and deletes batch states', async () => {
    const spec = (id: string, createdAt: number) => ({
      id, name: id, dataset: 'd', tasks: ['1', '2'].map((t) => ({ id: t, question: 'q', answer: '1', domain: 'math' as const })), arms: ['baseline' as const, 'supervised' as const],
      team: defaultTeam('math'), concurrency: 1, tokenBudget: 0, supervisor: { tauStep: 4, tauLoop: 3, tauLen: 3000 }, createdAt,
    });
    const a = newBatch(spec('a', 1));
    await saveBatch(a);
    await saveBatch(newBatch(spec('b', 2)));
    // States arrive as copies (from the worker): only the item that changed differs.
    await saveBatch({ ...structuredClone(a), status: 'running', tokensUsed: 12, items: a.items.map((i, n) => (n === 1 ? { ...i, status: 'done' as const, runId: 'r', score: 1 } : { ...i })) });
    const { batches, problems } = await loadBatches(isBatchState);
    expect(problems).toEqual([]);
    expect(batches.map((b) => b.spec.id)).toEqual(['b', 'a']);
    expect(batches[1]).toMatchObject({ status: 'running', tokensUsed: 12 });
    expect(batches[1].items.map((i) => `${i.key}=${i.status}`)).toEqual(['1:baseline=pending', '1:supervised=done', '2:baseline=pending', '2:supervised=pending']);
    expect(batches[1].items[1]).toMatchObject({ runId: 'r', score: 1 });
    await deleteBatch('b');
    expect((await loadBatches(isBatchState)).batches.map((b) => b.spec.id)).toEqual(['a']);
  });
});
