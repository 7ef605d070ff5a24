// The run view of a large run built in slices (ADR 0024): the same view as the one-call build, in many short tasks.
import { describe, expect, it } from 'vitest';
import { finish } from '../../model/slices.ts';
import { countStepKinds } from '../../model/steps.ts';
import { toolCallCounts } from '../../model/tool-calls.ts';
import type { Run, Step } from '../../model/types.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { runViewOpeningSlices, viewAtOnce, LARGE_STEPS } from './run-view-loader.ts';
import { buildRunView, runViewOf, runViewSlices, type RunView } from './run-view-model.ts';
import { builtTimelineGeometry, initialTimelineMode, timelineGeometry, timelineGeometrySlices } from './timeline-geometry.ts';

/** A run of `n` rows by three agents: tool calls that repeat (loops), messages, nested model calls, agent runs. */
function bigRun(n: number): Run {
  const steps: Step[] = [];
  const agents = ['planner', 'coder', 'tester'];
  for (let i = 0; i < n; i++) {
    const agentId = agents[Math.floor(i / 7) % 3];
    const id = `s${i}`;
    const kind = i % 5 === 0 ? 'message' : 'action';
    steps.push({
      id,
      index: steps.length,
      kind,
      agentId,
      agentRunId: `run${Math.floor(i / 50)}`,
      startTime: i * 10,
      endTime: i * 10 + 5,
      ...(kind === 'message'
        ? { output: `status ${i % 3 === 0 ? 'same words again' : `report ${i}`}`, recipients: [agents[(i + 1) % 3]] }
        : { toolCalls: [{ id: `c${i}`, name: i % 2 ? 'search' : 'read', arguments: `{"q": "topic ${i % 4}"}` }] }),
      ...(i % 9 === 0 ? { error: { message: 'failed' } } : {}),
    } as Step);
    if (i % 4 === 0) steps.push({ id: `${id}.llm`, index: steps.length, kind: 'llm', agentId, parentStepId: id, usage: { input: 10 + (i % 7), output: 3, total: 13 + (i % 7) } });
  }
  return makeRun('big', {
    agents: agents.map((a) => ({ id: a, name: a })),
    agentRuns: Array.from({ length: Math.ceil(n / 50) }, (_, r) => ({ id: `run${r}`, agentId: agents[r % 3], task: `task ${r}` })),
    steps,
    handoffs: [{ id: 'h', from: 'planner', to: ['coder'], kind: 'delegation', stepId: 's3', content: 'go' }],
  });
}

/** Everything a panel reads, as plain data (the index's lookups are functions of the steps). */
function plain(view: RunView) {
  const { index: _index, run: _run, ...rest } = view;
  return { ...rest, positionOf: [...view.positionOf], annotationsAt: [...view.annotationsAt], interventionsAt: [...view.interventionsAt] };
}

describe('runViewSlices', () => {
  const run = bigRun(20_000);

  it('builds the same view as the one-call build, yielding many times on the way', () => {
    const work = runViewSlices(run);
    let yields = 0;
    let last = 0;
    let r = work.next();
    while (!r.done) {
      yields++;
      expect(r.value).toBeGreaterThanOrEqual(last);
      expect(r.value).toBeLessThanOrEqual(1);
      last = r.value;
      r = work.next();
    }
    // Every pass over the steps (step tree, positions, loops ×2, graph, columns) yields every 2,048 steps.
    expect(yields).toBeGreaterThan(40);
    const view = r.value;
    const whole = buildRunView(run);
    expect(view.loops.length).toBeGreaterThan(0);
    expect(view.errorPositions.length).toBeGreaterThan(0);
    expect(view.graph.edges.length).toBeGreaterThan(0);
    expect(plain(view)).toEqual(plain(whole));
    expect([...view.stepKinds.byKind]).toEqual([...countStepKinds(view.steps).byKind]);
    expect(view.stepKinds.byKind.size).toBe(2);
    // Kept for runViewOf: the view is built once.
    expect(runViewOf(run)).toBe(view);
    expect(finish(runViewSlices(run))).toBe(view);
  });

  it('yields within the passes after the per-step pass too (time, lanes, loop positions), not once per pass', () => {
    const work = runViewSlices(bigRun(20_000));
    let late = 0;
    for (let r = work.next(); !r.done; r = work.next()) if (r.value >= 0.95) late++;
    // 20k rows: the passes over steps yield about every 2,048 positions, those over typed arrays alone every 16,384
    // (once per pass before: 5 yields in all). The lanes' agents and the bands are read in the per-step pass.
    expect(late).toBeGreaterThanOrEqual(12);
  });

  it('fills the columns the passes after the per-step pass make (time, lanes, bands, errors, loops) as read from the steps', () => {
    const view = runViewOf(run);
    const n = view.steps.length;
    // Each read again here, position by position, the plain way.
    const errors: number[] = [];
    const looped: number[] = [];
    for (let p = 0; p < n; p++) {
      if (view.errorAt[p]) errors.push(p);
      if (view.loopAt[p] >= 0) looped.push(p);
    }
    expect([...view.errorPositions]).toEqual(errors);
    expect([...view.loopPositions]).toEqual(looped);
    expect(looped.length).toBeGreaterThan(0);
    for (let p = 0; p < n; p += 97) expect(view.lanes[view.laneAt[p]].agentId).toBe(view.steps[p].agentId);
    const bands = new Map<string, { first: number; last: number }>();
    view.steps.forEach((s, p) => {
      const b = bands.get(s.agentRunId!);
      if (b) b.last = p;
      else bands.set(s.agentRunId!, { first: p, last: p });
    });
    expect(view.bands.map((b) => ({ first: b.first, last: b.last }))).toEqual([...bands.values()]);
    expect(view.bands[1].task).toBe('task 1');
    expect(view.time.hasTime).toBe(true);
    expect(view.time.min).toBe(view.steps[0].startTime);
    expect(view.time.max).toBe(view.steps[n - 1].endTime);
  });

  it('with the opening slices, leaves the timeline geometry of its opening mode built, as a build in one call would', () => {
    const large = bigRun(LARGE_STEPS + 10);
    const view = finish(runViewOpeningSlices(large));
    expect(view).toBe(runViewOf(large));
    const mode = initialTimelineMode(view);
    expect(mode).toBe('time');
    // Built already: the timeline's first render reads it from the cache.
    const built = builtTimelineGeometry(view, mode);
    expect(built).toBeDefined();
    expect(timelineGeometry(view, mode)).toBe(built);
    expect(builtTimelineGeometry(view, 'order')).toBeUndefined();
    // The same as one built from nothing (for a copy of the view, which has no cached geometry).
    const fresh = timelineGeometry({ ...view }, mode);
    expect(fresh).not.toBe(built);
    expect(fresh).toEqual(built);
    expect(timelineGeometry({ ...view }, 'order')).toEqual(finish(timelineGeometrySlices({ ...view }, 'order')));
  });

  it('says which runs are shown at once: those whose view is built, small or large', () => {
    const small = bigRun(100);
    expect(viewAtOnce(small)).toBe(false);
    runViewOf(small);
    expect(viewAtOnce(small)).toBe(true);
    const large = bigRun(LARGE_STEPS + 10);
    expect(viewAtOnce(large)).toBe(false);
    runViewOf(large);
    expect(viewAtOnce(large)).toBe(true);
    // A new run object with the same steps (a label added) reuses the trace part.
    expect(viewAtOnce({ ...large, annotations: [] })).toBe(true);
  });
});

describe('tool calls of a row with many requests', () => {
  it('counts, per agent and tool, the most any one step asks for, past the columns it scans', () => {
    const calls = (names: string[]) => names.map((name, i) => ({ id: `${name}${i}`, name, arguments: '{}' }));
    const tools = Array.from({ length: 12 }, (_, i) => `tool${i}`);
    const run = makeRun('many', {
      steps: [
        { id: 'row', index: 0, kind: 'action', agentId: 'manager', toolCalls: calls(tools) },
        // The same requests again, two of them twice: tool3 and tool11 count twice, the others once.
        { id: 'llm', index: 1, kind: 'llm', agentId: 'manager', parentStepId: 'row', toolCalls: calls([...tools, 'tool3', 'tool11']) },
        { id: 'llm2', index: 2, kind: 'llm', agentId: 'manager', parentStepId: 'row', toolCalls: calls(['tool0', 'tool11', 'extra']) },
      ],
    });
    const counts = toolCallCounts(run);
    expect(counts.get('tool3')).toBe(2);
    expect(counts.get('tool11')).toBe(2);
    expect(counts.get('tool0')).toBe(1);
    expect(counts.get('extra')).toBe(1);
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(15);
  });
});
