// Deriving a run's stages (SPEC §5.4) through the shared job store: offline (segmentation heuristic) or through the
// endpoint (Planner → Evaluator → Updater), in the stages worker. Stages are kept in the run as they arrive; the
// derived stages export with the native session.
import type { Run, Stage } from '../../model/types.ts';
import type { StagePassFailure, StagePassProgress, StagePassResult } from '../../engine/stages/index.ts';
import { keepStages } from '../../store/engine-results.ts';
import type { EngineMode } from '../../store/engine-settings.ts';
import { createJobStore, type StartOptions } from '../../store/job-store.ts';
import { deriveStagesInWorker } from '../../workers/stages-client.ts';
import type { EngineCost } from '../../workers/stages-client.ts';

export interface StagesOptions extends StartOptions {
  mode: EngineMode;
}

/** Stages recorded by the system that ran (not derived here): deriving would overwrite them, so it is refused. */
export const hasRecordedStages = (run: Run) => (run.stages ?? []).some((s) => s.derivedBy === undefined);

/** The LLM-derived stages of a run, when all its stages are (an interrupted pass leaves a prefix of them). */
export function llmStages(run: Run): Stage[] {
  const stages = run.stages ?? [];
  return stages.length > 0 && stages.every((s) => s.derivedBy === 'llm') ? stages : [];
}

const tokensOf = (stages: readonly Stage[]) => stages.reduce((sum, s) => sum + (s.tokens?.total ?? 0), 0);

export const useStagesJob = createJobStore<StagesOptions, StagePassProgress, Stage, StagePassResult, StagePassFailure, { cost?: EngineCost }>({
  name: 'stages',
  extra: { cost: undefined },
  mode: (options) => (options.mode === 'endpoint' ? 'endpoint' : 'offline'),
  launch(run, { fresh }, { mode, llm, updateRun, getRun }) {
    if (hasRecordedStages(run)) return 'this run carries recorded stages; deriving would replace them';
    const previous = mode === 'endpoint' && !fresh ? llmStages(run) : [];
    if (mode === 'endpoint') updateRun({ ...run, stages: previous });
    return {
      spent: tokensOf(previous),
      extra: { cost: undefined },
      start: (events, signal) => deriveStagesInWorker({ run, llm, previous }, events, signal),
      finish: (result) => {
        if (mode === 'offline') {
          const current = getRun(run.id);
          if (current) updateRun({ ...current, stages: result.stages });
        }
        return {
          cost: result.cost,
          spent: tokensOf(previous) + result.tokens.total,
          progress: { done: result.stages.length, total: result.total, calls: result.calls, tokens: result.tokens.total },
        };
      },
    };
  },
  keep: keepStages,
});
