// Scale (issue 17, item 9): a run with 200,000 agents — side by side, or each managing the next — gets its summary,
// interaction graph and run view without a stack overflow (a spread into Math.max, a recursive walk) and in linear
// time (depths and kept lanes used to climb the whole hierarchy once per agent).
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../model/summary.ts';
import type { Run, Step } from '../../model/types.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { buildRunView } from './run-view-model.ts';

function runWithAgents(n: number, { chain }: { chain: boolean }): Run {
  const agents = Array.from({ length: n }, (_, i) => ({ id: `a${i}`, name: `agent ${i}`, ...(chain && i > 0 ? { parentId: `a${i - 1}` } : {}) }));
  const steps: Step[] = agents.map((a, i) => ({ id: `s${i}`, index: i, kind: 'llm', agentId: a.id, startTime: i, endTime: i + 1, usage: { input: 1, output: 1, total: 2 } }));
  const handoffs = agents.slice(1).map((a, i) => ({ id: `h${i}`, from: `a${i}`, to: [a.id], kind: 'message' as const, content: 'next', stepId: `s${i + 1}` }));
  return makeRun('big', { agents, agentRuns: [], steps, handoffs });
}

describe('a run with 200,000 agents', () => {
  it.each([false, true])('chain %s: summary, graph and run view', (chain) => {
    const n = 200_000;
    const run = runWithAgents(n, { chain });
    expect(summarizeRun(run).agents).toHaveLength(n);
    const view = buildRunView(run);
    expect(view.graph.nodes.filter((node) => node.kind === 'agent')).toHaveLength(n);
    expect(view.lanes).toHaveLength(n);
    expect(view.lanes[n - 1].depth).toBe(chain ? n - 1 : 0);
    expect(view.graph.nodes.find((node) => node.id.endsWith(`a${n - 1}`))?.depth).toBe(chain ? n - 1 : 0);
  }, 60_000);
});

describe('lanes and depths in odd hierarchies', () => {
  it('keeps a manager that never acts only when someone under it acts; a cycle gets depths from its length', () => {
    const run = makeRun('odd', {
      agents: [
        { id: 'boss', name: 'boss' },
        { id: 'mid', name: 'mid', parentId: 'boss' },
        { id: 'doer', name: 'doer', parentId: 'mid' },
        { id: 'idle-boss', name: 'idle-boss' },
        { id: 'idle', name: 'idle', parentId: 'idle-boss' },
        { id: 'c1', name: 'c1', parentId: 'c2' },
        { id: 'c2', name: 'c2', parentId: 'c1' },
        { id: 'tail', name: 'tail', parentId: 'c1' },
      ],
      agentRuns: [],
      steps: ['doer', 'c1', 'tail'].map((agentId, index) => ({ id: `s${index}`, index, kind: 'llm', agentId })),
    });
    const view = buildRunView(run);
    expect(view.lanes.map((l) => `${l.name}@${l.depth}`)).toEqual(['boss@0', 'mid@1', 'doer@2', 'c1@0', 'tail@1']);
    const depth = (id: string) => view.graph.nodes.find((node) => node.agentId === id && node.kind === 'agent')?.depth;
    expect([depth('boss'), depth('mid'), depth('doer'), depth('c1'), depth('c2'), depth('tail')]).toEqual([0, 1, 2, 1, 1, 2]);
  });
});
