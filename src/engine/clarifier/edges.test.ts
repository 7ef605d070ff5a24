// Edge states kept per handoffs array (the taxonomy's edge list of a large run): a label saved makes a new run object
// with the same handoffs, agents and steps, and its states are known at once; any other input changed works them out
// again. The sliced build gives what the whole-run one gives, and the states made on demand (ADR 0089) are those the
// plain reading of SPEC §5.3 below gives, on made runs and on every real trace.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finish } from '../../model/slices.ts';
import type { Agent, Handoff, Run, Step } from '../../model/types.ts';
import { HAVE_SHARED, SKIP_REASON, sharedRuns } from '../../testing/fixture-kit.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { edgeStateList, edgeStates, edgeStatesSlices, knownEdgeStates, type EdgeAgent, type EdgeState, type HistoryEntry } from './edges.ts';

/**
 * The edge states as SPEC §5.3 reads, worked out the plain way (each state and history built in one walk, as the
 * studio did before its states were made on demand): the reference the list is checked against.
 */
function plainStates(run: Run, window: number): EdgeState[] {
  const prompts = new Map<string, string>();
  for (const step of run.steps) {
    if (prompts.has(step.agentId) || !step.input) continue;
    const system = step.input.find((m) => m.role === 'system' && m.content.trim() !== '');
    if (system) prompts.set(step.agentId, system.content);
  }
  const find = (ref: string): Agent | undefined => run.agents.find((a) => a.id === ref) ?? run.agents.find((a) => a.name === ref);
  const agentOf = (ref: string): EdgeAgent => {
    const a = find(ref);
    const role = a?.role ?? a?.description;
    const prompt = a && prompts.get(a.id);
    return a ? { id: a.id, name: a.name, ...(role ? { role } : {}), ...(prompt ? { prompt } : {}), ...(a.kind ? { kind: a.kind } : {}) } : { id: ref, name: ref };
  };
  const stepOf = (id: string): Step | undefined => run.steps.findLast((s) => s.id === id);
  const task = run.task ?? '';
  const past: { involved: string[]; entry: HistoryEntry }[] = [];
  return run.handoffs.map((h, position) => {
    const sender = agentOf(h.from);
    const receivers = (h.to.length > 0 ? h.to : ['?']).map(agentOf);
    const involved = [...new Set([sender.id, ...receivers.map((r) => r.id)])];
    // Per involved agent, its `window` latest earlier handoffs; of all those, the `window` latest, oldest first.
    const recent = new Set<number>();
    for (const id of involved) {
      const mine = past.flatMap((p, i) => (p.involved.includes(id) ? [i] : []));
      for (const i of mine.slice(Math.max(0, mine.length - window))) recent.add(i);
    }
    const positions = [...recent].sort((x, y) => x - y);
    const history = window > 0 ? positions.slice(Math.max(0, positions.length - window)).map((i) => past[i].entry) : [];
    const step = h.stepId !== undefined ? stepOf(h.stepId) : undefined;
    const local = step?.agentRunId !== undefined ? run.agentRuns.find((r) => r.id === step.agentRunId)?.task : undefined;
    const state: EdgeState = { id: h.id, task, sender, receiver: receivers[0], receivers, message: h.content, history, kind: h.kind, position };
    if (local && local.trim() !== task.trim()) state.subgoal = local;
    if (h.stepId !== undefined) state.stepId = h.stepId;
    past.push({ involved, entry: { from: sender.name, to: receivers.map((r) => r.name).join(', '), message: h.content } });
    return state;
  });
}

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
    const states = edgeStateList(run);
    expect(knownEdgeStates(run)).toBe(states);
    const labelled: Run = { ...run, annotations: [{ id: 'l', handoffId: 'h3', source: 'human', taxonomy: 'AgentAsk', code: 'DG' }] };
    expect(knownEdgeStates(labelled)).toBe(states);
    expect(edgeStateList(labelled)).toBe(states);
    expect(edgeStates(labelled)).toBe(edgeStates(run));
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
    expect(r.value.all()).toEqual(finish(edgeStatesSlices(structuredClone(run), 4)).all());
    expect(r.value.at(4999).history.map((h) => h.message)).toEqual(['m4995', 'm4996', 'm4997', 'm4998']);
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

  it('made on demand, in any order, equal the plain reading of SPEC §5.3; the same position gives the same object', () => {
    const names = ['a', 'b', 'c', 'd'];
    const handoff = fc.record({
      from: fc.constantFrom(...names, 'B', 'stranger'),
      to: fc.array(fc.constantFrom(...names, 'C', 'stranger'), { maxLength: 3 }),
      step: fc.option(fc.nat(12), { nil: undefined }),
      id: fc.constantFrom('x', 'y', 'z', 'w', 'v', 'u'),
      // The previous handoff's own receiver array (the page's interned arrays share one among equal lists).
      sameTo: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(handoff, { maxLength: 40 }), fc.nat(5), fc.boolean(), (made, window, backwards) => {
        const agents: Agent[] = names.map((id, i) => ({ id, name: id.toUpperCase(), ...(i === 1 ? { role: 'checks' } : {}), ...(i === 3 ? { kind: 'human' as const } : {}) }));
        const steps: Step[] = Array.from({ length: 10 }, (_, i) => ({
          id: `s${i % 8}`, index: i, kind: 'llm', agentId: names[i % 4], agentRunId: `r${i % 3}`,
          ...(i === 2 ? { input: [{ role: 'system' as const, content: 'You check figures.' }] } : {}),
        }));
        const handoffs: Handoff[] = [];
        for (const [i, h] of made.entries()) {
          const to = h.sameTo && i > 0 ? handoffs[i - 1].to : h.to;
          handoffs.push({ id: `${h.id}${i % 7}`, from: h.from, to, kind: 'message', content: `m${i}`, ...(h.step !== undefined ? { stepId: `s${h.step}` } : {}) });
        }
        const agentRuns = [{ id: 'r0', agentId: 'a', task: 'the task ' }, { id: 'r1', agentId: 'b', task: 'look it up' }];
        const run = makeRun('prop', { agents, agentRuns, steps, handoffs, task: 'the task' });
        const list = edgeStateList(run, window);
        const expected = plainStates(run, window);
        const order = expected.map((_, i) => (backwards ? expected.length - 1 - i : i));
        for (const i of order) expect(list.at(i)).toEqual(expected[i]);
        for (const i of order) expect(list.at(i)).toBe(list.at(i));
        for (const [i, h] of handoffs.entries()) {
          expect(list.idAt(i)).toBe(h.id);
          expect(list.indexOf(h.id)).toBe(handoffs.findIndex((x) => x.id === h.id));
          expect(list.indexOf(h.id, i)).toBe(i);
        }
        expect(list.indexOf('nobody')).toBe(-1);
      }),
      { numRuns: 300 },
    );
  });

  it('a handoffs array appended to in place (a live run) is worked out again', () => {
    const run = chat(10);
    expect(edgeStateList(run).length).toBe(10);
    run.handoffs.push({ id: 'h10', from: 'a', to: ['b'], kind: 'message', content: 'late' });
    expect(knownEdgeStates(run)).toBeUndefined();
    expect(edgeStateList(run).at(10).message).toBe('late');
  });
});

describe.skipIf(!HAVE_SHARED)(`edge states of every real trace (${HAVE_SHARED ? 'shared traces present' : SKIP_REASON})`, () => {
  it('equal the plain reading of SPEC §5.3, for the default window and for 1', () => {
    let edges = 0;
    for (const { file, run } of sharedRuns()) {
      if (run.handoffs.length === 0 || run.handoffs.length > 3000) continue;
      for (const window of [3, 1]) expect(edgeStates(run, window), `${file} ${run.id} H=${window}`).toEqual(plainStates(run, window));
      edges += run.handoffs.length;
    }
    expect(edges).toBeGreaterThan(1000);
  });
});
