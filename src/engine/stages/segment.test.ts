// Offline segmentation and task state: hand-made runs checked stage by stage, and every real trace of
// ../shared/traces segmented under the documented rule (skipped when the folder is absent).
import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, importShared, sharedFiles, SKIP_REASON } from '../../testing/fixture-kit.ts';
import { indexRun } from '../../model/run-index.ts';
import { Run as RunSchema } from '../../model/schema.ts';
import type { Run } from '../../model/types.ts';
import { deriveOfflineStages } from './offline.ts';
import { findManager, segmentRun } from './segment.ts';
import { chatRun, managerRun } from '../../testing/stage-runs.ts';

const ids = (run: Run, start: number, end: number) => indexRun(run).replaySteps.slice(start, end + 1).map((s) => s.id);

describe('segmentation at manager steps', () => {
  it('action mode: each manager action step opens a stage, the plan before it joins it, managed runs join the step that launched them', () => {
    const run = managerRun();
    const seg = segmentRun(run);
    expect(seg.managerId).toBe('m');
    expect(seg.mode).toBe('action');
    expect(seg.segments.map((s) => ids(run, s.start, s.end))).toEqual([['p1', 'a1'], ['a2', 'w1', 'w2'], ['p2', 'a3', 'w3'], ['a4']]);
    // The nested model call of a4 is not a replay step and belongs to no segment of its own.
    expect(seg.steps.map((s) => s.id)).not.toContain('a4c');
  });

  it('turn mode: a manager turn (consecutive messages) opens a stage; the task message joins the first', () => {
    const run = chatRun();
    const seg = segmentRun(run);
    expect(seg.managerId).toBe('orch');
    expect(findManager(run).reason).toMatch(/most delegations \(2\)/);
    expect(seg.mode).toBe('turn');
    expect(seg.segments.map((s) => ids(run, s.start, s.end))).toEqual([['c0', 'c1', 'c2', 'c3'], ['c4', 'c5'], ['c6']]);
  });

  it('without a manager the run is one stage, and says why', () => {
    const run = chatRun();
    run.handoffs = [];
    const seg = segmentRun(run);
    expect(seg.managerId).toBeUndefined();
    expect(seg.mode).toBe('whole-run');
    expect(seg.segments).toHaveLength(1);
    expect(seg.managerReason).toMatch(/no agent manages or delegates/);
    const derived = deriveOfflineStages(run);
    expect(derived.note).toMatch(/the run is one stage.*No manager/);
  });

  it('a run without steps has no stages', () => {
    const run = managerRun();
    run.steps = [];
    expect(deriveOfflineStages(run).stages).toEqual([]);
  });
});

describe('offline task state', () => {
  it('one work item per stage; statuses from errors and repeated targets; the board a stage starts from', () => {
    const { stages } = deriveOfflineStages(managerRun());
    expect(stages.map((s) => s.id)).toEqual(['stage-1', 'stage-2', 'stage-3', 'stage-4', 'stage-closing']);
    expect(stages.every((s) => s.heuristic === true && s.derivedBy === 'offline')).toBe(true);
    expect(stages.map((s) => [s.startStepId, s.endStepId])).toEqual([['p1', 'a1'], ['a2', 'w2'], ['p2', 'w3'], ['a4', 'a4'], [undefined, undefined]]);
    const titles = stages[4].subtasks.map((s) => s.title);
    expect(titles).toEqual(['web_search(town population)', 'worker: Find the census page of the town.', 'worker: Check the census figure.', 'Give the final answer']);
    // What each stage starts from: earlier items judged, its own item active (TODO).
    expect(stages.map((s) => s.subtasks.map((t) => t.status))).toEqual([
      ['TODO'],
      ['FAILED', 'TODO'],
      ['FAILED', 'NEED-REFINE', 'TODO'],
      ['FAILED', 'NEED-REFINE', 'FAILED', 'TODO'],
      ['FAILED', 'NEED-REFINE', 'FAILED', 'DONE'],
    ]);
    expect(stages.map((s) => s.nextSubtaskId)).toEqual(['t1', 't2', 't3', 't4', undefined]);
    expect(stages.map((s) => s.verdict)).toEqual([undefined, 'failure', 'needs refinement', 'failure', 'success']);
    expect(stages[1].feedback).toBe('manager step 2 failed: RateLimitError: too many requests');
    expect(stages[2].feedback).toBe('worker returned without an error, but the next stage goes back to worker');
    expect(stages[3].feedback).toBe('worker ended on an error: TimeoutError: page did not load');
    // No evaluator offline, so no confidence.
    expect(stages.some((s) => s.confidence !== undefined)).toBe(false);
    expect(stages[0].summary).toBe('Nothing completed yet.');
    expect(stages[4].summary).toBe('1 done: Give the final answer');
    expect(stages[0].plan).toEqual(['Search the web for the town.', 'Read the census page.', 'Answer.']);
    expect(stages[2].plan).toEqual(['Check the figure.', 'Answer.']);
    expect(stages[0].notes?.[0]).toMatch(/^Heuristic: a stage opens at each action step of the manager\. Manager: manager/);
  });

  it('layers: the manager, then agents by depth below it, with observed turn frequencies (never probabilities)', () => {
    const { stages } = deriveOfflineStages(managerRun());
    expect(stages[0].layers).toEqual([[{ agentId: 'm', turns: 1, frequency: 1 }]]);
    expect(stages[1].layers).toEqual([[{ agentId: 'm', turns: 1, frequency: 1 }], [{ agentId: 'w', turns: 1, frequency: 1 }]]);
    const chat = deriveOfflineStages(chatRun()).stages;
    // The human's task message is not a selection of the workflow.
    expect(chat[0].layers).toEqual([[{ agentId: 'orch', turns: 1, frequency: 1 }], [{ agentId: 'surfer', turns: 1, frequency: 1 }]]);
    expect(chat[1].layers[1]).toEqual([{ agentId: 'coder', turns: 1, frequency: 1 }]);
    expect(chat.flatMap((s) => s.layers.flat()).some((e) => e.probability !== undefined)).toBe(false);
  });

  it('offline stages validate against the session schema', () => {
    const run = { ...managerRun(), stages: deriveOfflineStages(managerRun()).stages };
    expect(RunSchema.safeParse(run).success).toBe(true);
  });
});

describe.skipIf(!HAVE_SHARED)('real traces', () => {
  if (!HAVE_SHARED) console.warn(SKIP_REASON);
  const files = [...sharedFiles('trail'), ...sharedFiles('who-and-when'), ...sharedFiles('tau-bench'), ...sharedFiles('langfuse'), ...sharedFiles('otlp')].filter((f) => !/annotations/.test(f));

  it.each(files.map((f) => [f.split('/traces/')[1], f]))('%s: stages tile the replay steps and open at manager steps', (_name, file) => {
    for (const run of importShared(file).runs) {
      const seg = segmentRun(run);
      const { stages } = deriveOfflineStages(run);
      const replay = indexRun(run).replaySteps;
      if (replay.length === 0) {
        expect(stages).toEqual([]);
        continue;
      }
      // Contiguous, in order, covering every replay step exactly once.
      expect(seg.segments[0].start).toBe(0);
      expect(seg.segments.at(-1)!.end).toBe(replay.length - 1);
      for (let i = 1; i < seg.segments.length; i++) expect(seg.segments[i].start).toBe(seg.segments[i - 1].end + 1);
      // Each stage after the first opens on a manager step; action mode: one stage per manager action step.
      for (const s of seg.segments.slice(1)) expect(replay[s.start].agentId).toBe(seg.managerId);
      if (seg.mode === 'action') {
        const actions = seg.segments.map((s) => s.managerSteps.filter((m) => m.kind === 'action').length);
        expect(actions.every((n) => n === 1)).toBe(true);
      }
      // A managed agent run never straddles a border: it belongs to the stage of the manager step that launched it.
      const segmentAt = (p: number) => seg.segments.findIndex((s) => s.start <= p && p <= s.end);
      for (const r of run.agentRuns.filter((x) => x.parentRunId !== undefined)) {
        const at = new Set(replay.flatMap((s, p) => (s.agentRunId === r.id ? [segmentAt(p)] : [])));
        expect(at.size).toBeLessThanOrEqual(1);
      }
      expect(stages).toHaveLength(seg.segments.length + 1);
      stages.slice(0, -1).forEach((st, i) => {
        expect(st.subtasks).toHaveLength(i + 1);
        expect(st.subtasks[i].status).toBe('TODO');
        expect(st.layers[0]?.[0]?.agentId ?? seg.managerId).toBe(seg.managerId ?? st.layers[0]?.[0]?.agentId);
      });
      expect(stages.at(-1)!.closing).toBe(true);
      expect(stages.at(-1)!.subtasks.every((t) => t.status !== 'TODO')).toBe(true);
    }
  });

  it('TRAIL GAIA 3205fa0c: six stages; the search_agent delegations sit in stages 4 and 5; the first is judged for refinement', () => {
    const [file] = sharedFiles('trail/gaia', /^3205fa0cb2135fe671bf7cd0e5a26151\.json$/);
    const run = importShared(file).runs[0];
    const { stages } = deriveOfflineStages(run);
    expect(stages).toHaveLength(7);
    expect(stages.map((s) => s.layers.length)).toEqual([1, 1, 1, 2, 2, 1, 0]);
    expect(stages[3].layers[1]).toEqual([{ agentId: 'agent-search_agent', turns: 1, frequency: 1 }]);
    expect(stages[4].subtasks[3]).toMatchObject({ status: 'NEED-REFINE' });
    expect(stages[4].subtasks[3].title).toMatch(/^search_agent: Please convert the attached JSON/);
    expect(stages[1].verdict).toBe('failure');
    expect(stages[5].subtasks[5].title).toBe('Give the final answer');
    expect(stages[0].plan!.length).toBeGreaterThan(2);
  });
});
