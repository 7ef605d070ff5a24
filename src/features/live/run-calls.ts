// The recorded endpoint calls a live run refers to (its turns and its engines' interventions).
import type { LlmCallRecord, Run } from '../../model/types.ts';

export function callIdsOf(run: Run): Set<string> {
  const ids = new Set<string>();
  for (const s of run.steps) if (typeof s.raw?.llmCallId === 'string') ids.add(s.raw.llmCallId);
  for (const iv of run.interventions) for (const id of iv.llmCallIds ?? []) ids.add(id);
  return ids;
}

/** Take the run's calls out of a pool of reported calls (so the pool does not grow over a long batch). */
export function takeCallsOf(run: Run, pool: Map<string, LlmCallRecord>): LlmCallRecord[] {
  const out: LlmCallRecord[] = [];
  for (const id of callIdsOf(run)) {
    const c = pool.get(id);
    if (c) {
      out.push(c);
      pool.delete(id);
    }
  }
  return out;
}
