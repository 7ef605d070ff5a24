// The recorded endpoint calls a live run refers to (its turns and its engines' interventions), taken from the pool.
import { llmCallIdsOf } from '../../model/llm-calls.ts';
import type { LlmCallRecord, Run } from '../../model/types.ts';

/** Take the run's calls out of a pool of reported calls (so the pool does not grow over a long batch). */
export function takeCallsOf(run: Run, pool: Map<string, LlmCallRecord>): LlmCallRecord[] {
  const out: LlmCallRecord[] = [];
  for (const id of llmCallIdsOf(run)) {
    const c = pool.get(id);
    if (c) {
      out.push(c);
      pool.delete(id);
    }
  }
  return out;
}
