// Deriving a run's stages from the stage view: offline (segmentation heuristic) or through the endpoint (Planner →
// Evaluator → Updater), one job at a time, in the stages worker. Stages are written into the run as they arrive and
// every endpoint call into the library's call records, so IndexedDB keeps them whatever happens next; the derived
// stages export with the native session.
import { create } from 'zustand';
import type { LlmCallRecord, Run, Stage } from '../../model/types.ts';
import type { StagePassFailure, StagePassProgress } from '../../engine/stages/index.ts';
import { useLibrary } from '../../store/library.ts';
import { keepLlmCall, keepRunChange } from '../../store/engine-results.ts';
import { toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { deriveStagesInWorker } from '../../workers/stages-client.ts';

export type StagesJobStatus = 'idle' | 'running' | 'cancelling' | 'cancelled' | 'failed' | 'complete';

export interface StagesJobState {
  status: StagesJobStatus;
  runId?: string;
  mode?: 'offline' | 'endpoint';
  progress?: StagePassProgress;
  /** Endpoint tokens spent on this run's stages so far (earlier, interrupted passes included). */
  spent: number;
  failure?: StagePassFailure;
  /** The worker itself failed, or the run cannot be derived. */
  error?: string;
  start(runId: string, mode: 'offline' | 'endpoint', options?: { fresh?: boolean }): Promise<void>;
  cancel(): void;
}

/** Stages recorded by the system that ran (not derived here): deriving would overwrite them, so it is refused. */
export const hasRecordedStages = (run: Run) => (run.stages ?? []).some((s) => s.derivedBy === undefined);

/** The LLM-derived stages of a run, when all its stages are (an interrupted pass leaves a prefix of them). */
export function llmStages(run: Run): Stage[] {
  const stages = run.stages ?? [];
  return stages.length > 0 && stages.every((s) => s.derivedBy === 'llm') ? stages : [];
}

/** The run with `stage` added, or replacing the stage with the same id, in stage order. */
export function withStage(run: Run, stage: Stage): Run {
  const stages = [...(run.stages ?? []).filter((s) => s.id !== stage.id), stage].sort((a, b) => a.index - b.index);
  return { ...run, stages };
}

const tokensOf = (stages: readonly Stage[]) => stages.reduce((sum, s) => sum + (s.tokens?.total ?? 0), 0);

let controller: AbortController | undefined;

export const useStagesJob = create<StagesJobState>((set, get) => ({
  status: 'idle',
  spent: 0,
  async start(runId, mode, { fresh = false } = {}) {
    if (controller) return;
    const library = useLibrary.getState();
    const run = library.runs[runId];
    if (!run) {
      set({ status: 'failed', runId, mode, error: `run “${runId}” is not in the library`, failure: undefined });
      return;
    }
    if (hasRecordedStages(run)) {
      set({ status: 'failed', runId, mode, error: 'this run carries recorded stages; deriving would replace them', failure: undefined });
      return;
    }
    const settings = useEngineSettings.getState();
    const previous = mode === 'endpoint' && !fresh ? llmStages(run) : [];
    if (mode === 'endpoint') library.updateRun({ ...run, stages: previous });
    controller = new AbortController();
    // Callbacks come over their own message channel and may arrive after the result: once the result is in, it is
    // the authority on progress and tokens (late stages and call records are still stored).
    let settled = false;
    set({ status: 'running', runId, mode, progress: undefined, spent: tokensOf(previous), failure: undefined, error: undefined });
    try {
      const result = await deriveStagesInWorker(
        { run, llm: mode === 'endpoint' ? toLlmSettings(settings.endpoint, settings.apiKey) : undefined, previous },
        {
          onProgress: (progress) => {
            if (!settled) set({ progress });
          },
          onItem: (stage, resumed) => {
            if (!resumed) keepRunChange(runId, (run) => withStage(run, stage));
          },
          onCall: (record: LlmCallRecord) => {
            keepLlmCall(record);
            if (record.usage && !settled) set({ spent: get().spent + record.usage.total });
          },
        },
        controller.signal,
      );
      settled = true;
      if (mode === 'offline') {
        const current = useLibrary.getState().runs[runId];
        if (current) useLibrary.getState().updateRun({ ...current, stages: result.stages });
      }
      set({
        status: result.status,
        failure: result.failure,
        spent: tokensOf(previous) + result.tokens.total,
        progress: { done: result.stages.length, total: result.total, calls: result.calls, tokens: result.tokens.total },
      });
    } catch (e) {
      settled = true;
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
