import { describe, expect, it } from 'vitest';
import type { EnginePass, PassEvent } from '../engine/pass.ts';
import { withDefaults } from '../llm/settings.ts';
import { ITEMS_PER_POST, jobResult, pumpPass } from './pump.ts';
import { RunningJobs } from './running-jobs.ts';

type Ev = PassEvent<number, string> | { type: 'trigger' };

async function* pass(signal: AbortSignal, previous: string[]): EnginePass<Ev, { status: string; seen: number }> {
  let seen = 0;
  for (const p of previous) yield { type: 'item', item: p, resumed: true };
  for (let i = 0; i < 5; i++) {
    if (signal.aborted) return { status: 'cancelled', seen };
    yield { type: 'trigger' };
    yield { type: 'item', item: `r${i}`, resumed: false };
    seen++;
    yield { type: 'progress', progress: i + 1 };
  }
  return { status: 'complete', seen };
}

function recorder() {
  const log: string[] = [];
  return {
    log,
    events: {
      onProgress: (p: number) => void log.push(`progress ${p}`),
      onItem: (item: string, resumed: boolean) => void log.push(`${resumed ? 'kept' : 'new'} ${item}`),
      onCall: () => void log.push('call'),
    },
  };
}

describe('the worker pump', () => {
  it('posts progress and every result (resumed ones marked), passes over other events, and returns the result', async () => {
    const { log, events } = recorder();
    const result = await pumpPass(
      new RunningJobs(),
      1,
      { previous: [] },
      events,
      (client, signal) => {
        expect(client).toBeUndefined(); // no endpoint: the offline path
        return pass(signal, ['old']);
      },
      { progressEveryMs: 0 },
    );
    expect(result).toEqual({ status: 'complete', seen: 5 });
    expect(log.slice(0, 4)).toEqual(['kept old', 'new r0', 'progress 1', 'new r1']);
    expect(log.filter((l) => l.startsWith('new'))).toHaveLength(5);
  });

  it('stops at the next step when the page stops the job, with the partial result', async () => {
    const jobs = new RunningJobs();
    const { log, events } = recorder();
    events.onProgress = (p: number) => {
      log.push(`progress ${p}`);
      if (p === 2) jobs.stop(7);
    };
    const result = await pumpPass(jobs, 7, { previous: [] }, events, (_client, signal) => pass(signal, []), { progressEveryMs: 0 });
    expect(result).toEqual({ status: 'cancelled', seen: 2 });
  });

  it('posts progress at most once per interval, the latest, and the last report before the result', async () => {
    const { log, events } = recorder();
    // Five reports in one quick pass: the first goes at once, the others wait and only the latest (5) is posted.
    const result = await pumpPass(new RunningJobs(), 2, { previous: [] }, events, (_client, signal) => pass(signal, []), { progressEveryMs: 10_000 });
    expect(result).toEqual({ status: 'complete', seen: 5 });
    expect(log.filter((l) => l.startsWith('progress'))).toEqual(['progress 1', 'progress 5']);
    expect(log.at(-1)).toBe('progress 5');
    expect(log.filter((l) => l.startsWith('new'))).toHaveLength(5);
  });

  it('posts a waiting report when its interval ends, while the pass waits (an endpoint call)', async () => {
    const { log, events } = recorder();
    async function* slow(): EnginePass<Ev, string> {
      yield { type: 'progress', progress: 1 };
      yield { type: 'progress', progress: 2 };
      // Waits longer than the interval, as a pass waits for an endpoint's answer.
      await new Promise((r) => setTimeout(r, 120));
      expect(log).toEqual(['progress 1', 'progress 2']);
      return 'done';
    }
    expect(await pumpPass(new RunningJobs(), 3, { previous: [] }, events, () => slow(), { progressEveryMs: 30 })).toBe('done');
    expect(log).toEqual(['progress 1', 'progress 2']);
  });

  it("answers once the page has answered every callback (the page's callbacks are ports of their own)", async () => {
    const log: string[] = [];
    // As Comlink's proxies answer: later, each when the page's handler has run (here: after a timer, the last first).
    const answer = (what: string, ms: number) => new Promise<void>((r) => setTimeout(() => r(void log.push(what)), ms));
    const events = {
      onProgress: (p: number) => answer(`progress ${p}`, 5),
      onItem: (item: string) => answer(`item ${item}`, 40 - 5 * Number(item.slice(1))),
      onCall: () => undefined,
    };
    const result = await pumpPass(new RunningJobs(), 4, { previous: [] }, events as never, (_client, signal) => pass(signal, []), { progressEveryMs: 0 });
    expect(result).toEqual({ status: 'complete', seen: 5 });
    expect(log.filter((l) => l.startsWith('item')).sort()).toEqual(['item r0', 'item r1', 'item r2', 'item r3', 'item r4']);
    expect(log.filter((l) => l.startsWith('progress'))).toHaveLength(5);
  });

  it("gives the page the pass's result without the interventions it already posted one by one", () => {
    const result = { runId: 'r', status: 'complete', interventions: [{ id: 'a' }, { id: 'b' }], cost: { calls: 2 } };
    const lean = jobResult(result);
    expect(lean).toEqual({ runId: 'r', status: 'complete', cost: { calls: 2 } });
    expect('interventions' in lean).toBe(false);
    // The pass's own result is left as it was (the worker may still read it).
    expect(result.interventions).toHaveLength(2);
  });

  it('offline, gives a page that takes them in batches its results together: in order, at most ITEMS_PER_POST a post, each before the progress that counts it and all before the result', async () => {
    async function* many(): EnginePass<Ev, string> {
      yield { type: 'item', item: 'old', resumed: true };
      for (let i = 0; i < 150; i++) {
        yield { type: 'item', item: `r${i}`, resumed: false };
        yield { type: 'progress', progress: i + 1 };
      }
      return 'done';
    }
    const posts: { items: string[]; resumed: boolean[] }[] = [];
    const log: string[] = [];
    const events = {
      onProgress: (p: number) => void log.push(`progress ${p} after ${posts.reduce((n, b) => n + b.items.length, 0)}`),
      onItem: () => void log.push('one by one'),
      onItems: (items: string[], resumed: boolean[]) => void posts.push({ items, resumed }),
      onCall: () => {},
    };
    expect(await pumpPass(new RunningJobs(), 5, { previous: [] }, events, () => many(), { progressEveryMs: 0 })).toBe('done');
    expect(log).not.toContain('one by one');
    expect(posts.flatMap((b) => b.items)).toEqual(['old', ...Array.from({ length: 150 }, (_, i) => `r${i}`)]);
    expect(posts[0].resumed.slice(0, 2)).toEqual([true, false]);
    expect(posts.every((b) => b.items.length <= ITEMS_PER_POST && b.items.length === b.resumed.length)).toBe(true);
    // Each progress report comes after the results it counts (the resumed one besides).
    for (const line of log) {
      const [, done, posted] = /progress (\d+) after (\d+)/.exec(line)!;
      expect(Number(posted)).toBeGreaterThanOrEqual(Number(done) + 1);
    }
  });

  it('with an endpoint, posts each result at once even to a page that takes batches', async () => {
    const posted: string[] = [];
    const events = {
      onProgress: () => {},
      onItem: (item: string) => void posted.push(item),
      onItems: () => void posted.push('batch'),
      onCall: () => {},
    };
    // Settings only: the pass below makes no call (the client exists, so the pass is not offline).
    const llm = withDefaults({ baseUrl: 'http://127.0.0.1:9/v1', models: { supervisor: 'm' } });
    await pumpPass(new RunningJobs(), 6, { llm, previous: [] }, events, (_client, signal) => pass(signal, []), { progressEveryMs: 0 });
    expect(posted).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });
});
