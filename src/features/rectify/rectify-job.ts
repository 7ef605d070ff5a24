// The rectify-or-reject replay the Rectify view runs: one at a time, kept across view changes. Every message's result
// is written into its run as it arrives (and every endpoint call into the library's call records), so IndexedDB keeps
// them whatever happens next; a new replay of a run first removes that run's earlier rectifier results.
import { create } from 'zustand';
import type { Intervention, Run } from '../../model/types.ts';
import {
  DEFAULT_RECTIFY_PARAMS,
  DOMAINS,
  RECTIFIER_ENGINE,
  type RectifyFailure,
  type RectifyParams,
  type RectifyProgress,
  type RectifyRunResult,
} from '../../engine/rectifier/index.ts';
import { keepIntervention } from '../../store/engine-results.ts';
import { usePool } from '../../store/indicator-pool.ts';
import { createJobStore, withoutEngine, type StartOptions } from '../../store/job-store.ts';
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

export const rectifierResults = (run: Run) => run.interventions.filter((i) => i.engine === RECTIFIER_ENGINE && i.stepId);

interface RectifyExtra {
  /** The pass embeds the pool's trigger conditions before its first message. */
  embedsPool: boolean;
  poolProgress?: { done: number; total: number };
  result?: RectifyRunResult;
}

export const useRectifyJob = createJobStore<StartOptions, RectifyProgress, Intervention, RectifyRunResult, RectifyFailure, RectifyExtra>({
  name: 'rectifier',
  extra: { embedsPool: false, poolProgress: undefined, result: undefined },
  launch(run, { fresh }, { mode, llm, updateRun, patch }) {
    const pool = usePool.getState().pool;
    const params = useRectifyParams.getState().params;
    if (!pool && !params.zeroShot) return 'load an indicator pool first (or choose zero-shot mode)';
    if (fresh) updateRun((run = withoutEngine(run, RECTIFIER_ENGINE)));
    const previous = rectifierResults(run);
    return {
      extra: { embedsPool: mode === 'endpoint' && !params.zeroShot },
      start: (events, signal) =>
        rectifyInWorker(
          { run, pool: pool ?? { name: 'general', indicators: [] }, params, llm, previous },
          { ...events, onPoolProgress: (done, total) => patch({ poolProgress: { done, total } }) },
          signal,
        ),
      finish: (result) => ({ result, spent: result.overhead.total }),
    };
  },
  keep: keepIntervention,
});
