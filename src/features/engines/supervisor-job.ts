// The supervisor replay the engines panel runs: one at a time, kept across view changes (a person can watch the run
// view while it works). Every intervention is written into its run as it arrives, and every endpoint call into the
// library's call records, so the library's IndexedDB persistence keeps them whatever happens next.
import { create } from 'zustand';
import type { Intervention, LlmCallRecord, Run } from '../../model/types.ts';
import type { ShadowFailure, ShadowProgress, TokenSummary } from '../../engine/supervisor/index.ts';
import { useLibrary } from '../../store/library.ts';
import { effectiveMode, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { runSupervisorInWorker } from '../../workers/supervisor-client.ts';

export type JobStatus = 'idle' | 'running' | 'pausing' | 'paused' | 'cancelling' | 'cancelled' | 'failed' | 'complete';

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
  start(runId: string, options?: { fresh?: boolean }): Promise<void>;
  pause(): void;
  cancel(): void;
}

export function supervisorInterventions(run: Run): Intervention[] {
  return run.interventions.filter((i) => i.engine === 'supervisor');
}

/** The run with `iv` added, or replacing the intervention with the same id. */
export function withIntervention(run: Run, iv: Intervention): Run {
  const at = run.interventions.findIndex((i) => i.id === iv.id);
  const interventions = at === -1 ? [...run.interventions, iv] : run.interventions.map((i, k) => (k === at ? iv : i));
  return { ...run, interventions };
}

export function tokensOf(interventions: readonly Intervention[]): number {
  return interventions.reduce((sum, i) => sum + (i.tokens?.total ?? 0), 0);
}

let controller: AbortController | undefined;
let stopAs: 'paused' | 'cancelled' = 'cancelled';

export const useSupervisorJob = create<JobState>((set, get) => ({
  status: 'idle',
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
    set({
      status: 'running',
      runId,
      mode,
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
          onIntervention: (iv, resumed) => {
            if (resumed) return;
            const current = useLibrary.getState().runs[runId];
            if (current) useLibrary.getState().updateRun(withIntervention(current, iv));
          },
          onCall: (record: LlmCallRecord) => {
            useLibrary.setState((s) => ({ llmCalls: { ...s.llmCalls, [record.id]: record } }));
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
