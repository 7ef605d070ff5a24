// The rectify-or-reject replay the Rectify view runs (SPEC §5.2), through the shared job store, with the parameters of
// the settings store: one at a time, every message's result kept as it arrives; a fresh replay first removes the
// run's earlier rectifier results.
import type { Intervention, Run } from '../../model/types.ts';
import {
  RECTIFIER_ENGINE,
  type RectifyFailure,
  type RectifyProgress,
  type RectifyRunResult,
} from '../../engine/rectifier/index.ts';
import { keepInterventions } from '../../store/engine-results.ts';
import { usePool } from '../../store/indicator-pool.ts';
import { createJobStore, withoutEngine, type StartOptions } from '../../store/job-store.ts';
import { rectifyInWorker } from '../../workers/rectifier-client.ts';
import type { JobResult } from '../../workers/pump.ts';

export const rectifierResults = (run: Run) => run.interventions.filter((i) => i.engine === RECTIFIER_ENGINE && i.stepId);

interface RectifyExtra {
  /** The pass embeds the pool's trigger conditions before its first message. */
  embedsPool: boolean;
  poolProgress?: { done: number; total: number };
  /** Without its interventions: each was kept in the run as it came. */
  result?: JobResult<RectifyRunResult>;
}

export const useRectifyJob = createJobStore<StartOptions, RectifyProgress, Intervention, JobResult<RectifyRunResult>, RectifyFailure, RectifyExtra>({
  name: 'rectifier',
  extra: { embedsPool: false, poolProgress: undefined, result: undefined },
  launch(run, { fresh }, { mode, llm, settings, updateRun, patch }) {
    const pool = usePool.getState().pool;
    const params = settings.rectifier;
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
  keep: keepInterventions,
});
