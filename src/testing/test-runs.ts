// Small valid runs for the store, database and worker tests.
import type { Annotation, Intervention, Run } from '../model/types.ts';

export function makeRun(id: string, patch: Partial<Run> = {}): Run {
  return {
    id,
    title: `Run ${id}`,
    sourceFormat: 'native',
    models: ['model-a'],
    outcome: { status: 'success' },
    tags: {},
    agents: [{ id: 'manager', name: 'manager' }],
    agentRuns: [{ id: `${id}:r0`, agentId: 'manager' }],
    steps: [
      { id: `${id}:s0`, index: 0, kind: 'action', agentId: 'manager', agentRunId: `${id}:r0`, number: 1 },
      { id: `${id}:s1`, index: 1, kind: 'llm', agentId: 'manager', parentStepId: `${id}:s0`, usage: { input: 10, output: 5, total: 15 } },
    ],
    handoffs: [],
    annotations: [],
    interventions: [],
    orphanSpans: 0,
    ...patch,
  };
}

export function makeAnnotation(id: string, stepId?: string): Annotation {
  return { id, stepId, source: 'dataset', taxonomy: 'TRAIL', code: 'Tool Output Misinterpretation' };
}

/** An intervention for job and store tests: approved, heuristic unless it carries tokens. */
export const testIntervention = (id: string, engine: Intervention['engine'], total?: number): Intervention => ({
  id,
  engine,
  stepId: id,
  action: 'approve',
  reason: 'r',
  heuristic: total === undefined,
  ...(total !== undefined ? { tokens: { input: total, output: 0, total } } : {}),
});
