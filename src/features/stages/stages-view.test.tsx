// @vitest-environment jsdom
// The stage view's pieces without a browser: the board renders trace text as text and marks what changed, the
// workflow graph draws one node per listed agent (faded when not instantiated), the heatmap says whether it shows
// probabilities or frequencies, and the job's helpers keep stages in order and never overwrite recorded ones.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { deriveOfflineStages } from '../../engine/stages/index.ts';
import { managerRun } from '../../testing/stage-runs.ts';
import type { Stage } from '../../model/types.ts';
import { callsOfRuns } from '../library/download.ts';
import { runViewOf } from '../run-view/run-view-model.ts';
import { SelectionHeatmap } from './selection-heatmap.tsx';
import { sourceOf, stageViewOf } from './stage-view-model.ts';
import { withStage } from '../../model/run-results.ts';
import { hasRecordedStages, llmStages } from './stages-job.ts';
import { SubtaskBoard } from './subtask-board.tsx';
import { WorkflowGraph } from './workflow-graph.tsx';

const PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

describe('subtask board', () => {
  it('renders subtask titles and feedback as text, with status columns, the active subtask and the changes', () => {
    const before: Stage = { id: 'a', index: 0, subtasks: [{ id: 's1', title: 'Search', status: 'TODO' }], nextSubtaskId: 's1', layers: [] };
    const after: Stage = {
      id: 'b',
      index: 1,
      subtasks: [
        { id: 's1', title: 'Search', status: 'FAILED' },
        { id: 's2', title: PAYLOAD, status: 'TODO' },
      ],
      nextSubtaskId: 's2',
      verdict: 'failure',
      confidence: 0.4,
      feedback: PAYLOAD,
      layers: [],
      derivedBy: 'llm',
    };
    const { container } = render(<SubtaskBoard stage={after} previous={before} label="stage 2 of 2" />);
    expect(container.querySelector('img, script')).toBeNull();
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
    expect(screen.getAllByText(PAYLOAD, { exact: false })).toHaveLength(2);
    const cards = container.querySelectorAll('[data-testid="subtask-card"]');
    expect([...cards].map((c) => [c.getAttribute('data-subtask'), c.getAttribute('data-status'), c.getAttribute('data-changed'), c.getAttribute('data-active')])).toEqual([
      ['s2', 'TODO', 'new', 'true'],
      ['s1', 'FAILED', 'TODO', null],
    ]);
    expect(container.querySelector('[data-testid="board-column-FAILED"]')!.textContent).toContain('Search');
    expect(screen.getByTestId('verdict-confidence').textContent).toBe('confidence 0.40');
  });
});

describe('workflow graph and heatmap', () => {
  it('one node per listed agent per layer; recorded probabilities label the nodes; unselected agents are faded', () => {
    const stage: Stage = {
      id: 'r',
      index: 0,
      subtasks: [],
      layers: [
        [
          { agentId: 'm', probability: 0.7, selected: true },
          { agentId: 'w', probability: 0.3, selected: false },
        ],
        [{ agentId: 'w', probability: 0.9 }],
      ],
    };
    const { container } = render(<WorkflowGraph stage={stage} agentName={(id) => `agent ${id}`} colors={new Map()} />);
    const nodes = [...container.querySelectorAll('[data-testid="workflow-node"]')];
    expect(nodes.map((n) => [n.getAttribute('data-agent'), n.getAttribute('data-layer'), n.getAttribute('data-selected')])).toEqual([
      ['m', '1', 'true'],
      ['w', '1', 'false'],
      ['w', '2', 'true'],
    ]);
    expect(nodes[0].textContent).toContain('p = 0.70');
    // Edges: task state → m, m → w (the unselected w in layer 1 has none).
    expect(container.querySelectorAll('path')).toHaveLength(2);
    expect(screen.getByTestId('workflow-graph').textContent).toContain('recorded selection probabilities');
  });

  it('derived stages: the heatmap says frequency and draws one column per stage plus the closing state', () => {
    const run = { ...managerRun(), stages: deriveOfflineStages(managerRun()).stages };
    const model = stageViewOf(runViewOf(run));
    expect(model.source).toBe('offline');
    expect(model.note).toMatch(/^Heuristic:/);
    const { container } = render(<SelectionHeatmap model={model} current={1} onPick={() => undefined} />);
    expect(screen.getByTestId('selection-heatmap').getAttribute('data-measure')).toBe('frequency');
    expect(container.textContent).toContain('frequency, not a probability');
    const columns = [...container.querySelectorAll('[data-testid="heatmap-column"]')];
    expect(columns.map((c) => c.getAttribute('data-stage'))).toEqual(['stage-1', 'stage-2', 'stage-3', 'stage-4', 'stage-closing']);
    expect(columns[1].getAttribute('data-current')).toBe('true');
  });
});

describe('stages on the run', () => {
  it('withStage keeps stage order and replaces by id; recorded stages are recognised; only all-LLM stages resume', () => {
    const base = managerRun();
    const s = (id: string, index: number, patch: Partial<Stage> = {}): Stage => ({ id, index, subtasks: [], layers: [], derivedBy: 'llm', ...patch });
    let run = withStage(base, s('stage-2', 1));
    run = withStage(run, s('stage-1', 0));
    run = withStage(run, s('stage-2', 1, { summary: 'again' }));
    expect(run.stages!.map((x) => [x.id, x.summary])).toEqual([
      ['stage-1', undefined],
      ['stage-2', 'again'],
    ]);
    expect(base.stages).toBeUndefined();
    expect(llmStages(run)).toHaveLength(2);
    expect(hasRecordedStages(run)).toBe(false);
    const mixed = withStage(run, s('rec', 2, { derivedBy: undefined }));
    expect(hasRecordedStages(mixed)).toBe(true);
    expect(llmStages(mixed)).toEqual([]);
    expect(sourceOf(mixed.stages)).toBe('mixed');
    expect(sourceOf(undefined)).toBe('none');
  });

  it('the calls of derived stages export with the run', () => {
    const run = withStage(managerRun(), { id: 'stage-1', index: 0, subtasks: [], layers: [], derivedBy: 'llm', llmCallIds: ['h#1'] });
    const record = { id: 'h#1', requestHash: 'h', model: 'm', request: {} };
    expect(callsOfRuns([run], { 'h#1': record, 'other#1': { ...record, id: 'other#1' } })).toEqual([record]);
  });
});
