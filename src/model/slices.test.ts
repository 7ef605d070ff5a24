import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextTask, runInSlices } from './slices.ts';

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

describe('nextTask', () => {
  it('resolves calls in the order made, each in a task of its own, and again after the queue has emptied', async () => {
    const order: string[] = [];
    const calls = ['a', 'b', 'c'].map((name) =>
      nextTask().then(() => {
        order.push(name);
        // A microtask queued here runs before the next call resolves: the next one is another task.
        queueMicrotask(() => order.push(`${name}'`));
      }),
    );
    await Promise.all(calls);
    expect(order).toEqual(['a', "a'", 'b', "b'", 'c', "c'"]);
    // Many at once, then one more once none waits (the queue starts over).
    let done = 0;
    await Promise.all(Array.from({ length: 1000 }, () => nextTask().then(() => done++)));
    expect(done).toBe(1000);
    await nextTask();
  });

  it('does not keep a Node process alive once nothing waits on it', () => {
    // A child Node process that yields a few times and then has nothing left to do exits by itself.
    const script = "import('./src/model/slices.ts').then(async ({ nextTask }) => { for (let i = 0; i < 3; i++) await nextTask(); console.log('yielded'); })";
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: resolve(import.meta.dirname, '../..'), encoding: 'utf8', timeout: 20_000 });
    expect(child.error).toBeUndefined();
    expect(child.stdout).toContain('yielded');
    expect(child.status).toBe(0);
  });
});
