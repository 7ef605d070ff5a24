// @vitest-environment jsdom
// Issue 17, item 7: in the run view each panel has its own error boundary, so one throwing chart leaves the step
// list, the inspector and the rest of the view working.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyRecord } from '../../model/record.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { RunPage } from './run-page.tsx';

vi.mock('./token-charts.tsx', () => ({
  TokenCharts: () => {
    throw new RangeError('the token chart met a value it cannot draw');
  },
}));
// Drawing panels need layout jsdom does not have; stand-ins keep this test about the boundaries.
vi.mock('./interaction-graph.tsx', () => ({ InteractionGraphView: () => <p>graph drawn</p> }));
vi.mock('./timeline.tsx', () => ({ Timeline: () => <p>timeline drawn</p> }));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('run view boundaries', () => {
  it('shows the failing token charts as a note while the other panels render', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const run = makeRun('r1');
    const runs = emptyRecord<typeof run>();
    runs.r1 = run;
    useLibrary.setState({ hydrated: true, runs, files: [] });
    useUrl.setState({ view: 'run', params: { run: 'r1' } });
    render(<RunPage />);
    const alert = await screen.findByRole('alert', {}, { timeout: 10_000 }); // the panels' modules load on demand: slow on a loaded machine
    expect(alert.getAttribute('data-failed-panel')).toBe('token charts');
    expect(alert.textContent).toContain('RangeError: the token chart met a value it cannot draw');
    expect(screen.getByText('graph drawn')).toBeTruthy();
    expect(screen.getByText('timeline drawn')).toBeTruthy();
    expect(screen.getByTestId('inspector-panel')).toBeTruthy();
    expect(screen.getByTestId('run-view')).toBeTruthy();
  });
});
