import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { newBatch } from '../engine/runner/batch.ts';
import { defaultTeam } from '../engine/runner/runner.ts';
import { deleteBatch, loadBatches, saveBatch } from './batch-db.ts';

describe('batch-db', () => {
  it('stores, updates, lists newest first and deletes batch states', async () => {
    const spec = (id: string, createdAt: number) => ({
      id, name: id, dataset: 'd', tasks: [{ id: '1', question: 'q', answer: '1', domain: 'math' as const }], arms: ['baseline' as const],
      team: defaultTeam('math'), concurrency: 1, tokenBudget: 0, supervisor: { tauStep: 4, tauLoop: 3, tauLen: 3000 }, createdAt,
    });
    const a = newBatch(spec('a', 1));
    await saveBatch(a);
    await saveBatch(newBatch(spec('b', 2)));
    await saveBatch({ ...a, items: a.items.map((i) => ({ ...i, status: 'done' as const })) });
    const { batches, problems } = await loadBatches();
    expect(problems).toEqual([]);
    expect(batches.map((b) => b.spec.id)).toEqual(['b', 'a']);
    expect(batches[1].items[0].status).toBe('done');
    await deleteBatch('b');
    expect((await loadBatches()).batches.map((b) => b.spec.id)).toEqual(['a']);
  });
});
