import { describe, expect, it } from 'vitest';
import type { EnginePass, PassEvent } from '../engine/pass.ts';
import { jobResult, pumpPass } from './pump.ts';
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
});
