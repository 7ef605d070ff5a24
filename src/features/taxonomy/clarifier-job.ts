// The clarifier pass the Taxonomy view runs (SPEC §5.3), through the shared job store: over every edge of a run, or
// (`edge`) one edge again, whose earlier result is then replaced.
import type { Intervention, Run } from '../../model/types.ts';
import { DEFAULT_WINDOW, type ClarifyFailure, type ClarifyProgress } from '../../engine/clarifier/index.ts';
import { keepIntervention } from '../../store/engine-results.ts';
import { createJobStore, withoutEngine, type StartOptions } from '../../store/job-store.ts';
import { clarifyEdgeInWorker, runClarifierInWorker } from '../../workers/clarifier-client.ts';

export interface ClarifierOptions extends StartOptions {
  window?: number;
  /** Clarify (again) this handoff only. */
  edge?: string;
}

export const clarifierInterventions = (run: Run): Intervention[] => run.interventions.filter((i) => i.engine === 'clarifier');

/** Results a pass in this mode keeps: with the endpoint, the offline flagger's verdicts are asked again. */
export const reusableResults = (run: Run, mode: 'offline' | 'endpoint'): Intervention[] =>
  clarifierInterventions(run).filter((i) => mode === 'offline' || !i.heuristic);

type Outcome = { status: 'complete' | 'cancelled' | 'failed'; failure?: ClarifyFailure };

export const useClarifierJob = createJobStore<ClarifierOptions, ClarifyProgress, Intervention, Outcome, ClarifyFailure, { edgeId?: string }>({
  name: 'clarifier',
  extra: { edgeId: undefined },
  launch(run, { fresh, window = DEFAULT_WINDOW, edge }, { mode, llm, updateRun }) {
    if (edge !== undefined) {
      const job = { run, window, llm, previous: clarifierInterventions(run) };
      return {
        extra: { edgeId: edge },
        start: (events, signal) =>
          clarifyEdgeInWorker(job, edge, { onCall: events.onCall }, signal).then(
            (iv): Outcome => {
              events.onItem(iv, false);
              return { status: 'complete' };
            },
            (e: unknown): Outcome => {
              const message = e instanceof Error ? e.message : String(e);
              const h = run.handoffs.find((x) => x.id === edge);
              const failure = h ? { edgeId: edge, position: run.handoffs.indexOf(h), sender: h.from, receiver: h.to.join(', '), message } : undefined;
              return { status: signal.aborted ? 'cancelled' : 'failed', failure };
            },
          ),
        finish: (result) => ({ edgeId: undefined, error: result.failure?.message }),
      };
    }
    if (fresh) updateRun((run = withoutEngine(run, 'clarifier')));
    const previous = reusableResults(run, mode);
    return {
      progress: { done: 0, total: run.handoffs.length, asked: 0 },
      start: (events, signal) => runClarifierInWorker({ run, window, llm, previous }, events, signal),
    };
  },
  keep: keepIntervention,
});
