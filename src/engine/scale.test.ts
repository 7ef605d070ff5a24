// Scale (issue 17, item 9): `clarify` and `stages` offline on a run with 40,000 agents. Both used to grow with the
// square of the agent count (a scan back through every earlier handoff per handoff; a scan of every agent per agent
// to find a manager; a scan of every handoff per stage) and took minutes; linear, they take about a second. No time is
// asserted here (performance is measured by benchmarks, not timed unit tests): these tests check what the passes find
// at this size; a quadratic version shows only as a test that takes minutes (the clarifier's) or half a minute.
import { describe, expect, it } from 'vitest';
import type { Handoff, Run, Step } from '../model/types.ts';
import { makeRun } from '../testing/test-runs.ts';
import { clarifyRun } from './clarifier/pass.ts';
import { deriveOfflineStages } from './stages/offline.ts';

const N = 40_000;

/** Agents side by side, each passing a message to the next. */
function chainOfMessages(n: number): Run {
  const agents = Array.from({ length: n }, (_, i) => ({ id: `a${i}`, name: `agent ${i}` }));
  const steps: Step[] = agents.map((a, i) => ({ id: `s${i}`, index: i, kind: 'message', agentId: a.id, output: `note ${i}` }));
  const handoffs: Handoff[] = agents.slice(1).map((a, i) => ({ id: `h${i}`, from: `a${i}`, to: [a.id], kind: 'message', content: `over to ${i + 1}`, stepId: `s${i + 1}` }));
  return makeRun('wide', { agents, agentRuns: [], steps, handoffs });
}

/** A manager that delegates to `n` managed agents in ten action steps; each managed agent acts once. */
function managerOfMany(n: number): Run {
  const agents = [{ id: 'boss', name: 'boss' }, ...Array.from({ length: n }, (_, i) => ({ id: `w${i}`, name: `worker ${i}`, parentId: 'boss' }))];
  const steps: Step[] = [];
  const handoffs: Handoff[] = [];
  const per = n / 10;
  for (let stage = 0; stage < 10; stage++) {
    const stepId = `boss-${stage}`;
    steps.push({ id: stepId, index: steps.length, kind: 'action', agentId: 'boss', output: `round ${stage}` });
    for (let k = stage * per; k < (stage + 1) * per; k++) {
      handoffs.push({ id: `d${k}`, from: 'boss', to: [`w${k}`], kind: 'delegation', content: `task ${k}`, stepId });
      steps.push({ id: `w${k}-0`, index: steps.length, kind: 'message', agentId: `w${k}`, output: `done ${k}` });
    }
  }
  return makeRun('deep', { agents, agentRuns: [], steps, handoffs });
}

describe(`${N} agents`, () => {
  it('clarify offline checks every edge (a quadratic pass would take minutes and time out)', async () => {
    const run = chainOfMessages(N);
    const value = await clarifyRun(run);
    expect(value.status).toBe('complete');
    expect(value.interventions.length).toBeGreaterThan(0);
  }, 120_000);

  it('stages offline looks for a manager among twice as many agents (a quadratic pass would time out)', async () => {
    const run = chainOfMessages(2 * N);
    const value = deriveOfflineStages(run);
    expect(value.segmentation.mode).toBe('whole-run');
    expect(value.segmentation.managerReason).toBe(`no agent manages or delegates to the ${2 * N} others`);
  }, 120_000);

  it('stages offline: a manager delegating to all of them gets its stages, work items and layers', () => {
    const value = deriveOfflineStages(managerOfMany(N));
    expect(value.segmentation.managerId).toBe('boss');
    const stages = value.stages.filter((s) => !s.closing);
    expect(stages).toHaveLength(10);
    expect(stages[0].subtasks[0].title).toMatch(/^worker 0: task 0/);
    expect(stages[0].layers[1]).toHaveLength(N / 10);
  }, 120_000);
});
