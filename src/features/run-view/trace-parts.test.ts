import { afterEach, describe, expect, it, vi } from 'vitest';
import { HAVE_SHARED, sharedRuns } from '../../testing/fixture-kit.ts';
import { makeRun as testRun } from '../../testing/test-runs.ts';
import { finish } from '../../model/slices.ts';
import type { Run, Step } from '../../model/types.ts';
import { buildRunView, graphSlices, runViewSlices, stepsIndexSlices, tracePartSlices, transferablesOfPart, type RunView } from './run-view-model.ts';
import {
  deliverTracePart,
  expectTracePart,
  forgetTracePart,
  graphInPart,
  isTracePartRun,
  PAGE_GRAPH_MIN_STEPS,
  takeTracePart,
  TRACE_PART_MAX_STEPS,
  TRACE_PART_MIN_STEPS,
  tracePartWaitMs,
  TRACE_PART_WAIT_MS,
  tracePartRun,
  type TracePart,
} from './trace-parts.ts';

/** Everything a panel reads of a view, its step objects by id (the worker's are copies of the page's). */
function readable(view: RunView) {
  const { run: _run, index, steps, positionOf, handoffsByStep, ...rest } = view;
  return {
    ...rest,
    replay: steps.map((s) => s.id),
    tree: [...index.childrenOf].map(([id, children]) => [id, children.map((c) => c.id)]),
    positionOf: [...positionOf].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])),
    handoffsByStep: [...handoffsByStep].map(([id, list]) => [id, list.map((h) => h.id)]),
  };
}

/** The part as the page receives it: made from the worker's copy of the run, cloned with its buffers transferred. */
function crossed(run: Run, withGraph = true): TracePart {
  const part = finish(tracePartSlices(structuredClone(run), withGraph));
  return structuredClone(part, { transfer: transferablesOfPart(part) });
}

/** A run of a manager and its worker (the shared test run, with these steps and a handoff, annotation, intervention). */
function makeRun(steps: (Partial<Step> & Pick<Step, 'id' | 'kind' | 'agentId'>)[], extra: Partial<Run> = {}): Run {
  return testRun('r', {
    title: 'r',
    models: [],
    outcome: { status: 'unknown' },
    agents: [
      { id: 'mgr', name: 'manager' },
      { id: 'w', name: 'worker', parentId: 'mgr' },
    ],
    agentRuns: [
      { id: 'r1', agentId: 'mgr', task: 'plan' },
      { id: 'r2', agentId: 'w', parentRunId: 'r1', task: 'do' },
    ],
    steps: steps.map((s, index) => ({ ...s, index }) as Step),
    handoffs: [{ id: 'h', from: 'w', to: ['mgr'], kind: 'report', stepId: 'c', content: 'bye' }],
    annotations: [{ id: 'n1', stepId: 'a.tool', source: 'dataset', taxonomy: 'TRAIL', code: 'Tool error' }],
    interventions: [{ id: 'i', engine: 'supervisor', stepId: 'b', action: 'approve', reason: 'ok', heuristic: true }],
    ...extra,
  });
}

const call = (id: string, agentId: string, q: string): Partial<Step> & Pick<Step, 'id' | 'kind' | 'agentId'> => ({
  id,
  kind: 'tool',
  agentId,
  agentRunId: agentId === 'w' ? 'r2' : 'r1',
  toolCalls: [{ id: `${id}.c`, name: 'search', arguments: JSON.stringify({ q }) }],
  usage: { input: 3, output: 1.5, total: 4.5 },
});

const small = makeRun([
  { id: 'a', kind: 'action', agentId: 'mgr', agentRunId: 'r1', startTime: 0, endTime: 10 },
  { id: 'a.llm', kind: 'llm', agentId: 'mgr', parentStepId: 'a', usage: { input: 100, output: 10, total: 110 }, startTime: 1, endTime: 8 },
  { id: 'a.tool', kind: 'tool', agentId: 'mgr', parentStepId: 'a', name: 't', error: { message: 'boom' } },
  { id: 'a.tool.inner', kind: 'llm', agentId: 'mgr', parentStepId: 'a.tool', usage: { input: 5, output: 5, total: 10, estimated: true } },
  { id: 'b', kind: 'message', agentId: 'w', agentRunId: 'r2', output: 'hi', startTime: 10, usage: { input: 0, output: 20, total: 20 } },
  call('l1', 'w', 'x'),
  call('l2', 'w', 'x'),
  call('l3', 'w', 'x'),
  call('l4', 'w', 'x'),
  { id: 'c', kind: 'message', agentId: 'w', agentRunId: 'r2', output: 'bye', startTime: 30, endTime: 40 },
]);

describe("the run view from the import worker's trace part", () => {
  it('is the view the page builds itself: loops, graph and every column, nested steps placed', () => {
    const view = finish(runViewSlices(small, { part: crossed(small) }));
    const reference = buildRunView(structuredClone(small));
    expect(view.loops.length).toBeGreaterThan(0);
    expect(view.errorPositions.length).toBeGreaterThan(0);
    expect(view.positionOf.get('a.tool.inner')).toBe(0);
    expect(readable(view)).toEqual(readable(reference));
  });

  it("carries the loops' positions in typed arrays it transfers (a 1M-message loop was a 1M-element array to clone)", () => {
    const part = finish(tracePartSlices(structuredClone(small)));
    expect(part.loops.length).toBeGreaterThan(0);
    const buffers = transferablesOfPart(part);
    for (const loop of part.loops) {
      expect(loop.positions).toBeInstanceOf(Int32Array);
      expect(buffers).toContain(loop.positions.buffer);
      expect(buffers).toContain(loop.routing.buffer);
    }
    // Made plain arrays again on the page, as the page's own analysis gives them.
    const view = finish(runViewSlices(small, { part: crossed(small) }));
    expect(view.loops.every((loop) => Array.isArray(loop.positions) && Array.isArray(loop.routing))).toBe(true);
  });

  it('shares the empty and single edge lists as the graph does', () => {
    const view = finish(runViewSlices(small, { part: crossed(small) }));
    const reference = buildRunView(structuredClone(small));
    for (let p = 0; p < view.steps.length; p++) {
      const list = view.graph.edgesAt[p];
      if (list.length === 0) expect(list).toBe(view.graph.edgesAt.find((l) => l.length === 0));
      expect(Object.isFrozen(list)).toBe(Object.isFrozen(reference.graph.edgesAt[p]));
    }
  });

  it('without the graph, is the same view with the graph the page derives (loops marked once the part brings them)', () => {
    const part = crossed(small, false);
    expect(part.graph).toBeUndefined();
    expect(transferablesOfPart(part).length).toBeGreaterThan(0);
    const run = structuredClone(small);
    const steps = finish(stepsIndexSlices(run));
    const graph = finish(graphSlices(run, steps));
    // Derived before the loops are known: nothing is marked yet.
    expect(graph.nodes.some((n) => n.inLoop) || graph.edges.some((e) => e.inLoop)).toBe(false);
    const view = finish(runViewSlices(run, { steps, part, graph }));
    const reference = buildRunView(structuredClone(small));
    expect(reference.graph.nodes.some((n) => n.inLoop) || reference.graph.edges.some((e) => e.inLoop)).toBe(true);
    expect(readable(view)).toEqual(readable(reference));
    // Given neither, the page derives it when the part comes; given no part (the worker had none), from its own loops.
    expect(readable(finish(runViewSlices(structuredClone(small), { part })))).toEqual(readable(reference));
    const alone = structuredClone(small);
    const aloneSteps = finish(stepsIndexSlices(alone));
    expect(readable(finish(runViewSlices(alone, { steps: aloneSteps, graph: finish(graphSlices(alone, aloneSteps)) })))).toEqual(readable(reference));
  });

  it('carries the graph up to PAGE_GRAPH_MIN_STEPS steps only', () => {
    expect(graphInPart(PAGE_GRAPH_MIN_STEPS - 1)).toBe(true);
    expect(graphInPart(PAGE_GRAPH_MIN_STEPS)).toBe(false);
    expect(PAGE_GRAPH_MIN_STEPS).toBeGreaterThan(TRACE_PART_MIN_STEPS);
    expect(PAGE_GRAPH_MIN_STEPS).toBeLessThanOrEqual(TRACE_PART_MAX_STEPS);
  });

  it('is built by the page itself when the part is not that run’s', () => {
    const other = makeRun([{ id: 'b', kind: 'message', agentId: 'w', output: 'hi' }]);
    const run = structuredClone(small);
    const view = finish(runViewSlices(run, { part: crossed(other) }));
    expect(readable(view)).toEqual(readable(buildRunView(structuredClone(small))));
  });
});

describe('the page’s trace parts', () => {
  afterEach(() => vi.useRealTimers());

  it('are waited for once expected, and names the run by its steps', async () => {
    const run = structuredClone(small);
    // A run of TRACE_PART_MIN_STEPS: the same steps again and again (the page reads only its length and ids here).
    run.steps = Array.from({ length: TRACE_PART_MIN_STEPS }, (_, i) => ({ ...small.steps[i % small.steps.length], id: `s${i}` }));
    expect(takeTracePart(run.steps)).toBeUndefined();
    expectTracePart(run.steps);
    const waiting = takeTracePart(run.steps);
    expect(isTracePartRun(run.steps, tracePartRun(run.steps))).toBe(true);
    expect(isTracePartRun(run.steps.slice(1), tracePartRun(run.steps))).toBe(false);
    const part = crossed(run);
    deliverTracePart(run.steps, part);
    await expect(waiting).resolves.toBe(part);
    // Kept for an opening that was cancelled, until the view is built.
    await expect(takeTracePart(run.steps)).resolves.toBe(part);
    forgetTracePart(run.steps);
    expect(takeTracePart(run.steps)).toBeUndefined();
  });

  it('are not expected of a run below TRACE_PART_MIN_STEPS or above TRACE_PART_MAX_STEPS, and not waited for past tracePartWaitMs', async () => {
    const few = structuredClone(small.steps);
    expectTracePart(few);
    expect(takeTracePart(few)).toBeUndefined();
    const long = { length: TRACE_PART_MAX_STEPS + 1 } as unknown as Step[];
    expectTracePart(long);
    expect(takeTracePart(long)).toBeUndefined();
    vi.useFakeTimers();
    const steps = { length: TRACE_PART_MIN_STEPS } as unknown as Step[];
    expectTracePart(steps);
    const waiting = takeTracePart(steps);
    // Waited for a little longer the longer the run: 10 s and 0.02 ms a step.
    expect(tracePartWaitMs(TRACE_PART_MIN_STEPS)).toBe(TRACE_PART_WAIT_MS + 100);
    expect(tracePartWaitMs(1_000_000)).toBe(30_000);
    let settled = false;
    void waiting!.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(TRACE_PART_WAIT_MS);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    await expect(waiting).resolves.toBeUndefined();
  });
});

describe.skipIf(!HAVE_SHARED)('on every real trace in ../shared/traces', () => {
  it("builds from the worker's part the view the page builds itself", () => {
    let runs = 0;
    for (const { file, run: r } of sharedRuns()) {
      if (r.steps.length === 0) continue;
      const reference = readable(buildRunView(structuredClone(r)));
      expect(readable(finish(runViewSlices(r, { part: crossed(r) }))), `${file} ${r.id}`).toEqual(reference);
      // Without the graph in the part: the page's graph, derived before the part came, its loops marked from it.
      const again = structuredClone(r);
      const steps = finish(stepsIndexSlices(again));
      const graph = finish(graphSlices(again, steps));
      expect(readable(finish(runViewSlices(again, { steps, part: crossed(r, false), graph }))), `${file} ${r.id} (page graph)`).toEqual(reference);
      runs++;
    }
    expect(runs).toBeGreaterThan(20);
  }, 120_000);
});
