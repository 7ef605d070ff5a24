// One job store per engine (supervisor, rectifier, clarifier, stages), all made here: one pass at a time per engine,
// kept across view changes, with one status union. Every result is kept as it arrives (through the engine's `keep`)
// and every endpoint call into the library's call records, so IndexedDB holds them whatever happens next (SPEC §9).
// While a pass runs, a marker in localStorage names its run: after a reload the store says `interrupted`, and
// `resume()` continues the pass without asking for the finished results again.
import { create } from 'zustand';
import type { LlmSettings } from '../llm/settings.ts';
import type { Intervention, LlmCallRecord, Run } from '../model/types.ts';
import { keepLlmCall } from './engine-results.ts';
import { effectiveMode, toLlmSettings, useEngineSettings, type EngineMode, type EngineSettingsState } from './engine-settings.ts';
import { useLibrary } from './library.ts';

export type JobStatus = 'idle' | 'running' | 'paused' | 'interrupted' | 'complete' | 'failed' | 'cancelled';

/** What the page hears from a pass in its worker (the same for every engine). */
export interface JobEvents<Progress, Item> {
  onProgress(progress: Progress): void;
  onItem(item: Item, resumed: boolean): void;
  onCall(record: LlmCallRecord): void;
}

/** How a pass ended: every engine's result says so. */
export interface PassOutcome {
  status: 'complete' | 'cancelled' | 'failed';
  failure?: { message: string };
}

/** Options every start takes: `fresh` drops the engine's earlier results on the run instead of resuming from them. */
export interface StartOptions {
  fresh?: boolean;
}

export interface JobFields<Progress, Failure> {
  status: JobStatus;
  /** While running: a pause or a cancel was asked for and waits for the call in flight. */
  stopping?: 'pause' | 'cancel';
  runId?: string;
  mode?: EngineMode;
  progress?: Progress;
  /** Endpoint tokens spent on this run by this engine (results kept from earlier passes included). */
  spent: number;
  failure?: Failure;
  /** Why the pass stopped, in words (the worker failed, the run cannot be used, or the failure's message). */
  error?: string;
  /** Status `interrupted`: when the pass that a reload cut short had started. */
  interruptedAt?: number;
}

export type JobState<Options extends StartOptions, Progress, Failure, Extra> = JobFields<Progress, Failure> &
  Extra & {
    start(runId: string, options?: Options): Promise<void>;
    /** Continues the pass a reload cut short (status `interrupted`), with the options it was started with. */
    resume(): Promise<void>;
    pause(): void;
    cancel(): void;
  };

/** What a start hands the engine's `launch`. */
export interface LaunchContext<Extra> {
  mode: EngineMode;
  /** Absent offline. Carries the API key, which only LlmClient sends, and only to its base URL. */
  llm?: LlmSettings;
  settings: EngineSettingsState;
  updateRun(run: Run): void;
  getRun(runId: string): Run | undefined;
  /** Sets engine-specific state while the pass runs (e.g. the rectifier's pool embedding progress). */
  patch(extra: Partial<Extra>): void;
}

/** A pass ready to go: how to start it in its worker, and what the state shows meanwhile and after. */
export interface JobLaunch<Progress, Item, Result extends PassOutcome, Failure, Extra> {
  start(events: JobEvents<Progress, Item>, signal: AbortSignal): Promise<Result>;
  /** Tokens the results this pass keeps already cost. */
  spent?: number;
  progress?: Progress;
  extra?: Partial<Extra>;
  /** What the finished pass leaves in the state besides its status (default: its failure). */
  finish?(result: Result): Partial<JobFields<Progress, Failure> & Extra>;
}

export interface EngineJob<Options extends StartOptions, Progress, Item, Result extends PassOutcome, Failure, Extra> {
  /** Names the marker of a pass in progress: `mas-replay:<name>-running`. */
  name: string;
  /** Engine-specific state before any pass. */
  extra: Extra;
  /** The mode a start runs in; by default the endpoint settings' (offline until an endpoint is usable). */
  mode?(options: Options, settings: EngineSettingsState): EngineMode;
  /** Checks the run and readies it (dropping what a fresh start discards); a string says why the pass cannot start. */
  launch(run: Run, options: Options, context: LaunchContext<Extra>): JobLaunch<Progress, Item, Result, Failure, Extra> | string;
  /**
   * Keeps new results in their run (resumed ones are there already), in the order they arrived: the results of up to
   * KEEP_EVERY_MS at once, one change of the run for all of them.
   */
  keep(runId: string, items: readonly Item[]): void;
}

type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface JobStoreDeps {
  storage?: StorageLike;
  settings(): EngineSettingsState;
  getRun(runId: string): Run | undefined;
  updateRun(run: Run): void;
  keepCall(record: LlmCallRecord): void;
  now(): number;
}

function browserStorage(): StorageLike | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined; // storage disabled: nothing to remember across reloads
  }
}

const appDeps = (): JobStoreDeps => ({
  storage: browserStorage(),
  settings: () => useEngineSettings.getState(),
  getRun: (id) => useLibrary.getState().runs[id],
  updateRun: (run) => useLibrary.getState().updateRun(run),
  keepCall: keepLlmCall,
  now: Date.now,
});

export const runningMarkerKey = (name: string) => `mas-replay:${name}-running`;

export interface RunningMarker {
  runId: string;
  mode: EngineMode;
  startedAt: number;
  /** The options the pass was started with (`fresh` left out: a resume keeps what was done). */
  options: Record<string, unknown>;
}

/** The pass of engine `name` that a previous page left running (closed, reloaded or crashed before it ended), if any. */
export function readRunningMarker(name: string, storage: StorageLike | undefined): RunningMarker | undefined {
  try {
    const raw: unknown = JSON.parse(storage?.getItem(runningMarkerKey(name)) ?? 'null');
    if (raw && typeof raw === 'object' && typeof (raw as RunningMarker).runId === 'string') {
      const m = raw as Partial<RunningMarker>;
      const options = m.options && typeof m.options === 'object' && !Array.isArray(m.options) ? m.options : {};
      return { runId: m.runId!, mode: m.mode === 'endpoint' ? 'endpoint' : 'offline', startedAt: Number(m.startedAt) || 0, options };
    }
  } catch {
    // a corrupt marker says nothing
  }
  return undefined;
}

/** The run without `engine`'s interventions (a fresh start of that engine). */
export function withoutEngine(run: Run, engine: Intervention['engine']): Run {
  return { ...run, interventions: run.interventions.filter((i) => i.engine !== engine) };
}

export const isActive = (s: { status: JobStatus }) => s.status === 'running';

/**
 * How long a result may wait for others before it is kept (ms). Each keep changes the run, writes it and renders the
 * views that show it: kept one by one, an offline rectify pass over 2,000 chat messages took 231 s, 54 s of it in
 * 748 long tasks on the page. A result waits at most this long, and none waits once the pass has ended.
 */
export const KEEP_EVERY_MS = 100;

export function createJobStore<Options extends StartOptions, Progress, Item, Result extends PassOutcome, Failure, Extra extends object>(
  engine: EngineJob<Options, Progress, Item, Result, Failure, Extra>,
  deps: JobStoreDeps = appDeps(),
) {
  type State = JobState<Options, Progress, Failure, Extra>;
  let controller: AbortController | undefined;
  /** The pass whose reports the store shows: a late report of an older pass never overwrites a newer one's. */
  let current: AbortController | undefined;
  const marker = readRunningMarker(engine.name, deps.storage);
  let resumeOptions: Record<string, unknown> = marker?.options ?? {};

  const writeMarker = (m: RunningMarker | undefined) => {
    try {
      if (m) deps.storage?.setItem(runningMarkerKey(engine.name), JSON.stringify(m));
      else deps.storage?.removeItem(runningMarkerKey(engine.name));
    } catch {
      // storage refused: a reload then finds no marker, and the kept results still stand
    }
  };

  /** Results received and not kept yet, with the run they belong to. */
  let waiting: { runId: string; items: Item[] } | undefined;
  let keepTimer: ReturnType<typeof setTimeout> | undefined;
  const keepWaiting = () => {
    if (keepTimer !== undefined) clearTimeout(keepTimer);
    keepTimer = undefined;
    const batch = waiting;
    waiting = undefined;
    if (batch) engine.keep(batch.runId, batch.items);
  };
  const receive = (runId: string, item: Item) => {
    if (waiting && waiting.runId !== runId) keepWaiting();
    (waiting ??= { runId, items: [] }).items.push(item);
    keepTimer ??= setTimeout(keepWaiting, KEEP_EVERY_MS);
  };

  return create<State>()((setState, get) => {
    // Patches are checked where they are written (JobFields, the engine's Extra); the intersection defeats inference here.
    const set = (patch: object) => setState(patch as Partial<State>);
    return {
      ...engine.extra,
      ...(marker ? { status: 'interrupted', runId: marker.runId, mode: marker.mode, interruptedAt: marker.startedAt } : { status: 'idle' }),
      spent: 0,

      async start(runId, options = {} as Options) {
        if (controller) return;
        // Results of an earlier pass still waiting go in first: the run read here has them, and a fresh start clears
        // the engine's results after them, not before.
        keepWaiting();
        const run = deps.getRun(runId);
        const cleared = { failure: undefined, error: undefined, stopping: undefined, interruptedAt: undefined } as const;
        if (!run) {
          set({ ...cleared, status: 'failed', runId, error: `run “${runId}” is not in the library` });
          return;
        }
        const settings = deps.settings();
        const mode = engine.mode ? engine.mode(options, settings) : effectiveMode(settings.endpoint);
        const llm = mode === 'endpoint' ? toLlmSettings(settings.endpoint, settings.apiKey) : undefined;
        const launch = engine.launch(run, options, { mode, llm, settings, updateRun: deps.updateRun, getRun: deps.getRun, patch: (extra) => set(extra) });
        if (typeof launch === 'string') {
          set({ ...cleared, status: 'failed', runId, mode, error: launch });
          return;
        }
        const ctl = new AbortController();
        controller = ctl;
        current = ctl;
        const { fresh: _fresh, ...kept } = options;
        void _fresh;
        resumeOptions = kept;
        writeMarker({ runId, mode, startedAt: deps.now(), options: kept });
        set({ ...engine.extra, ...cleared, ...launch.extra, status: 'running', runId, mode, progress: launch.progress, spent: launch.spent ?? 0 });
        // Callbacks come over their own message channel. A worker's pass answers once the page has taken every one
        // (src/workers/pump.ts, ADR 0087); a pass run otherwise may still call back after its result: once the result
        // is in, it is the authority on tokens (late results and call records are still kept), and a late progress
        // report of this pass is still true and is shown while no newer pass started.
        let settled = false;
        try {
          const result = await launch.start(
            {
              onProgress: (progress) => {
                if (current === ctl) set({ progress });
              },
              onItem: (item, resumed) => {
                if (!resumed) receive(runId, item);
              },
              onCall: (record) => {
                deps.keepCall(record);
                if (record.usage && !settled) set({ spent: get().spent + record.usage.total });
              },
            },
            ctl.signal,
          );
          settled = true;
          // Every result received so far is in its run before the pass is reported as ended.
          keepWaiting();
          const status: JobStatus = result.status === 'cancelled' && get().stopping === 'pause' ? 'paused' : result.status;
          set({ failure: result.failure as Failure | undefined, error: result.failure?.message, ...launch.finish?.(result), status, stopping: undefined });
        } catch (e) {
          settled = true;
          keepWaiting();
          set({ status: 'failed', stopping: undefined, error: e instanceof Error ? e.message : String(e) });
        } finally {
          controller = undefined;
          writeMarker(undefined);
        }
      },

      async resume() {
        const { runId, status } = get();
        if (status !== 'interrupted' || runId === undefined) return;
        await get().start(runId, { ...resumeOptions, fresh: false } as Options);
      },

      pause() {
        if (!controller || get().stopping) return;
        set({ stopping: 'pause' });
        controller.abort();
      },

      cancel() {
        if (!controller || get().stopping) return;
        set({ stopping: 'cancel' });
        controller.abort();
      },
    } as State;
  });
}
