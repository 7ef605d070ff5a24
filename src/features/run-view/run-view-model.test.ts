import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importBytes } from '../../import/index.ts';
import { HAVE_SHARED, SHARED_TRACES, sharedRuns } from '../../testing/fixture-kit.ts';
import { countStepKinds, describeStepCounts } from '../../model/steps.ts';
import type { Run, Step } from '../../model/types.ts';
import { buildRunView, runViewOf, stepsIndexSlices, type StepsIndex } from './run-view-model.ts';
import { stepAt, timelineGeometry } from './timeline-geometry.ts';
import { bucketTokens } from './token-charts.tsx';

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
      { id: 'w', name: 'worker', parentId: 'mgr' },
      { id: 'idle', name: 'never acts' },
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

const run = makeRun(
  [
    { id: 'a', kind: 'action', agentId: 'mgr', agentRunId: 'r1', startTime: 0, endTime: 10 },
    { id: 'a.llm', kind: 'llm', agentId: 'mgr', parentStepId: 'a', usage: { input: 100, output: 10, total: 110 }, startTime: 1, endTime: 8 },
    { id: 'a.tool', kind: 'tool', agentId: 'mgr', parentStepId: 'a', name: 't', error: { message: 'boom' } },
    { id: 'a.tool.inner', kind: 'llm', agentId: 'mgr', parentStepId: 'a.tool', usage: { input: 5, output: 5, total: 10, estimated: true } },
    { id: 'b', kind: 'message', agentId: 'w', agentRunId: 'r2', output: 'hi', startTime: 10, usage: { input: 0, output: 20, total: 20 } },
    { id: 'c', kind: 'message', agentId: 'w', agentRunId: 'r2', output: 'bye', startTime: 30, endTime: 40 },
  ],
  {
    agentRuns: [
      { id: 'r1', agentId: 'mgr', task: 'plan' },
      { id: 'r2', agentId: 'w', parentRunId: 'r1', task: 'do' },
    ],
    handoffs: [{ id: 'h', from: 'w', to: ['mgr'], kind: 'report', stepId: 'c', content: 'bye' }],
    annotations: [
      { id: 'n1', stepId: 'a.tool', source: 'dataset', taxonomy: 'TRAIL', code: 'Tool error' },
      { id: 'n2', handoffId: 'h', source: 'human', taxonomy: 'AgentAsk', code: 'DG' },
      { id: 'n3', source: 'dataset', taxonomy: 'WhoWhen', code: 'run' },
    ],
    interventions: [{ id: 'i', engine: 'supervisor', stepId: 'b', action: 'approve', reason: 'ok', heuristic: true }],
  },
);

describe('buildRunView', () => {
  const view = buildRunView(run);

  it('maps nested steps (at any depth) to the replay step holding them', () => {
    expect(view.steps.map((s) => s.id)).toEqual(['a', 'b', 'c']);
    expect(view.positionOf.get('a.tool.inner')).toBe(0);
    expect(view.positionOf.get('c')).toBe(2);
  });

  it('collects errors, usage and estimates from nested steps', () => {
    expect([...view.errorPositions]).toEqual([0]);
    expect([...view.tokens.input]).toEqual([105, 0, 0]);
    expect([...view.tokens.output]).toEqual([15, 20, 0]);
    expect([...view.tokens.cumulative]).toEqual([120, 140, 140]);
    expect([...view.tokens.estimated]).toEqual([1, 0, 0]);
    expect(view.tokens.perAgent.map((a) => `${a.name}:${a.input + a.output}`)).toEqual(['manager:120', 'worker:20', 'never acts:0']);
  });

  it('places annotations by step or handoff, keeps run-level ones apart, and places interventions', () => {
    expect([...view.annotationPositions]).toEqual([0, 2]);
    expect(view.runAnnotations.map((a) => a.id)).toEqual(['n3']);
    expect([...view.interventionPositions]).toEqual([1]);
  });

  it('fills missing ends from the next start and uses time when every step has a start', () => {
    expect(view.time.hasTime).toBe(true);
    expect([...view.time.end]).toEqual([10, 30, 40]);
    expect([view.time.min, view.time.max]).toEqual([0, 40]);
    const untimed = buildRunView(makeRun([{ id: 'x', kind: 'message', agentId: 'w' }]));
    expect(untimed.time.hasTime).toBe(false);
  });

  it('nests managed agents’ lanes under their manager, drops agents that never act, and bands agent runs', () => {
    expect(view.lanes).toEqual([
      { agentId: 'mgr', name: 'manager', depth: 0 },
      { agentId: 'w', name: 'worker', depth: 1 },
    ]);
    expect([...view.laneAt]).toEqual([0, 1, 1]);
    expect(view.bands).toEqual([
      { lane: 0, first: 0, last: 0, task: 'plan' },
      { lane: 1, first: 1, last: 2, task: 'do' },
    ]);
  });

  it('indexes the handoffs by the step they name, in their order, and none without a step', () => {
    const run = makeRun([{ id: 'a', kind: 'message', agentId: 'mgr' }, { id: 'b', kind: 'message', agentId: 'w' }], {
      handoffs: [
        { id: 'h1', from: 'mgr', to: ['w'], kind: 'delegation', stepId: 'a', content: '' },
        { id: 'h2', from: 'w', to: ['mgr'], kind: 'report', stepId: 'b', content: '' },
        { id: 'h3', from: 'mgr', to: ['w'], kind: 'message', stepId: 'a', content: '' },
        { id: 'h4', from: 'mgr', to: ['w'], kind: 'message', content: '' },
      ],
    });
    const view = buildRunView(run);
    expect(view.handoffsByStep.get('a')?.map((h) => h.id)).toEqual(['h1', 'h3']);
    expect(view.handoffsByStep.get('b')?.map((h) => h.id)).toEqual(['h2']);
    expect([...view.handoffsByStep.keys()]).toEqual(['a', 'b']);
  });

  it('is built once per run object', () => {
    expect(runViewOf(run)).toBe(runViewOf(run));
  });

  it('keeps the trace data (index, loops, graph) when an engine result adds an intervention', () => {
    const before = runViewOf(run);
    const iv = { id: 'i2', engine: 'supervisor' as const, stepId: 'c', action: 'approve', reason: 'ok', heuristic: true };
    const after = runViewOf({ ...run, interventions: [...run.interventions, iv] });
    expect(after).not.toBe(before);
    expect(after.index).toBe(before.index);
    expect(after.loops).toBe(before.loops);
    expect(after.graph).toBe(before.graph);
    expect(after.tokens).toBe(before.tokens);
    expect([...after.interventionPositions]).toEqual([1, 2]);
    expect(after.run.interventions).toHaveLength(2);
    // New steps (or new handoffs) are a new trace.
    expect(runViewOf({ ...run, steps: [...run.steps] }).graph).not.toBe(before.graph);
    expect(runViewOf({ ...run, handoffs: [] }).graph).not.toBe(before.graph);
  });

  it('collects loop verdicts by source from annotations, interventions and the ledger, and updates them with a new result', () => {
    expect(runViewOf(run).loopVerdicts).toEqual([]);
    const abuse = { id: 'ra', stepId: 'c', source: 'dataset' as const, taxonomy: 'TRAIL', code: 'Resource Abuse', description: 'same call again' };
    const inefficient = { id: 'iv', engine: 'supervisor' as const, stepId: 'a.tool', action: 'guide', reason: 'loop', heuristic: false, context: 'inefficient', details: { rule: 'τ_loop' } };
    const ledger = { id: 'l', kind: 'message' as const, agentId: 'mgr', output: 'Updated Ledger: {"is_in_loop": {"reason": "scrolling again", "answer": true}}' };
    const withVerdicts = makeRun([...run.steps, ledger], { annotations: [abuse], interventions: [inefficient] });
    const view = runViewOf(withVerdicts);
    expect(view.loopVerdicts.map((v) => [v.source, v.sourceLabel, v.position])).toEqual([
      ['supervisor-filter', "Supervisor filter: inefficient (paper's τ_loop rule)", 0],
      ['trail-annotation', 'TRAIL: Resource Abuse', 2],
      ['magentic-one-ledger', 'Magentic-One ledger: is_in_loop', view.steps.length - 1],
    ]);
    // An engine result (new interventions, same steps) keeps the ledger's and replaces the others.
    expect(runViewOf({ ...withVerdicts, interventions: [] }).loopVerdicts.map((v) => v.source)).toEqual(['trail-annotation', 'magentic-one-ledger']);
  });
});

describe('timeline geometry and token buckets', () => {
  const view = buildRunView(run);

  it('lays blocks out by time, tokens or order, and hit-tests within a lane', () => {
    const time = timelineGeometry(view, 'time');
    expect([...time.x0]).toEqual([0, 10, 30]);
    expect(stepAt(time, 1, 35, 0)).toBe(2);
    expect(stepAt(time, 1, 25, 0)).toBe(1);
    expect(stepAt(time, 1, 45, 4)).toBeUndefined();
    expect(stepAt(time, 1, 45, 6)).toBe(2);
    expect(stepAt(time, 0, 5, 0)).toBe(0);
    const tokens = timelineGeometry(view, 'tokens');
    expect([...tokens.x0]).toEqual([0, 120, 140]);
    expect(tokens.domain).toEqual([0, 140]);
    const order = timelineGeometry(view, 'order');
    expect([...order.x1]).toEqual([1, 2, 3]);
    expect(order.byLane.map((l) => [...l])).toEqual([[0], [1, 2]]);
  });

  it('sums steps into at most the requested number of bars', () => {
    const one = bucketTokens(view, 10);
    expect(one.size).toBe(1);
    expect([...one.cumulative]).toEqual([120, 140, 140]);
    const two = bucketTokens(view, 2);
    expect(two.size).toBe(2);
    expect([...two.input]).toEqual([105, 0]);
    expect([...two.output]).toEqual([35, 0]);
    expect(two.max).toBe(140);
  });

  it('sums a long run by whole blocks to the same bars as step by step, estimated flags and all', () => {
    const n = 10_000;
    const steps: StepSpec[] = [];
    for (let i = 0; i < n; i++) {
      steps.push({ id: `s${i}`, kind: 'llm', agentId: i % 3 ? 'w' : 'mgr', usage: { input: (i * 37) % 101, output: (i * 11) % 13, total: 0, estimated: i === 4321 || undefined } });
    }
    const long = buildRunView(makeRun(steps));
    expect(long.tokens.anyEstimated).toBe(true);
    expect(long.tokens.blocks.exact).toBe(true);
    // Step by step, as the chart summed before the blocks.
    const naive = (maxBars: number) => {
      const size = Math.max(1, Math.ceil(n / maxBars));
      const count = Math.ceil(n / size);
      const input = new Float64Array(count);
      const output = new Float64Array(count);
      const cumulative = new Float64Array(count);
      const estimated = new Uint8Array(count);
      for (let p = 0; p < n; p++) {
        const b = (p / size) | 0;
        input[b] += long.tokens.input[p];
        output[b] += long.tokens.output[p];
        if (long.tokens.estimated[p]) estimated[b] = 1;
        cumulative[b] = long.tokens.cumulative[p];
      }
      return { size, input, output, cumulative, estimated, max: input.reduce((m, v, b) => Math.max(m, v + output[b]), 0) };
    };
    for (const bars of [7, 33, 77, 150, 1000]) expect(bucketTokens(long, bars), `${bars} bars`).toEqual(naive(bars));
    // A run with fractional usage is summed step by step (its block sums could round otherwise).
    const fractional = buildRunView(makeRun(steps.map((s, i) => ({ ...s, usage: { input: i / 3, output: 0.1, total: 0 } }))));
    expect(fractional.tokens.blocks.exact).toBe(false);
    expect(fractional.tokens.anyEstimated).toBe(false);
  });
});

describe.skipIf(!HAVE_SHARED)('on every real trace in ../shared/traces', () => {
  it('builds a consistent view of every run', () => {
    let runs = 0;
    for (const { file, run: r } of sharedRuns()) {
      const view = buildRunView(r);
      runs++;
      const n = view.steps.length;
      for (let p = 0; p < n; p++) {
        expect(view.graph.nodeAt[p], `${file} ${p}`).toBeGreaterThanOrEqual(0);
        expect(view.graph.nodes[view.graph.nodeAt[p]].agentId).toBe(view.steps[p].agentId);
        if (p > 0) expect(view.tokens.cumulative[p]).toBeGreaterThanOrEqual(view.tokens.cumulative[p - 1]);
        expect(view.laneAt[p]).toBeLessThan(view.lanes.length);
      }
      for (const e of view.graph.edges) expect(e.messages, `${file} ${e.id}`).toBeGreaterThan(0);
      for (const s of r.steps) expect(view.positionOf.has(s.id) || n === 0, `${file} ${s.id}`).toBe(true);
      // The toolbar's step counts, counted with the view's columns, are the model's (the single source).
      expect(describeStepCounts(view.stepKinds), file).toBe(describeStepCounts(countStepKinds(view.steps)));
      expect([...view.stepKinds.byKind], file).toEqual([...countStepKinds(view.steps).byKind]);
      // The positions in a loop: the union of the loops' positions, ascending, each once.
      const inLoops = [...new Set(view.loops.flatMap((l) => l.positions))].sort((a, b) => a - b);
      expect([...view.loopPositions], file).toEqual(inLoops);
      // Each position's lane is its agent's, and each agent run's band spans its first to its last position, in the
      // order the runs first act (read in the per-step pass: read again here the plain way).
      const laneOf = new Map(view.lanes.map((l, i) => [l.agentId, i]));
      for (let p = 0; p < n; p++) expect(view.laneAt[p], `${file} ${p}`).toBe(laneOf.get(view.steps[p].agentId) ?? 0);
      const bands = new Map<string, { lane: number; first: number; last: number; task: string | undefined }>();
      const tasks = new Map(r.agentRuns.map((a) => [a.id, a.task]));
      view.steps.forEach((s, p) => {
        if (s.agentRunId === undefined || r.agentRuns.length === 0) return;
        const b = bands.get(s.agentRunId);
        if (b) b.last = p;
        else bands.set(s.agentRunId, { lane: laneOf.get(s.agentId) ?? 0, first: p, last: p, task: tasks.get(s.agentRunId) });
      });
      expect(view.bands, file).toEqual([...bands.values()]);
    }
    expect(runs).toBeGreaterThan(20);
  });

  it('finds the repeated scrolling in Who&When hand-crafted runs, not the routing lines', () => {
    const file = join(SHARED_TRACES, 'who-and-when/hand-crafted/3.json');
    const view = buildRunView(importBytes(file, readFileSync(file)).runs[0]);
    const scrolling = view.loops.find((l) => l.label.includes('I scrolled down one page in the browser.'));
    expect(scrolling?.agentIds).toEqual(['Orchestrator', 'WebSurfer']);
    expect(view.loops.some((l) => l.label.includes('Next speaker'))).toBe(false);
    expect(view.graph.nodes.find((n) => n.label === 'Orchestrator')?.inLoop).toBe(true);
  });
});

describe('the steps index: positions whose step has nested steps (nestedAt)', () => {
  const drain = <T,>(work: Generator<number, T>): T => {
    for (;;) {
      const r = work.next();
      if (r.done) return r.value;
    }
  };
  const brute = (index: StepsIndex) => {
    const flags = index.index.replaySteps.map((s) => (index.index.childrenOf.has(s.id) ? 1 : 0));
    return flags.some((f) => f === 1) ? flags : undefined;
  };

  it('flags exactly the replay steps with nested steps, with ids unique or repeated, and none when nothing nests', () => {
    const nested = makeRun([
      { id: 'a', kind: 'action', agentId: 'mgr' },
      { id: 'm1', kind: 'llm', agentId: 'mgr', parentStepId: 'a' },
      { id: 'b', kind: 'action', agentId: 'w' },
      { id: 'c', kind: 'action', agentId: 'w' },
      { id: 't1', kind: 'tool', agentId: 'w', parentStepId: 'c' },
      { id: 't2', kind: 'tool', agentId: 'w', parentStepId: 't1' },
    ]);
    const unique = drain(stepsIndexSlices(nested));
    expect(unique.positionOf.duplicates).toBe(false);
    expect(Array.from(unique.nestedAt ?? [])).toEqual([1, 0, 1]);
    expect(Array.from(unique.nestedAt ?? [])).toEqual(brute(unique));
    // Two replay steps share the id 'a': both hold the nested step (the positions' table knows only the last of them).
    const repeated = makeRun([
      { id: 'a', kind: 'action', agentId: 'mgr' },
      { id: 'x', kind: 'action', agentId: 'w' },
      { id: 'a', kind: 'action', agentId: 'mgr' },
      { id: 'm1', kind: 'llm', agentId: 'mgr', parentStepId: 'a' },
    ]);
    const twice = drain(stepsIndexSlices(repeated));
    expect(twice.positionOf.duplicates).toBe(true);
    expect(Array.from(twice.nestedAt ?? [])).toEqual(brute(twice));
    expect(Array.from(twice.nestedAt ?? [])).toEqual([1, 0, 1]);
    expect(drain(stepsIndexSlices(makeRun([{ id: 'a', kind: 'action', agentId: 'mgr' }]))).nestedAt).toBeUndefined();
  });

  it.skipIf(!HAVE_SHARED)('agrees with a lookup per step on every real trace', () => {
    let runs = 0;
    for (const { file, run } of sharedRuns()) {
      const index = drain(stepsIndexSlices(run));
      expect(index.nestedAt === undefined ? undefined : Array.from(index.nestedAt), file).toEqual(brute(index));
      runs++;
    }
    expect(runs).toBeGreaterThan(50);
  });
});
