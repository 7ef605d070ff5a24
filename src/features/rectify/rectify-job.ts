// The rectify-or-reject replay the Rectify view runs: one at a time, kept across view changes. Every message's result
// is written into its run as it arrives (and every endpoint call into the library's call records), so IndexedDB keeps
// them whatever happens next; a new replay of a run first removes that run's earlier rectifier results.
import { create } from 'zustand';
import type { LlmCallRecord } from '../../model/types.ts';
import { DEFAULT_RECTIFY_PARAMS, DOMAINS, RECTIFIER_ENGINE, type RectifyParams, type RectifyProgress, type RectifyRunResult } from '../../engine/rectifier/index.ts';
import { useLibrary } from '../../store/library.ts';
import { keepIntervention, keepLlmCall } from '../../store/engine-results.ts';
import { usePool } from '../../store/indicator-pool.ts';
import { effectiveMode, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { rectifyInWorker } from '../../workers/rectifier-client.ts';

const PARAMS_KEY = 'mas-replay:rectifier-params';

export function parseParams(text: string | null): RectifyParams {
  const d = DEFAULT_RECTIFY_PARAMS;
  let raw: Record<string, unknown> = {};
  try {
    const v: unknown = text ? JSON.parse(text) : {};
    if (v && typeof v === 'object' && !Array.isArray(v)) raw = v as Record<string, unknown>;
  } catch {
    // corrupt: defaults
  }
  const whole = (v: unknown, fallback: number, min: number, max: number) => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : fallback);
  return {
    k: whole(raw.k, d.k, 1, 50),
    tMax: whole(raw.tMax, d.tMax, 1, 10),
    gamma: whole(raw.gamma, d.gamma, 0, 1000),
    domain: typeof raw.domain === 'string' && (DOMAINS as readonly string[]).includes(raw.domain) ? (raw.domain as RectifyParams['domain']) : d.domain,
    zeroShot: raw.zeroShot === true,
    auditRetries: whole(raw.auditRetries, d.auditRetries, 0, 5),
  };
}

const storage = (): Storage | undefined => {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
};

export const useRectifyParams = create<{ params: RectifyParams; set(patch: Partial<RectifyParams>): void }>((set, get) => ({
  params: parseParams(storage()?.getItem(PARAMS_KEY) ?? null),
  set(patch) {
    const params = { ...get().params, ...patch };
    set({ params });
    try {
      storage()?.setItem(PARAMS_KEY, JSON.stringify(params));
    } catch {
      // storage refused: the values hold for this session
    }
  },
}));

export type RectifyJobStatus = 'idle' | 'preparing' | 'running' | 'cancelling' | 'cancelled' | 'failed' | 'complete';

interface RectifyJobState {
  status: RectifyJobStatus;
  runId?: string;
  mode?: 'offline' | 'endpoint';
  poolProgress?: { done: number; total: number };
  progress?: RectifyProgress;
  spent: number;
  result?: RectifyRunResult;
  error?: string;
  start(runId: string, options?: { resume?: boolean }): Promise<void>;
  cancel(): void;
}

let controller: AbortController | undefined;

export const useRectifyJob = create<RectifyJobState>((set, get) => ({
  status: 'idle',
  spent: 0,
  async start(runId, { resume = false } = {}) {
    if (controller) return;
    const library = useLibrary.getState();
    let run = library.runs[runId];
    const pool = usePool.getState().pool;
    const params = useRectifyParams.getState().params;
    if (!run) return set({ status: 'failed', runId, error: `run “${runId}” is not in the library` });
    if (!pool && !params.zeroShot) return set({ status: 'failed', runId, error: 'load an indicator pool first (or choose zero-shot mode)' });
    if (!resume) {
      run = { ...run, interventions: run.interventions.filter((i) => i.engine !== RECTIFIER_ENGINE) };
      library.updateRun(run);
    }
    const settings = useEngineSettings.getState();
    const mode = effectiveMode(settings.endpoint);
    const previous = run.interventions.filter((i) => i.engine === RECTIFIER_ENGINE && i.stepId);
    controller = new AbortController();
    set({ status: mode === 'endpoint' && !params.zeroShot ? 'preparing' : 'running', runId, mode, progress: undefined, poolProgress: undefined, spent: 0, result: undefined, error: undefined });
    try {
      const result = await rectifyInWorker(
        {
          run,
          pool: pool ?? { name: 'general', indicators: [] },
          params,
          llm: mode === 'endpoint' ? toLlmSettings(settings.endpoint, settings.apiKey) : undefined,
          previous,
        },
        {
          onPoolProgress: (done, total) => set({ poolProgress: { done, total } }),
          onProgress: (progress) => set({ progress, status: get().status === 'preparing' ? 'running' : get().status }),
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
      set({ status: result.status, result, spent: result.overhead.total, error: result.failure?.message });
    } catch (e) {
      set({ status: 'failed', error: e instanceof Error ? e.message : String(e) });
    } finally {
      controller = undefined;
    }
  },
  cancel() {
    if (!controller) return;
    set({ status: 'cancelling' });
    controller.abort();
  },
}));
