// Putting one engine result into its run: an intervention, or a stage of the task-state view. Shared by the engines'
// keepers on the page and by the library's journal of results not yet written (src/store/results-journal.ts).
import type { Intervention, Run, Stage } from './types.ts';

/** The run with `iv` added, or replacing the intervention with the same id. */
export function withIntervention(run: Run, iv: Intervention): Run {
  const at = run.interventions.findIndex((i) => i.id === iv.id);
  const interventions = at === -1 ? [...run.interventions, iv] : run.interventions.map((i, k) => (k === at ? iv : i));
  return { ...run, interventions };
}

/**
 * `ivs.reduce(withIntervention, run)` in one pass: the results an engine sent together (src/store/job-store.ts) go in
 * with one copy of the run's interventions, not one copy each (an offline pass sends thousands in a few seconds).
 */
export function withInterventions(run: Run, ivs: readonly Intervention[]): Run {
  if (ivs.length === 0) return run;
  if (ivs.length === 1) return withIntervention(run, ivs[0]);
  // The last result of an id wins, at the place its first one took (a Map keeps the order of first insertion).
  const incoming = new Map<string, Intervention>();
  for (const iv of ivs) incoming.set(iv.id, iv);
  const interventions = run.interventions.map((i) => {
    const next = incoming.get(i.id);
    if (next === undefined) return i;
    incoming.delete(i.id);
    return next;
  });
  for (const iv of incoming.values()) interventions.push(iv);
  return { ...run, interventions };
}

/** `stages.reduce(withStage, run)`, sorted once. */
export function withStages(run: Run, stages: readonly Stage[]): Run {
  if (stages.length === 0) return run;
  if (stages.length === 1) return withStage(run, stages[0]);
  // In the order of their last arrival, as a stage sent again goes to the end before the sort.
  const incoming = new Map<string, Stage>();
  for (const stage of stages) {
    incoming.delete(stage.id);
    incoming.set(stage.id, stage);
  }
  const kept = (run.stages ?? []).filter((s) => !incoming.has(s.id));
  return { ...run, stages: [...kept, ...incoming.values()].sort((a, b) => a.index - b.index) };
}

/** The run with `stage` added, or replacing the stage with the same id, in stage order. */
export function withStage(run: Run, stage: Stage): Run {
  const stages = [...(run.stages ?? []).filter((s) => s.id !== stage.id), stage].sort((a, b) => a.index - b.index);
  return { ...run, stages };
}
