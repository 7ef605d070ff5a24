// Putting one engine result into its run: an intervention, or a stage of the task-state view. Shared by the engines'
// keepers on the page and by the library's journal of results not yet written (src/store/results-journal.ts).
import type { Intervention, Run, Stage } from './types.ts';

/** The run with `iv` added, or replacing the intervention with the same id. */
export function withIntervention(run: Run, iv: Intervention): Run {
  const at = run.interventions.findIndex((i) => i.id === iv.id);
  const interventions = at === -1 ? [...run.interventions, iv] : run.interventions.map((i, k) => (k === at ? iv : i));
  return { ...run, interventions };
}

/** The run with `stage` added, or replacing the stage with the same id, in stage order. */
export function withStage(run: Run, stage: Stage): Run {
  const stages = [...(run.stages ?? []).filter((s) => s.id !== stage.id), stage].sort((a, b) => a.index - b.index);
  return { ...run, stages };
}
