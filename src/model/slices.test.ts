import { describe, expect, it } from 'vitest';
import { runInSlices } from './slices.ts';

describe('runInSlices', () => {
  it('runs the work in several tasks within the budget, reporting progress, and stops when cancelled', async () => {
    function* work() {
      for (let i = 0; i < 10; i++) {
        const until = performance.now() + 3;
        while (performance.now() < until);
        yield i / 10;
      }
      return 'done';
    }
    const progress: number[] = [];
    expect(await runInSlices(work(), (p) => progress.push(p), () => false, 5)).toBe('done');
    expect(progress.length).toBeGreaterThanOrEqual(4);
    let calls = 0;
    expect(await runInSlices(work(), () => calls++, () => true, 5)).toBeUndefined();
    expect(calls).toBe(1);
  });
});
