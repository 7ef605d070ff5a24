// The supervisor replay the engines panel runs: one at a time, kept across view changes (a person can watch the run
// view while it works). Every intervention is written into its run as it arrives, and every endpoint call into the
// library's call records and written to IndexedDB at once (not after the debounce), so a reload or a crash loses at
// most the call in flight. Which run was being supervised is kept in localStorage while the replay runs: after a
// reload the panel says the replay was interrupted, and Resume continues it without asking the finished steps again.
import { create } from 'zustand';
import type { Intervention, LlmCallRecord, Run } from '../../model/types.ts';
import type { ShadowFailure, ShadowProgress, TokenSummary } from '../../engine/supervisor/index.ts';
import { useLibrary } from '../../store/library.ts';
import { keepIntervention, keepLlmCall } from '../../store/engine-results.ts';
import { effectiveMode, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { runSupervisorInWorker } from '../../workers/supervisor-client.ts';

export type JobStatus = 'idle' | 'running' | 'pausing' | 'paused' | 'cancelling' | 'cancelled' | 'failed' | 'complete' | 'interrupted';

/** localStorage key of the replay in progress: present only while one runs (or after a reload cut it short). */
export const RUNNING_JOB_KEY = 'mas-replay:supervisor-running';

interface RunningMarker {
  runId: string;
  mode: 'offline' | 'endpoint';
  startedAt: number;
}

type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function storage(): StorageLike | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined; // storage disabled: nothing to remember across reloads
  }
}

/** The replay a previous page left running (closed, reloaded or crashed before it ended), if any. */
export function readRunningMarker(store: StorageLike | undefined = storage()): RunningMarker | undefined {
  try {
    const raw: unknown = JSON.parse(store?.getItem(RUNNING_JOB_KEY) ?? 'null');
    if (raw && typeof raw === 'object' && typeof (raw as RunningMarker).runId === 'string') {
      const m = raw as RunningMarker;
      return { runId: m.runId, mode: m.mode === 'endpoint' ? 'endpoint' : 'offline', startedAt: Number(m.startedAt) || 0 };
    }
  } catch {
    // a corrupt marker says nothing
  }
  return undefined;
}

function initialState(): Pick<JobState, 'status' | 'runId' | 'mode' | 'interruptedAt'> {
  const marker = readRunningMarker();
  return marker ? { status: 'interrupted', runId: marker.runId, mode: marker.mode, interruptedAt: marker.startedAt } : { status: 'idle' };
}

export interface JobState {
  status: JobStatus;
  runId?: string;
  mode?: 'offline' | 'endpoint';
  progress?: ShadowProgress;
  /** Supervisor LLM tokens spent on this run so far (earlier sessions' interventions included). */
  spent: number;
  tokens?: TokenSummary;
  failure?: ShadowFailure;
  /** The worker itself failed (not an endpoint call). */
  error?: string;
  /** Status `interrupted`: when the replay that a reload cut short had started. */
  interruptedAt?: number;
  start(runId: string, options?: { fresh?: boolean }): Promise<void>;
  pause(): void;
  cancel(): void;
}

export function supervisorInterventions(run: Run): Intervention[] {
  return run.interventions.filter((i) => i.engine === 'supervisor');
}

export function tokensOf(interventions: readonly Intervention[]): number {
  return interventions.reduce((sum, i) => sum + (i.tokens?.total ?? 0), 0);
}

let controller: AbortController | undefined;
let stopAs: 'paused' | 'cancelled' = 'cancelled';

export const useSupervisorJob = create<JobState>((set, get) => ({
  ...initialState(),
  spent: 0,
  async start(runId, { fresh = false } = {}) {
    if (controller) return;
    const library = useLibrary.getState();
    let run = library.runs[runId];
    if (!run) {
      set({ status: 'failed', runId, error: `run “${runId}” is not in the library`, failure: undefined, tokens: undefined });
      return;
    }
    if (fresh) {
      run = { ...run, interventions: run.interventions.filter((i) => i.engine !== 'supervisor') };
      library.updateRun(run);
    }
    const settings = useEngineSettings.getState();
    const mode = effectiveMode(settings.endpoint);
    const previous = supervisorInterventions(run);
    controller = new AbortController();
    stopAs = 'cancelled';
    storage()?.setItem(RUNNING_JOB_KEY, JSON.stringify({ runId, mode, startedAt: Date.now() } satisfies RunningMarker));
    set({
      status: 'running',
      runId,
      mode,
      interruptedAt: undefined,
      progress: { done: 0, total: run.steps.length, triggers: 0, interventions: 0 },
      spent: tokensOf(previous),
      tokens: undefined,
      failure: undefined,
      error: undefined,
    });
    const { tauStep, tauLoop, tauLen, nonCriticalErrors } = settings.supervisor;
    try {
      const result = await runSupervisorInWorker(
        {
          run,
          thresholds: { tauStep, tauLoop, tauLen },
          nonCriticalErrors,
          llm: mode === 'endpoint' ? toLlmSettings(settings.endpoint, settings.apiKey) : undefined,
          previous,
        },
        {
          onProgress: (progress) => set({ progress }),
          onItem: (iv, resumed) => {
            if (!resumed) keepIntervention(runId, iv);
          },
          onCall: (record: LlmCallRecord) => {
            keepLlmCall(record);
            if (record.usage) set({ spent: get().spent + record.usage.total });
          },
        },
        controller.signal,
      );
      const status: JobStatus = result.status === 'cancelled' ? stopAs : result.status;
      set({ status, tokens: result.tokens, failure: result.failure, spent: result.tokens.supervisorOverhead });
    } catch (e) {
      set({ status: 'failed', error: e instanceof Error ? e.message : String(e) });
    } finally {
      controller = undefined;
      storage()?.removeItem(RUNNING_JOB_KEY);
    }
  },
  pause() {
    if (!controller) return;
    stopAs = 'paused';
    set({ status: 'pausing' });
    controller.abort();
  },
  cancel() {
    if (!controller) return;
    stopAs = 'cancelled';
    set({ status: 'cancelling' });
    controller.abort();
  },
}));
