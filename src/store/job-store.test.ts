import { describe, expect, it } from 'vitest';
import { testIntervention as iv } from '../testing/test-runs.ts';
import type { Intervention, LlmCallRecord, Run } from '../model/types.ts';
import { DEFAULT_PREFERENCES, type EngineSettingsState } from './engine-settings.ts';
import { createJobStore, KEEP_EVERY_MS, readRunningMarker, runningMarkerKey, withoutEngine, type JobEvents, type JobStoreDeps, type PassOutcome, type StartOptions } from './job-store.ts';
import { MemoryStorage } from '../testing/memory-storage.ts';

const makeRun = (interventions: Intervention[] = []) => ({ id: 'run', steps: [], interventions }) as unknown as Run;

/** A pass the test drives by hand: it reports what it is told and ends when `finish` is called or it is stopped. */
function manualPass() {
  let events: JobEvents<number, Intervention> | undefined;
  let end: ((r: PassOutcome) => void) | undefined;
  const starts: { previous: number; options: unknown }[] = [];
  return {
    starts,
    events: () => events!,
    finish: (r: PassOutcome) => end!(r),
    start(e: JobEvents<number, Intervention>, signal: AbortSignal) {
      events = e;
      return new Promise<PassOutcome>((resolve) => {
        end = resolve;
        signal.addEventListener('abort', () => resolve({ status: 'cancelled' }));
      });
    },
  };
}

function setup(name = 'supervisor', storage = new MemoryStorage()) {
  let run = makeRun([iv('h', 'human'), iv('old', 'supervisor', 4)]);
  const kept: Intervention[] = [];
  const batches: number[] = [];
  const calls: LlmCallRecord[] = [];
  const deps: JobStoreDeps = {
    storage,
    settings: () => ({ ...DEFAULT_PREFERENCES, apiKey: undefined, keyNotice: undefined }) as unknown as EngineSettingsState,
    getRun: (id) => (id === run.id ? run : undefined),
    updateRun: (r) => void (run = r),
    keepCall: (r) => void calls.push(r),
    now: () => 1234,
  };
  const pass = manualPass();
  const store = createJobStore<StartOptions & { window?: number; mode?: 'offline' | 'endpoint' }, number, Intervention, PassOutcome, { message: string }, { note?: string }>(
    {
      name,
      extra: { note: undefined },
      mode: (o) => o.mode ?? 'offline',
      launch(r, options, { updateRun }) {
        if (options.window === -1) return 'no such window';
        if (options.fresh) updateRun((r = withoutEngine(r, 'supervisor')));
        const previous = r.interventions.filter((i) => i.engine === 'supervisor');
        pass.starts.push({ previous: previous.length, options });
        return { spent: previous.reduce((s, i) => s + (i.tokens?.total ?? 0), 0), progress: 0, extra: { note: 'launched' }, start: (e, s) => pass.start(e, s) };
      },
      keep: (_runId, items) => {
        batches.push(items.length);
        kept.push(...items);
      },
    },
    deps,
  );
  return { store, pass, kept, batches, calls, storage, getRun: () => run, deps };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the job store', () => {
  it('runs a pass: running → complete, keeping new results (not resumed ones), calls and tokens spent', async () => {
    const { store, pass, kept, calls } = setup();
    expect(store.getState().status).toBe('idle');
    const done = store.getState().start('run');
    expect(store.getState()).toMatchObject({ status: 'running', runId: 'run', mode: 'offline', spent: 4, progress: 0, note: 'launched' });
    pass.events().onItem(iv('old', 'supervisor', 4), true);
    pass.events().onItem(iv('new', 'supervisor', 6), false);
    pass.events().onCall({ id: 'c1', usage: { input: 5, output: 1, total: 6 } } as LlmCallRecord);
    pass.events().onProgress(3);
    // Results wait a little for others (KEEP_EVERY_MS); calls are kept at once.
    expect(kept).toEqual([]);
    expect(calls.map((c) => c.id)).toEqual(['c1']);
    await new Promise((r) => setTimeout(r, KEEP_EVERY_MS + 20));
    expect(kept.map((i) => i.id)).toEqual(['new']);
    expect(store.getState()).toMatchObject({ spent: 10, progress: 3 });
    pass.finish({ status: 'complete' });
    await done;
    expect(store.getState().status).toBe('complete');
    // Reports come over their own channel, so the pass's last ones often arrive after its result: they are still
    // shown (the Taxonomy pass ended at "10 of 14" without this). Tokens are the result's.
    pass.events().onProgress(4);
    expect(store.getState().progress).toBe(4);
    pass.events().onCall({ id: 'c2', usage: { input: 5, output: 1, total: 6 } } as LlmCallRecord);
    expect(store.getState().spent).toBe(10);
  });

  it('keeps the results that arrive together in one change, and every one received before it reports the end', async () => {
    const { store, pass, kept, batches } = setup();
    const done = store.getState().start('run');
    for (let i = 0; i < 500; i++) pass.events().onItem(iv(`n${i}`, 'supervisor', 1), false);
    expect(kept).toHaveLength(0);
    pass.finish({ status: 'complete' });
    await done;
    // Not one keep per result: all 500 went in at once, before the status said complete.
    expect(store.getState().status).toBe('complete');
    expect(kept.map((i) => i.id)).toEqual(Array.from({ length: 500 }, (_, i) => `n${i}`));
    expect(batches).toEqual([500]);
    // A result that arrives after the end (its own channel) is still kept, a moment later.
    pass.events().onItem(iv('late', 'supervisor', 1), false);
    await new Promise((r) => setTimeout(r, KEEP_EVERY_MS + 20));
    expect(kept.at(-1)?.id).toBe('late');
    expect(batches).toEqual([500, 1]);
  });

  it('a result of the last pass still waiting is kept before a fresh start clears the engine\'s results', async () => {
    const { store, pass, kept } = setup();
    const first = store.getState().start('run');
    const events = pass.events();
    pass.finish({ status: 'complete' });
    await first;
    events.onItem(iv('late', 'supervisor', 1), false);
    expect(kept).toEqual([]);
    void store.getState().start('run', { fresh: true });
    // Kept as the second pass started, not 100 ms into it (after the fresh start had cleared the run).
    expect(kept.map((i) => i.id)).toEqual(['late']);
  });

  it('a late report of an older pass never overwrites the progress of a newer one', async () => {
    const { store, pass } = setup();
    const first = store.getState().start('run');
    const oldEvents = pass.events();
    pass.finish({ status: 'complete' });
    await first;
    void store.getState().start('run', { fresh: true });
    pass.events().onProgress(2);
    oldEvents.onProgress(9);
    expect(store.getState().progress).toBe(2);
  });

  it('pause → paused and cancel → cancelled; a second start while one runs is ignored', async () => {
    const { store, pass } = setup();
    let done = store.getState().start('run');
    void store.getState().start('run');
    expect(pass.starts).toHaveLength(1);
    store.getState().pause();
    expect(store.getState()).toMatchObject({ status: 'running', stopping: 'pause' });
    await done;
    expect(store.getState()).toMatchObject({ status: 'paused', stopping: undefined });
    done = store.getState().start('run');
    store.getState().cancel();
    await done;
    expect(store.getState().status).toBe('cancelled');
  });

  it('fails with a reason for a missing run, a refused launch, a failed pass or a worker that died', async () => {
    const { store, pass } = setup();
    await store.getState().start('gone');
    expect(store.getState()).toMatchObject({ status: 'failed', error: 'run “gone” is not in the library' });
    await store.getState().start('run', { window: -1 });
    expect(store.getState()).toMatchObject({ status: 'failed', error: 'no such window' });
    let done = store.getState().start('run');
    expect(store.getState().error).toBeUndefined();
    pass.finish({ status: 'failed', failure: { message: 'HTTP 500' } });
    await done;
    expect(store.getState()).toMatchObject({ status: 'failed', failure: { message: 'HTTP 500' }, error: 'HTTP 500' });
    pass.start = () => Promise.reject(new Error('the worker stopped unexpectedly'));
    done = store.getState().start('run');
    await done;
    expect(store.getState()).toMatchObject({ status: 'failed', error: 'the worker stopped unexpectedly' });
  });

  it('a fresh start drops the earlier results of the engine, a plain start keeps them', async () => {
    const { store, pass, getRun } = setup();
    let done = store.getState().start('run');
    pass.finish({ status: 'complete' });
    await done;
    expect(pass.starts[0].previous).toBe(1);
    done = store.getState().start('run', { fresh: true });
    pass.finish({ status: 'complete' });
    await done;
    expect(pass.starts[1].previous).toBe(0);
    expect(getRun().interventions.map((i) => i.id)).toEqual(['h']);
  });
});

describe('interrupted passes (what a reload finds)', () => {
  for (const [name, options] of [
    ['supervisor', {}],
    ['rectifier', {}],
    ['clarifier', { window: 2 }],
    ['stages', { mode: 'endpoint' }],
  ] as const) {
    it(`${name}: the marker names the run while a pass runs; a new page says interrupted and resumes with the same options`, async () => {
      const storage = new MemoryStorage();
      const first = setup(name, storage);
      void first.store.getState().start('run', { ...options, fresh: true });
      expect(readRunningMarker(name, storage)).toEqual({ runId: 'run', mode: 'mode' in options ? options.mode : 'offline', startedAt: 1234, options });

      // The page is reloaded: a new store over the same storage.
      const second = setup(name, storage);
      expect(second.store.getState()).toMatchObject({ status: 'interrupted', runId: 'run', interruptedAt: 1234 });
      const done = second.store.getState().resume();
      expect(second.pass.starts[0].options).toEqual({ ...options, fresh: false });
      expect(second.store.getState().status).toBe('running');
      second.pass.finish({ status: 'complete' });
      await done;
      expect(second.store.getState().status).toBe('complete');
      expect(storage.getItem(runningMarkerKey(name))).toBeNull();
      expect(setup(name, storage).store.getState().status).toBe('idle');
    });
  }

  it('a finished or failed pass leaves no marker; a corrupt or foreign marker says nothing', async () => {
    const { store, pass, storage } = setup();
    const done = store.getState().start('run');
    pass.finish({ status: 'failed', failure: { message: 'x' } });
    await done;
    await tick();
    expect(storage.map.size).toBe(0);
    const with_ = (value: string) => ({ getItem: () => value, setItem() {}, removeItem() {} });
    expect(readRunningMarker('supervisor', with_('{not json'))).toBeUndefined();
    expect(readRunningMarker('supervisor', with_(JSON.stringify({ runId: 3 })))).toBeUndefined();
    expect(readRunningMarker('supervisor', undefined)).toBeUndefined();
    // Markers written before options were kept still resume.
    expect(readRunningMarker('supervisor', with_(JSON.stringify({ runId: 'r1', mode: 'endpoint', startedAt: 5 })))).toEqual({ runId: 'r1', mode: 'endpoint', startedAt: 5, options: {} });
  });

  it('resume does nothing unless a pass was interrupted', async () => {
    const { store, pass } = setup();
    await store.getState().resume();
    expect(pass.starts).toHaveLength(0);
  });
});
