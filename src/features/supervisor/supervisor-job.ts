// The supervisor's shadow replay as the engines panel runs it (SPEC §5.1), through the shared job store: one at a
// time, every intervention kept as it is made, interrupted by a reload → Resume continues without asking again.
import type { Intervention, Run } from '../../model/types.ts';
import type { ShadowFailure, ShadowProgress, TokenSummary } from '../../engine/supervisor/index.ts';
import { keepInterventions } from '../../store/engine-results.ts';
import { createJobStore, withoutEngine, type StartOptions } from '../../store/job-store.ts';
import { runSupervisorInWorker, type EngineCost, type SupervisorJobResult } from '../../workers/supervisor-client.ts';

export const isSupervisorIntervention = (i: Intervention): boolean => i.engine === 'supervisor';

export function supervisorInterventions(run: Run): Intervention[] {
  return run.interventions.filter(isSupervisorIntervention);
}

export function tokensOf(interventions: readonly Intervention[]): number {
  return interventions.reduce((sum, i) => sum + (i.tokens?.total ?? 0), 0);
}

export const useSupervisorJob = createJobStore<StartOptions, ShadowProgress, Intervention, SupervisorJobResult, ShadowFailure, { tokens?: TokenSummary; cost?: EngineCost }>({
  name: 'supervisor',
  extra: { tokens: undefined, cost: undefined },
  launch(run, { fresh }, { llm, settings, updateRun }) {
    if (fresh) updateRun((run = withoutEngine(run, 'supervisor')));
    const previous = supervisorInterventions(run);
    const { tauStep, tauLoop, tauLen, nonCriticalErrors } = settings.supervisor;
    return {
      spent: tokensOf(previous),
      progress: { done: 0, total: run.steps.length, triggers: 0, interventions: 0 },
      start: (events, signal) => runSupervisorInWorker({ run, thresholds: { tauStep, tauLoop, tauLen }, nonCriticalErrors, llm, previous }, events, signal),
      extra: { cost: undefined },
      finish: (result) => ({ tokens: result.tokens, cost: result.cost, spent: result.tokens.supervisorOverhead }),
    };
  },
  keep: keepInterventions,
});
