// Stages against the playhead and the heatmap matrix, on offline stages and on a native session that carries
// recorded stages with the adapter's selection probabilities (read by the native importer, exported unchanged).
import { describe, expect, it } from 'vitest';
import { exportSession } from '../../export/native.ts';
import { importBytes } from '../../import/index.ts';
import { indexRun } from '../../model/run-index.ts';
import type { Run, Stage } from '../../model/types.ts';
import { boardChanges, placeStages, selectionMatrix, stageIndexAt } from './lookup.ts';
import { deriveOfflineStages } from './offline.ts';
import { managerRun } from '../../testing/stage-runs.ts';

const positions = (run: Run) => {
  const replay = indexRun(run).replaySteps;
  return { positionOf: new Map(replay.map((s, i) => [s.id, i])), length: replay.length };
};

/** A run as an EvoMAS-style system would record it: stages with layers drawn from a pool of three, probabilities per layer. */
function recordedRun(): Run {
  const run = managerRun();
  const stages: Stage[] = [
    {
      id: 'rec-1',
      index: 0,
      startStepId: 'p1',
      subtasks: [
        { id: 'a', title: 'Search', status: 'TODO' },
        { id: 'b', title: 'Answer', status: 'TODO' },
      ],
      nextSubtaskId: 'a',
      summary: 'Start.',
      layers: [
        [
          { agentId: 'm', probability: 0.7, selected: true },
          { agentId: 'w', probability: 0.3, selected: false },
        ],
        [
          { agentId: 'w', probability: 0.6, selected: true },
          { agentId: 'exit', probability: 0.4, selected: false },
        ],
      ],
    },
    {
      id: 'rec-2',
      index: 1,
      // No end recorded: runs until the end of the run.
      startStepId: 'p2',
      subtasks: [
        { id: 'a', title: 'Search', status: 'DONE' },
        { id: 'b', title: 'Answer', status: 'TODO' },
        { id: 'c', title: 'Verify', status: 'TODO' },
      ],
      nextSubtaskId: 'b',
      verdict: 'success',
      confidence: 0.9,
      layers: [[{ agentId: 'm', probability: 0.2 }, { agentId: 'exit', probability: 0.8 }]],
    },
    { id: 'rec-x', index: 2, startStepId: 'not-in-this-run', subtasks: [], layers: [] },
  ];
  return { ...run, stages };
}

describe('placing stages on the replay', () => {
  it('offline stages: every position maps to the stage holding it; the closing state is kept apart', () => {
    const run = managerRun();
    const { positionOf, length } = positions(run);
    const placed = placeStages(deriveOfflineStages(run).stages, positionOf, length);
    expect(placed.stages.map((s) => s.id)).toEqual(['stage-1', 'stage-2', 'stage-3', 'stage-4']);
    expect(placed.closing?.id).toBe('stage-closing');
    const at = Array.from({ length }, (_, p) => placed.stages[stageIndexAt(placed, p)].id);
    expect(at).toEqual(['stage-1', 'stage-1', 'stage-2', 'stage-2', 'stage-2', 'stage-3', 'stage-3', 'stage-3', 'stage-4']);
  });

  it('recorded stages: open-ended stages run to the next; steps before the first stage and unknown steps are reported', () => {
    const run = recordedRun();
    run.stages![0].startStepId = 'a1';
    const { positionOf, length } = positions(run);
    const placed = placeStages(run.stages, positionOf, length);
    expect(placed.unplaced.map((s) => s.id)).toEqual(['rec-x']);
    expect(Array.from(placed.starts)).toEqual([1, 5]);
    expect(Array.from(placed.ends)).toEqual([4, length - 1]);
    expect(stageIndexAt(placed, 0)).toBe(-1);
    expect(stageIndexAt(placed, 4)).toBe(0);
    expect(stageIndexAt(placed, length - 1)).toBe(1);
    expect(placeStages(undefined, positionOf, length).stages).toEqual([]);
  });
});

describe('board changes', () => {
  it('status changes and new subtasks against the stage before; nothing is "new" on the first board', () => {
    const [first, second] = recordedRun().stages!;
    expect(boardChanges(undefined, first).size).toBe(0);
    expect([...boardChanges(first, second)]).toEqual([
      ['a', { kind: 'status', from: 'TODO' }],
      ['c', { kind: 'new' }],
    ]);
  });
});

describe('selection matrix', () => {
  it('recorded probabilities by stage × layer × agent, with the instantiated agents', () => {
    const m = selectionMatrix(recordedRun().stages!.slice(0, 2));
    expect(m.measure).toBe('probability');
    expect(m.agents).toEqual(['m', 'w', 'exit']);
    expect(m.layers).toBe(2);
    expect(m.value[0]).toEqual([
      [0.7, 0.3, NaN],
      [NaN, 0.6, 0.4],
    ]);
    expect(m.value[1]).toEqual([
      [0.2, NaN, 0.8],
      [NaN, NaN, NaN],
    ]);
    expect(m.selected[0]).toEqual([
      [true, false, false],
      [false, true, false],
    ]);
    // Absent `selected` means the listed agent ran.
    expect(m.selected[1][0]).toEqual([true, false, true]);
  });

  it('derived stages give observed frequencies, never probabilities', () => {
    const m = selectionMatrix(deriveOfflineStages(managerRun()).stages);
    expect(m.measure).toBe('frequency');
    expect(m.value[1]).toEqual([
      [1, NaN],
      [NaN, 1],
    ]);
  });
});

describe('native sessions with recorded stages', () => {
  it('the importer reads them as recorded and an export round-trips them unchanged', () => {
    const run = recordedRun();
    const text = exportSession({ runs: [run] });
    const imported = importBytes('evomas.session.json', new TextEncoder().encode(text));
    expect(imported.format).toBe('native');
    expect(imported.runs[0].stages).toEqual(run.stages);
    expect(imported.runs[0].stages!.every((s) => s.derivedBy === undefined)).toBe(true);
    const again = importBytes('unknown.json', new TextEncoder().encode(exportSession({ runs: imported.runs })));
    expect(again.runs[0]).toEqual(imported.runs[0]);
  });

  it('a stage with a status outside TODO / DONE / FAILED / NEED-REFINE is refused with its JSON path', () => {
    const run = recordedRun();
    (run.stages![1].subtasks[0] as { status: string }).status = 'MAYBE';
    expect(() => importBytes('bad.session.json', new TextEncoder().encode(exportSession({ runs: [run] })))).toThrow(/runs\[0\]\.stages\[1\]\.subtasks\[0\]\.status/);
  });
});
