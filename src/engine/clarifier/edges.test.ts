// Edge states kept per handoffs array (the taxonomy's edge list of a large run): a label saved makes a new run object
// with the same handoffs, agents and steps, and its states are known at once; any other input changed works them out
// again. The sliced build gives what the whole-run one gives.
import { describe, expect, it } from 'vitest';
import { finish } from '../../model/slices.ts';
import type { Handoff, Run, Step } from '../../model/types.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { edgeStates, edgeStatesSlices, knownEdgeStates } from './edges.ts';

function chat(n: number): Run {
  const agents = ['a', 'b', 'c'].map((id) => ({ id, name: id.toUpperCase() }));
  const steps: Step[] = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, index: i, kind: 'message', agentId: agents[i % 3].id, output: `m${i}` }));
  const handoffs: Handoff[] = steps.map((s, i) => ({ id: `h${i}`, from: s.agentId, to: [agents[(i + 1) % 3].id], kind: 'message', stepId: s.id, content: `m${i}` }));
  return makeRun('chat', { agents, agentRuns: [], steps, handoffs, task: 'the task' });
}

describe('edge states', () => {
  it('are known for a relabelled run, and worked out again when another input or the window changes', () => {
    const run = chat(50);
    expect(knownEdgeStates(run)).toBeUndefined();
    const states = edgeStates(run);
    expect(knownEdgeStates(run)).toBe(states);
    const labelled: Run = { ...run, annotations: [{ id: 'l', handoffId: 'h3', source: 'human', taxonomy: 'AgentAsk', code: 'DG' }] };
    expect(knownEdgeStates(labelled)).toBe(states);
    expect(edgeStates(labelled)).toBe(states);
    expect(knownEdgeStates(run, 5)).toBeUndefined();
    const renamed: Run = { ...run, agents: run.agents.map((a) => ({ ...a, name: `${a.name}!` })) };
    expect(knownEdgeStates(renamed)).toBeUndefined();
    expect(edgeStates(renamed)[0].sender.name).toBe('A!');
    expect(knownEdgeStates({ ...run, task: 'another task' })).toBeUndefined();
    expect(knownEdgeStates({ ...run, steps: run.steps.slice() })).toBeUndefined();
  });

  it('built a slice at a time equal the states built in one call', () => {
    const run = chat(5000);
    const slices = edgeStatesSlices(structuredClone(run), 4);
    let yields = 0;
    let r = slices.next();
    while (!r.done) {
      yields++;
      r = slices.next();
    }
    expect(yields).toBeGreaterThan(1);
    expect(r.value).toEqual(finish(edgeStatesSlices(structuredClone(run), 4)));
    expect(r.value[4999].history.map((h) => h.message)).toEqual(['m4995', 'm4996', 'm4997', 'm4998']);
  });
  it("names a handoff's subgoal from its step's agent run, the last step of an id counting", () => {
    const agents = [{ id: 'a', name: 'A' }, { id: 'b', name: 'B' }];
    const steps: Step[] = [
      { id: 's0', index: 0, kind: 'message', agentId: 'a', agentRunId: 'r1', output: 'first' },
      { id: 's1', index: 1, kind: 'message', agentId: 'b', agentRunId: 'r1', output: 'second' },
      // The same id again, in another agent run: as in a Map filled in step order, this one is the id's step.
      { id: 's1', index: 2, kind: 'message', agentId: 'b', agentRunId: 'r2', output: 'again' },
    ];
    const handoffs: Handoff[] = [
      { id: 'h0', from: 'a', to: ['b'], content: 'first', stepId: 's0', kind: 'message' },
      { id: 'h1', from: 'b', to: ['a'], content: 'second', stepId: 's1', kind: 'message' },
      { id: 'h2', from: 'b', to: ['a'], content: 'none', stepId: 'missing', kind: 'message' },
    ];
    const run = makeRun('sub', { agents, agentRuns: [{ id: 'r1', agentId: 'a', task: 'look it up' }, { id: 'r2', agentId: 'b', task: 'check it' }], steps, handoffs, task: 'the task' });
    const states = edgeStates(run);
    expect(states.map((e) => e.subgoal)).toEqual(['look it up', 'check it', undefined]);
    expect(states.map((e) => e.stepId)).toEqual(['s0', 's1', 'missing']);
  });
});
