// The run ferry over a real MessageChannel with Comlink (as between the page and an engine worker): a run arrives
// whole and equal, its large arrays in parts of at most PART items, sent once while the worker holds them, and
// dropped when another run's call comes.
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import type { Handoff, Run, Step } from '../model/types.ts';
import { makeRun } from '../testing/test-runs.ts';
import { estimateBytes } from '../model/run-chunks.ts';
import { ferryHostApi, heldArrays, runOf, valueOf } from './run-ferry-host.ts';
import { ferried, ferryPlan, INLINE_MAX, PART, PART_BYTES, partSize, RunFerry, type Ferried, type FerriedRun, type FerryHostApi, type FerryShape } from './run-ferry.ts';
import { RunningJobs } from './running-jobs.ts';

function bigRun(id: string, steps: number, handoffs: number): Run {
  const base = makeRun(id);
  const stepList: Step[] = Array.from({ length: steps }, (_, i) => ({ id: `${id}-s${i}`, index: i, kind: 'message', agentId: i % 2 ? 'a' : 'b', output: `said ${i}`, usage: { input: i, output: 1, total: i + 1 } }) as Step);
  const handoffList: Handoff[] = Array.from({ length: handoffs }, (_, i) => ({ id: `${id}-h${i}`, from: 'a', to: ['b'], content: `to b ${i}`, stepId: `${id}-s${i}` }) as Handoff);
  return { ...base, steps: stepList, handoffs: handoffList };
}

interface Pool {
  name: string;
  indicators: { name: string; definition: string }[];
}

interface Host extends FerryHostApi {
  echo(run: FerriedRun): Run;
  echoBoth(run: FerriedRun, pool: Ferried<Pool>): { run: Run; pool: Pool };
}

let ports: MessagePort[] = [];

function connect(idleMs?: number): { ferry: RunFerry; parts: number[]; remote: Comlink.Remote<Host> } {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const parts: number[] = [];
  const host: Host = {
    receiveRunPart(token, items, length) {
      parts.push(items.length);
      ferryHostApi.receiveRunPart(token, items, length);
    },
    dropRunArrays: (tokens) => ferryHostApi.dropRunArrays(tokens),
    echo: (run) => runOf(run),
    echoBoth: (run, pool) => ({ run: runOf(run), pool: valueOf(pool, 'the pool') }),
  };
  Comlink.expose(host, port1);
  const remote = Comlink.wrap<Host>(port2);
  return { ferry: new RunFerry(remote as unknown as Comlink.Remote<FerryHostApi>, idleMs), parts, remote };
}

afterEach(() => {
  for (const p of ports) p.close();
  ports = [];
});

describe('RunFerry', () => {
  it('brings a large run whole: equal to a structured clone of it, its large arrays in parts of at most PART items', async () => {
    const { ferry, parts, remote } = connect();
    const plain = bigRun('r1', 5 * PART + 17, 2 * PART + 3);
    // With the results an engine kept: one per message of a pass (17,500 of them went with an estimate's call before).
    const interventions = plain.steps.slice(0, 2 * PART + 5).map((s, i) => ({ id: `rectifier:${s.id}`, stepId: s.id, engine: 'rectifier', action: i % 3 === 0 ? 'rejected' : 'pass', reason: `kept ${i}`, heuristic: true }) as Run['interventions'][number]);
    const run: Run = { ...plain, interventions };
    const received = await ferry.use([run], ([f]) => {
      // Only the large arrays go in parts: the call itself carries none of their items.
      expect(f.head.steps).toEqual([]);
      expect(f.head.interventions).toEqual([]);
      expect(f.arrays.map((a) => a.key)).toEqual(['steps', 'handoffs', 'interventions']);
      return remote.echo(f);
    });
    expect(received).toEqual(structuredClone(run));
    expect(parts.length).toBe(6 + 3 + 3);
    expect(Math.max(...parts)).toBeLessThanOrEqual(PART);
  });

  it('sends a small run with the call, and an array once while the worker holds it', async () => {
    const { ferry, parts, remote } = connect();
    const small = bigRun('small', INLINE_MAX, 3);
    expect(await ferry.use([small], ([f]) => remote.echo(f))).toEqual(structuredClone(small));
    expect(parts).toEqual([]);
    const run = bigRun('r2', 3 * PART, 0);
    await ferry.use([run], ([f]) => remote.echo(f));
    const sent = parts.length;
    expect(sent).toBe(3);
    // A run replaced by another with the same steps (a label, an intervention kept) is not sent again.
    const relabelled = { ...run, title: 'relabelled' };
    expect((await ferry.use([relabelled], ([f]) => remote.echo(f))).title).toBe('relabelled');
    expect(parts.length).toBe(sent);
    // Two calls at once with the same run send it once.
    const other = bigRun('r3', 2 * PART, 0);
    await Promise.all([ferry.use([other], ([f]) => remote.echo(f)), ferry.use([other], ([f]) => remote.echo(f))]);
    expect(parts.length).toBe(sent + 2);
  });

  it('keeps the arrays of the last call and of calls in flight, and drops the others', async () => {
    const { ferry, remote } = connect();
    const before = heldArrays();
    const a = bigRun('a', 2 * PART, 0);
    const b = bigRun('b', 2 * PART, 0);
    await ferry.use([a], ([f]) => remote.echo(f));
    expect(ferry.holding()).toHaveLength(1);
    expect(heldArrays()).toBe(before + 1);
    // While a call with `a` is in flight, a call with `b` does not drop a's steps.
    let release!: () => void;
    const inFlight = ferry.use([a], async ([f]) => {
      await new Promise<void>((resolve) => (release = resolve));
      return remote.echo(f);
    });
    await ferry.use([b], ([f]) => remote.echo(f));
    expect(ferry.holding()).toHaveLength(2);
    release();
    expect((await inFlight).id).toBe('a');
    // The next call with `b` alone drops a's.
    await ferry.use([b], ([f]) => remote.echo(f));
    expect(ferry.holding()).toHaveLength(1);
    expect(heldArrays()).toBe(before + 1);
  });

  it('lets the worker drop everything it holds when released, but the arrays of a call in flight', async () => {
    const { ferry, remote } = connect();
    const before = heldArrays();
    const a = bigRun('a', 2 * PART, 0);
    await ferry.use([a], ([f]) => remote.echo(f));
    await ferry.release();
    expect(ferry.holding()).toEqual([]);
    expect(heldArrays()).toBe(before);
    let release!: () => void;
    const inFlight = ferry.use([a], async ([f]) => {
      await new Promise<void>((resolve) => (release = resolve));
      return remote.echo(f);
    });
    await expect.poll(() => ferry.holding().length).toBe(1);
    await ferry.release();
    expect(ferry.holding()).toHaveLength(1);
    release();
    expect((await inFlight).steps).toEqual(a.steps);
    await ferry.release();
    expect(ferry.holding()).toEqual([]);
    expect(heldArrays()).toBe(before);
  });

  it('lets go of what the worker holds once no call has come for idleMs, and a call meanwhile keeps it', async () => {
    const { ferry, remote } = connect(150);
    const before = heldArrays();
    const a = bigRun('a', 2 * PART, 0);
    await ferry.use([a], ([f]) => remote.echo(f));
    await new Promise((resolve) => setTimeout(resolve, 60));
    // A call within the window: sent nothing again, and the window starts over.
    await ferry.use([a], ([f]) => remote.echo(f));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ferry.holding()).toHaveLength(1);
    await expect.poll(() => ferry.holding(), { timeout: 2000 }).toEqual([]);
    await expect.poll(() => heldArrays()).toBe(before);
    // The next call sends the run again, whole.
    expect((await ferry.use([a], ([f]) => remote.echo(f))).steps).toEqual(a.steps);
  });

  it('an array that grew in place is sent again, whole', async () => {
    const { ferry, remote } = connect();
    const run = bigRun('grows', 2 * PART, 0);
    await ferry.use([run], ([f]) => remote.echo(f));
    run.steps.push({ ...run.steps[0], id: 'grows-late' });
    const received = await ferry.use([run], ([f]) => remote.echo(f));
    expect(received.steps).toHaveLength(2 * PART + 1);
    expect(received.steps.at(-1)?.id).toBe('grows-late');
  });

  it('another value (an indicator pool) crosses by its own shape, in parts sized by its items, sent once while held', async () => {
    const { ferry, parts, remote } = connect();
    const shape: FerryShape = { keys: ['indicators'], inlineMax: 10 };
    const pool: Pool = { name: 'math', indicators: Array.from({ length: 500 }, (_, i) => ({ name: `I${String(i).padStart(3, '0')}`, definition: 'x'.repeat(1500) })) };
    const run = bigRun('with-pool', 2 * PART, 0);
    const call = () =>
      ferry.usePlans<{ run: Run; pool: Pool }, object>([ferried(run), ferryPlan(pool, shape)], ([r, p]) => {
        // The call itself carries none of the pool's indicators.
        expect((p as Ferried<Pool>).head.indicators).toEqual([]);
        return remote.echoBoth(r as FerriedRun, p as Ferried<Pool>);
      });
    const first = await call();
    expect(first.pool).toEqual(structuredClone(pool));
    expect(first.run).toEqual(structuredClone(run));
    // The run's steps in two parts of PART; the pool's 500 indicators (~3 KB each by estimateBytes) in parts of about PART_BYTES.
    const size = Math.floor(PART_BYTES / estimateBytes(pool.indicators[0]));
    expect(size).toBeLessThan(250);
    expect(parts).toEqual([PART, PART, size, size, 500 - 2 * size]);
    // Asked again (an estimate at the next status), neither is sent again.
    expect((await call()).pool.indicators).toHaveLength(500);
    expect(parts).toHaveLength(5);
    // A small pool goes with the call.
    const small: Pool = { name: 'small', indicators: pool.indicators.slice(0, 10) };
    const plan = ferryPlan(small, shape);
    expect(plan.send.size).toBe(0);
    expect(plan.ferried.head.indicators).toHaveLength(10);
    expect(() => valueOf({ head: small, arrays: [{ key: 'indicators', token: 987655, length: 3 }] }, 'pool small')).toThrow(/indicators of pool small are not here/);
  });

  it('sends large items in smaller parts, of about PART_BYTES each (an engine pass’s interventions)', async () => {
    const { ferry, parts, remote } = connect();
    const run = bigRun('fat', 10, 0);
    const interventions = Array.from({ length: 2 * PART }, (_, i) => ({ id: `rectifier:${i}`, stepId: `s${i}`, engine: 'rectifier', action: 'retrieval-only', reason: 'r'.repeat(1200), heuristic: true })) as Run['interventions'];
    const per = estimateBytes(interventions[0]);
    expect(per * PART).toBeGreaterThan(2 * PART_BYTES);
    const received = await ferry.use([{ ...run, interventions }], ([f]) => remote.echo(f));
    expect(received.interventions).toEqual(interventions);
    const size = Math.floor(PART_BYTES / per);
    expect(parts.every((n) => n <= size)).toBe(true);
    expect(parts.length).toBe(Math.ceil((2 * PART) / size));
    // Small items still go PART at a time.
    expect(partSize(bigRun('thin', PART, 0).steps, PART)).toBe(PART);
  });

  it('a run whose arrays were dropped is refused by name, not read short', () => {
    expect(() => runOf({ head: makeRun('gone'), arrays: [{ key: 'steps', token: 987654, length: 5 }] })).toThrow(/steps of run gone are not here/);
  });
});

describe('RunningJobs', () => {
  it('a job stopped before it started (its run still crossing) starts stopped', async () => {
    const jobs = new RunningJobs();
    jobs.stop(7);
    expect(await jobs.run(7, async (signal) => signal.aborted)).toBe(true);
    // Only that job: the next one runs.
    expect(await jobs.run(8, async (signal) => signal.aborted)).toBe(false);
  });
});
