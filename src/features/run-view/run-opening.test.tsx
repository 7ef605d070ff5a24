// @vitest-environment jsdom
// ADR 0024, 0033: a run of more than LARGE_STEPS steps opens on a progress bar while its view is built in slices, then
// paints the step list and inspector, then the graph, timeline and charts; a small run is built in slices too, without
// a bar (its build takes a frame or two), and its panels follow one another without a status line.
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyRecord } from '../../model/record.ts';
import type { Run, Step } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { LARGE_STEPS, prepareRunViewAhead, RUN_VIEW_BUILD_MEASURE, runViewBuilding, viewAtOnce } from './run-view-loader.ts';
import { RunPage } from './run-page.tsx';

// Drawing panels need layout jsdom does not have.
vi.mock('./interaction-graph.tsx', () => ({ InteractionGraphView: () => <p>graph drawn</p> }));
vi.mock('./timeline.tsx', () => ({ Timeline: () => <p>timeline drawn</p> }));
vi.mock('./token-charts.tsx', () => ({ TokenCharts: () => <p>charts drawn</p> }));

afterEach(() => cleanup());

function open(run: Run) {
  const runs = emptyRecord<Run>();
  runs[run.id] = run;
  useLibrary.setState({ hydrated: true, runs, files: [] });
  useUrl.setState({ view: 'run', params: { run: run.id } });
  render(<RunPage />);
}

// Each panel of a 12,000-step run is a task of its own: on a loaded 2-core machine one may take longer than the
// library's 1 s default wait (an order, not a time, is what these tests check).
const PANEL_WAIT = { timeout: 10_000 };

describe('opening a run', () => {
  it('a large run: a progress bar, then the step list, then the other panels', async () => {
    const n = LARGE_STEPS + 2_000;
    // Every tenth step is nested in the one before: the preparing screen names the rows, as the toolbar does.
    const steps: Step[] = Array.from({ length: n }, (_, i) => ({
      id: `s${i}`,
      index: i,
      kind: i % 3 ? 'action' : 'message',
      agentId: 'manager',
      output: `step ${i}`,
      ...(i % 10 === 9 ? { parentStepId: `s${i - 1}` } : {}),
    }));
    const rows = steps.filter((s) => s.parentStepId === undefined).length;
    // Every state the page goes through, as a person would see it: which panels are drawn, and what the status says.
    const seen: { drawn: string[]; status: string | null }[] = [];
    const watch = new MutationObserver(() => {
      const drawn = ['graph', 'timeline', 'charts'].filter((p) => screen.queryByText(`${p} drawn`) !== null);
      seen.push({ drawn, status: screen.queryByTestId('panels-drawing')?.textContent ?? null });
    });
    watch.observe(document.body, { subtree: true, childList: true, characterData: true });
    open(makeRun('large', { steps, agentRuns: [] }));
    const bar = screen.getByRole('progressbar');
    expect(screen.getByTestId('run-preparing').textContent).toContain(`of ${rows.toLocaleString('en')} steps`);
    expect(bar.getAttribute('aria-valuenow')).toBe('0');
    expect(screen.queryByTestId('run-view')).toBeNull();
    expect(await screen.findByTestId('run-view', {}, { timeout: 20_000 })).toBeTruthy();
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.getByTestId('run-step-counts').dataset.steps).toBe(String(rows));
    // Then the other panels, one task after another (none drawn with the step list).
    expect(screen.queryByText('graph drawn')).toBeNull();
    expect(await screen.findByText('graph drawn', {}, PANEL_WAIT)).toBeTruthy();
    expect(screen.queryByText('charts drawn')).toBeNull();
    expect(await screen.findByText('timeline drawn', {}, PANEL_WAIT)).toBeTruthy();
    expect(await screen.findByText('charts drawn', {}, PANEL_WAIT)).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('panels-drawing')).toBeNull(), PANEL_WAIT);
    watch.disconnect();
    // The status line never names a panel already drawn, and it said what was left at each stage.
    const names = { graph: 'graph', timeline: 'timeline', charts: 'token charts' } as const;
    for (const { drawn, status } of seen) for (const p of drawn) expect(status ?? '').not.toContain(names[p as keyof typeof names]);
    const said = new Set(seen.map((s) => s.status).filter((s): s is string => s !== null));
    expect([...said]).toEqual(['Drawing the graph, the timeline and the token charts…', 'Drawing the timeline and the token charts…', 'Drawing the token charts…', 'Drawing the loop panel…']);
  }, 30_000);

  it('a small run: no progress bar, the step list and inspector first, then every panel, no status line', async () => {
    open(makeRun('small'));
    expect(screen.getByTestId('run-preparing')).toBeTruthy();
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(await screen.findByTestId('run-view')).toBeTruthy();
    expect(screen.getByTestId('inspector-panel')).toBeTruthy();
    expect(screen.queryByText('graph drawn')).toBeNull();
    expect(screen.queryByTestId('panels-drawing')).toBeNull();
    expect(await screen.findByText('graph drawn')).toBeTruthy();
    expect(await screen.findByText('charts drawn')).toBeTruthy();
    expect(screen.queryByTestId('panels-drawing')).toBeNull();
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('a run prepared ahead (ADR 0078): opened meanwhile, the page waits for that build; left, the build still ends', async () => {
    const n = LARGE_STEPS + 2_000;
    const steps: Step[] = Array.from({ length: n }, (_, i) => ({ id: `p${i}`, index: i, kind: 'message', agentId: 'manager', output: `said ${i}` }));
    const run = makeRun('ahead', { steps, agentRuns: [] });
    const before = performance.getEntriesByName(RUN_VIEW_BUILD_MEASURE).length;
    prepareRunViewAhead(run);
    expect(runViewBuilding(run)).toBe(true);
    // Asked again (another file of one run opened meanwhile names it again): one build.
    prepareRunViewAhead(run);
    open(run);
    expect(screen.getByTestId('run-preparing')).toBeTruthy();
    expect(await screen.findByTestId('run-view', {}, { timeout: 20_000 })).toBeTruthy();
    const built = performance.getEntriesByName(RUN_VIEW_BUILD_MEASURE).slice(before) as PerformanceMeasure[];
    expect(built.map((e) => (e.detail as { ahead: boolean; steps: number }).ahead)).toEqual([true]);
    expect(runViewBuilding(run)).toBe(false);
    cleanup();

    // Prepared, then the page opened and left before the build ends: the build goes on, and the run opens at once.
    const other = makeRun('left', { steps: steps.map((s) => ({ ...s })), agentRuns: [] });
    prepareRunViewAhead(other);
    open(other);
    cleanup();
    expect(runViewBuilding(other)).toBe(true);
    await waitFor(() => expect(runViewBuilding(other)).toBe(false), { timeout: 20_000 });
    expect(viewAtOnce(other)).toBe(true);
    open(other);
    expect(screen.queryByTestId('run-preparing')).toBeNull();
    expect(screen.getByTestId('run-view')).toBeTruthy();
  }, 40_000);

  it('a run without steps (a benchmark result line): says so, and the toolbar says "no steps", not "step 1 / 0"', async () => {
    open(makeRun('results-only', { steps: [], agentRuns: [] }));
    expect(await screen.findByText('This run has no steps to replay.')).toBeTruthy();
    expect(screen.getByTestId('playhead-position').textContent).toBe('no steps');
    // Nothing to move through: the transport and the speed are disabled.
    const playback = screen.getByRole('group', { name: 'Playback' });
    for (const name of ['First step', 'Previous step', 'Play', 'Next step', 'Last step']) expect((within(playback).getByRole('button', { name }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(playback).getByRole('combobox') as HTMLSelectElement).disabled).toBe(true);
  });
});
