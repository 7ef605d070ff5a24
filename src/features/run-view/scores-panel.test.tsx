// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { usePlayhead } from '../../store/playhead.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { runViewOf } from './run-view-model.ts';
import { ScoresPanel } from './scores-panel.tsx';

afterEach(cleanup);

describe('scores and labels panel', () => {
  it('lists every score and label with its source and value, and jumps to the step a label names', async () => {
    const run = makeRun('r1', {
      steps: [
        { id: 's0', index: 0, kind: 'action', agentId: 'a' },
        { id: 's1', index: 1, kind: 'action', agentId: 'a' },
        { id: 's2', index: 2, kind: 'action', agentId: 'a' },
      ],
      annotations: [
        { id: 'x1', source: 'dataset', taxonomy: 'TRAIL-score', code: 'reliability', evidence: '3', score: 3 },
        { id: 'x2', source: 'dataset', taxonomy: 'Langfuse', code: 'helpfulness', value: 0.8 },
        { id: 'x3', source: 'dataset', taxonomy: 'WhoWhen', code: 'mistake', stepId: 's2', description: 'the agent copied the wrong cell' },
        { id: 'x4', source: 'human', taxonomy: 'TRAIL', code: 'Tool Selection Errors', stepId: 's1' },
      ],
    });
    const view = runViewOf(run);
    usePlayhead.getState().load('r1', view.steps.length, 0);
    render(<ScoresPanel view={view} />);
    const scores = screen.getByRole('table', { name: 'Scores of the run' });
    expect(within(scores).getAllByTestId('score-row').map((r) => r.textContent)).toEqual([
      expect.stringContaining('reliability3'),
      expect.stringContaining('helpfulness0.8'),
    ]);
    const labels = screen.getByRole('table', { name: 'Labels of the run' });
    expect(within(labels).getAllByTestId('score-row')).toHaveLength(2);
    expect(labels).toHaveTextContent('person');
    expect(labels).toHaveTextContent('the agent copied the wrong cell');
    await userEvent.click(within(labels).getByRole('button', { name: `step ${view.positionOf.get('s2')! + 1} ›` }));
    expect(usePlayhead.getState().position).toBe(view.positionOf.get('s2'));
  });
});
