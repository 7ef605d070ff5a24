// The recorded endpoint calls a run refers to: its own turns' calls (runner and forks), its engines' interventions'
// and its derived stages'. What a session written for one run must carry so the run can be replayed offline.
import type { Run } from './types.ts';

export function llmCallIdsOf(run: Run): Set<string> {
  const ids = new Set<string>();
  for (const s of run.steps) if (s.runner?.llmCallId !== undefined) ids.add(s.runner.llmCallId);
  for (const iv of run.interventions) for (const id of iv.llmCallIds ?? []) ids.add(id);
  for (const stage of run.stages ?? []) for (const id of stage.llmCallIds ?? []) ids.add(id);
  return ids;
}
