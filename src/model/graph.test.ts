import { describe, expect, it } from 'vitest';
import { deriveGraph, deriveGraphSlices } from './graph.ts';
import { detectLoops } from './loops.ts';
import { indexRun } from './run-index.ts';
import type { Run, Step } from './types.ts';

type StepSpec = Partial<Step> & Pick<Step, 'id' | 'kind' | 'agentId'>;

function makeRun(steps: StepSpec[], extra: Partial<Run> = {}): Run {
  return {
    id: 'r',
    title: 'r',
    sourceFormat: 'native',
    models: [],
    outcome: { status: 'unknown' },
    tags: {},
    agents: [
      { id: 'mgr', name: 'manager' },
      { id: 'srch', name: 'search_agent', parentId: 'mgr' },
    ],
    agentRuns: [],
    steps: steps.map((s, index) => ({ ...s, index }) as Step),
    handoffs: [],
    annotations: [],
    interventions: [],
    orphanSpans: 0,
    ...extra,
  };
}

function graphOf(run: Run) {
  const index = indexRun(run);
  const loops = detectLoops(index.replaySteps, index.childrenOf);
  return deriveGraph(run, index.replaySteps, index.childrenOf, loops);
}

describe('deriveGraph', () => {
  it('makes agent, tool and memory nodes with the manager hierarchy', () => {
    const g = graphOf(
      makeRun([
        { id: '1', kind: 'action', agentId: 'mgr', toolCalls: [{ name: 'search_agent', arguments: 'find x' }] },
        { id: '2', kind: 'action', agentId: 'srch', toolCalls: [{ name: 'web_search', arguments: 'x' }] },
        { id: '3', kind: 'action', agentId: 'srch', toolCalls: [{ name: 'memory_recall', arguments: 'x' }] },
      ]),
    );
    expect(g.nodes.map((n) => `${n.kind}:${n.label}@${n.depth}`)).toEqual([
      'agent:manager@0',
      'agent:search_agent@1',
      'tool:web_search@2',
      'memory:memory_recall@2',
    ]);
    expect(g.hierarchy).toEqual([{ manager: 'agent:mgr', managed: 'agent:srch' }]);
    expect(g.edges.map((e) => `${e.source}->${e.target}:${e.kind}`)).toEqual([
      'agent:mgr->agent:srch:delegation',
      'agent:srch->tool:web_search:tool',
      'agent:srch->memory:memory_recall:memory',
    ]);
  });

  it('weights edges by messages and shares a step’s tokens between its edges; nested calls count once', () => {
    const run = makeRun([
      { id: '1', kind: 'action', agentId: 'srch', toolCalls: [{ name: 'a', arguments: '1' }, { name: 'b', arguments: '2' }] },
      { id: '1.1', kind: 'llm', agentId: 'srch', parentStepId: '1', usage: { input: 80, output: 20, total: 100 } },
      { id: '1.2', kind: 'tool', agentId: 'srch', parentStepId: '1', name: 'a' },
      { id: '1.3', kind: 'tool', agentId: 'srch', parentStepId: '1', name: 'b' },
      { id: '2', kind: 'action', agentId: 'srch' },
      { id: '2.1', kind: 'tool', agentId: 'srch', parentStepId: '2', name: 'a' },
      { id: '2.1.1', kind: 'llm', agentId: 'srch', parentStepId: '2.1', usage: { input: 7, output: 3, total: 10 } },
    ]);
    const g = graphOf(run);
    const a = g.edges.find((e) => e.target === 'tool:a')!;
    const b = g.edges.find((e) => e.target === 'tool:b')!;
    expect(a.messages).toBe(2);
    expect(b.messages).toBe(1);
    expect(b.tokens).toBe(50);
    // Tokens of steps nested at any depth count for their replay step.
    expect(g.nodes.find((n) => n.id === 'agent:srch')!.tokens).toBe(110);
    expect(a.tokens).toBe(60);
    // Per replay position: acting agent and the edges sent on.
    expect([...g.nodeAt]).toEqual([1, 1]);
    expect(g.edgesAt[0].map((e) => g.edges[e].target)).toEqual(['tool:a', 'tool:b']);
    expect(g.edgesAt[1].map((e) => g.edges[e].target)).toEqual(['tool:a']);
  });

  it('counts a tool step answering an earlier call once, and leaves agent-run spans to the delegation handoff', () => {
    const agents = [{ id: 'asst', name: 'assistant' }, { id: 'tools', name: 'tools' }];
    const g = graphOf(
      makeRun(
        [
          { id: '1', kind: 'message', agentId: 'asst', toolCalls: [{ name: 'get_order', arguments: '{}' }, { name: 'ToolCallingAgent.run', arguments: 'x' }] },
          { id: '2', kind: 'tool', agentId: 'tools', name: 'get_order', output: '{}' },
          { id: '3', kind: 'tool', agentId: 'tools', name: 'lookup', output: '{}' },
        ],
        { agents },
      ),
    );
    expect(g.edges.map((e) => `${e.id}:${e.messages}`)).toEqual(['agent:asst->tool:get_order:1', 'agent:tools->tool:lookup:1']);
  });

  it('counts a call to an agent its step hands off to once, with several handoffs at the step', () => {
    const run = makeRun(
      [
        { id: 'm1', kind: 'message', agentId: 'mgr', output: 'go', toolCalls: [{ name: 'search_agent', arguments: '{}' }] },
        { id: 'm2', kind: 'message', agentId: 'srch', output: 'done' },
      ],
      {
        handoffs: [
          { id: 'h0', from: 'mgr', to: ['mgr'], kind: 'message', stepId: 'm1', content: 'note' },
          { id: 'h1', from: 'mgr', to: ['search_agent'], kind: 'delegation', stepId: 'm1', content: 'go' },
          { id: 'h2', from: 'search_agent', to: ['mgr'], kind: 'report', stepId: 'm2', content: 'done' },
          { id: 'h3', from: 'search_agent', to: ['mgr'], kind: 'report', stepId: 'm2', content: 'again' },
        ],
      },
    );
    const g = graphOf(run);
    expect(g.edges.map((e) => `${e.id}:${e.kind}:${e.messages}`)).toEqual([
      'agent:mgr->agent:mgr:message:1',
      'agent:mgr->agent:srch:delegation:1',
      'agent:srch->agent:mgr:report:2',
    ]);
  });

  it('places handoffs at their step, resolving agents by id or name', () => {
    const run = makeRun(
      [
        { id: 'm1', kind: 'message', agentId: 'mgr', output: 'go' },
        { id: 'm2', kind: 'message', agentId: 'srch', output: 'done' },
      ],
      {
        handoffs: [
          { id: 'h1', from: 'mgr', to: ['search_agent'], kind: 'delegation', stepId: 'm1', content: 'go' },
          { id: 'h2', from: 'search_agent', to: ['mgr'], kind: 'report', stepId: 'm2', content: 'done' },
        ],
      },
    );
    const g = graphOf(run);
    expect(g.edges.map((e) => `${e.id}:${e.kind}:${e.messages}`)).toEqual(['agent:mgr->agent:srch:delegation:1', 'agent:srch->agent:mgr:report:1']);
    expect(g.edgesAt[1].map((e) => g.edges[e].id)).toEqual(['agent:srch->agent:mgr']);
    expect(g.nodes).toHaveLength(2);
  });

  it('links consecutive speakers of a chat log that records no routing', () => {
    const agents = [{ id: 'u', name: 'user' }, { id: 'a', name: 'assistant' }];
    const g = graphOf(
      makeRun(
        [
          { id: '1', kind: 'message', agentId: 'u', output: 'q' },
          { id: '2', kind: 'message', agentId: 'a', output: 'a' },
          { id: '3', kind: 'message', agentId: 'u', output: 'q2' },
        ],
        { agents },
      ),
    );
    expect(g.edges.map((e) => `${e.id}:${e.messages}`)).toEqual(['agent:u->agent:a:1', 'agent:a->agent:u:1']);
    expect(g.edgesAt[0]).toEqual([]);
  });

  it('outlines the looping agent and the edges its repeated calls travel', () => {
    const steps: StepSpec[] = [];
    for (let i = 0; i < 3; i++) {
      steps.push({ id: `a${i}`, kind: 'action', agentId: 'srch', toolCalls: [{ name: 'visit', arguments: 'same' }] });
      steps.push({ id: `b${i}`, kind: 'action', agentId: 'srch', toolCalls: [{ name: 'other', arguments: `page ${'xyz'[i]}` }] });
    }
    const g = graphOf(makeRun(steps));
    expect(g.nodes.filter((n) => n.inLoop).map((n) => n.id)).toEqual(['agent:srch', 'tool:visit']);
    expect(g.edges.filter((e) => e.inLoop).map((e) => e.id)).toEqual(['agent:srch->tool:visit']);
  });
});

describe('deriveGraphSlices', () => {
  // A chat log's shape, larger than a few slices: a message per step, each handed to the next speaker.
  function chat(n: number): Run {
    const agents = ['mgr', 'srch'];
    const steps: StepSpec[] = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, kind: 'message', agentId: agents[i % 2], output: `m${i}` }));
    const handoffs = steps.map((s, i) => ({ id: `h${i}`, from: s.agentId, to: [agents[(i + 1) % 2]], kind: 'message' as const, stepId: s.id, content: '' }));
    return makeRun(steps, { handoffs });
  }

  it('reports a progress that never goes back and moves during the handoffs’ pass, and gives what deriveGraph gives', () => {
    const run = chat(20_000);
    const index = indexRun(run);
    const work = deriveGraphSlices(run, index.replaySteps, index.childrenOf);
    const seen: number[] = [];
    let r = work.next();
    for (; !r.done; r = work.next()) seen.push(r.value);
    seen.forEach((v, i) => {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
      if (i > 0) expect(v).toBeGreaterThanOrEqual(seen[i - 1]);
    });
    // The handoffs' pass (the first 40 %) is not one long stretch at 0.
    expect(seen.filter((v) => v > 0 && v < 0.4).length).toBeGreaterThan(5);
    expect(seen.filter((v) => v > 0.4).length).toBeGreaterThan(5);
    const whole = deriveGraph(run, index.replaySteps, index.childrenOf);
    expect(r.value.edges).toEqual(whole.edges);
    expect(r.value.nodes).toEqual(whole.nodes);
  });
});

describe('ToolCallCounter.forSlices', () => {
  it('finds a tool step past the first slices, and none in a run without one', async () => {
    const { ToolCallCounter } = await import('./tool-calls.ts');
    const { finish } = await import('./slices.ts');
    const withTool = chatRun(9_000, 8_500);
    const without = chatRun(9_000);
    const executions = (c: object) => (c as { executions: boolean }).executions;
    expect(executions(finish(ToolCallCounter.forSlices(withTool)))).toBe(true);
    expect(executions(finish(ToolCallCounter.forSlices(without)))).toBe(false);
    expect(executions(ToolCallCounter.for(withTool))).toBe(true);
    // In slices: several pauses before the answer in a run of 9,000 steps without a tool step.
    const work = ToolCallCounter.forSlices(without);
    let pauses = 0;
    for (let r = work.next(); !r.done; r = work.next()) pauses++;
    expect(pauses).toBeGreaterThanOrEqual(4);
  });

  function chatRun(n: number, toolAt?: number): Run {
    return makeRun(Array.from({ length: n }, (_, i) => (i === toolAt ? { id: `s${i}`, kind: 'tool', agentId: 'srch', name: 'web_search' } : { id: `s${i}`, kind: 'message', agentId: 'mgr' })));
  }
});
