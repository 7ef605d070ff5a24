// The clarifier pass the Taxonomy view runs: one at a time, kept across view changes. Every intervention is written
// into its run as it arrives, and every endpoint call into the library's call records, so IndexedDB keeps them.
import { create } from 'zustand';
import type { Intervention, Run } from '../../model/types.ts';
import { DEFAULT_WINDOW, type ClarifyFailure, type ClarifyProgress } from '../../engine/clarifier/index.ts';
import { useLibrary } from '../../store/library.ts';
import { keepIntervention, keepLlmCall } from '../../store/engine-results.ts';
import { effectiveMode, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { clarifyEdgeInWorker, runClarifierInWorker } from '../../workers/clarifier-client.ts';

export type ClarifierStatus = 'idle' | 'running' | 'cancelling' | 'cancelled' | 'failed' | 'complete';

interface ClarifierJobState {
  status: ClarifierStatus;
  runId?: string;
  mode?: 'offline' | 'endpoint';
  progress?: ClarifyProgress;
  failure?: ClarifyFailure;
  error?: string;
  /** The edge being clarified on its own (set while `startEdge` runs). */
  edgeId?: string;
  start(runId: string, options?: { fresh?: boolean; window?: number }): Promise<void>;
  /** Clarify (again) one edge only; its earlier result is replaced. */
  startEdge(runId: string, handoffId: string, window?: number): Promise<void>;
  cancel(): void;
}

export const clarifierInterventions = (run: Run): Intervention[] => run.interventions.filter((i) => i.engine === 'clarifier');

/** Results a pass in this mode keeps: with the endpoint, the offline flagger's verdicts are asked again. */
export const reusableResults = (run: Run, mode: 'offline' | 'endpoint'): Intervention[] =>
  clarifierInterventions(run).filter((i) => mode === 'offline' || !i.heuristic);

let controller: AbortController | undefined;

export const useClarifierJob = create<ClarifierJobState>((set) => ({
  status: 'idle',
  async start(runId, { fresh = false, window = DEFAULT_WINDOW } = {}) {
    if (controller) return;
    const library = useLibrary.getState();
    let run = library.runs[runId];
    if (!run) {
      set({ status: 'failed', runId, error: `run “${runId}” is not in the library`, failure: undefined });
      return;
    }
    if (fresh) {
      run = { ...run, interventions: run.interventions.filter((i) => i.engine !== 'clarifier') };
      library.updateRun(run);
    }
    const settings = useEngineSettings.getState();
    const mode = effectiveMode(settings.endpoint);
    const previous = reusableResults(run, mode);
    controller = new AbortController();
    set({ status: 'running', runId, mode, progress: { done: 0, total: run.handoffs.length, asked: 0 }, failure: undefined, error: undefined });
    try {
      const result = await runClarifierInWorker(
        { run, window, llm: mode === 'endpoint' ? toLlmSettings(settings.endpoint, settings.apiKey) : undefined, previous },
        {
          onProgress: (progress) => set({ progress }),
          onItem: (iv, resumed) => {
            if (!resumed) keepIntervention(runId, iv);
          },
          onCall: keepLlmCall,
        },
        controller.signal,
      );
      set({ status: result.status, failure: result.failure });
    } catch (e) {
      set({ status: 'failed', error: e instanceof Error ? e.message : String(e) });
    } finally {
      controller = undefined;
    }
  },
  async startEdge(runId, handoffId, window = DEFAULT_WINDOW) {
    if (controller) return;
    const run = useLibrary.getState().runs[runId];
    if (!run) return;
    const settings = useEngineSettings.getState();
    const mode = effectiveMode(settings.endpoint);
    controller = new AbortController();
    set({ status: 'running', runId, mode, edgeId: handoffId, progress: undefined, failure: undefined, error: undefined });
    try {
      const iv = await clarifyEdgeInWorker(
        { run, window, llm: mode === 'endpoint' ? toLlmSettings(settings.endpoint, settings.apiKey) : undefined, previous: clarifierInterventions(run) },
        handoffId,
        { onCall: keepLlmCall },
        controller.signal,
      );
      keepIntervention(runId, iv);
      set({ status: 'complete', edgeId: undefined });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const h = run.handoffs.find((x) => x.id === handoffId);
      set({
        status: controller.signal.aborted ? 'cancelled' : 'failed',
        edgeId: undefined,
        error: message,
        failure: h ? { edgeId: handoffId, position: run.handoffs.indexOf(h), sender: h.from, receiver: h.to.join(', '), message } : undefined,
      });
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
