// @vitest-environment jsdom
// The playhead and the URL's `step` (playback.ts): the URL is written a moment after the playhead rests, so for that
// moment it names the step before. A view rebuilt then (a live run growing, a stage result or a label saved into the
// run) must not take that older step for a link to follow and pull the playhead back to it; a step the URL comes to
// name by itself (a link, back/forward) still moves it.
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Step } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { useUrl } from '../../store/url.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { useStepInUrl } from './playback.ts';
import { runViewOf, type RunView } from './run-view-model.ts';

function viewOf(length: number): RunView {
  const steps: Step[] = Array.from({ length }, (_, i) => ({ id: `r:s${i}`, index: i, kind: 'action', agentId: 'manager', agentRunId: 'r:r0', number: i + 1 }));
  return runViewOf(makeRun('r', { steps }));
}

afterEach(cleanup);
beforeEach(() => {
  usePlayhead.setState({ runId: undefined, position: 0, length: 0, playing: false });
  act(() => useUrl.getState().navigate('run', { run: 'r', step: '3' }));
});

describe('the step in the URL', () => {
  it('opens the run at the step the link names', () => {
    renderHook(({ view }) => useStepInUrl(view), { initialProps: { view: viewOf(10) } });
    expect(usePlayhead.getState().position).toBe(2);
  });

  it('a view rebuilt before the URL has caught up keeps the playhead where the keys put it', () => {
    const { rerender } = renderHook(({ view }) => useStepInUrl(view), { initialProps: { view: viewOf(10) } });
    act(() => usePlayhead.getState().moveTo(6));
    expect(useUrl.getState().params.step).toBe('3');
    rerender({ view: viewOf(10) });
    expect(usePlayhead.getState().position).toBe(6);
    // A live run that grew by a step meanwhile.
    rerender({ view: viewOf(11) });
    expect(usePlayhead.getState()).toMatchObject({ position: 6, length: 11 });
  });

  it('a step the URL comes to name (a link followed, back or forward) still moves the playhead', () => {
    const { rerender } = renderHook(({ view }) => useStepInUrl(view), { initialProps: { view: viewOf(10) } });
    act(() => usePlayhead.getState().moveTo(6));
    act(() => useUrl.getState().setParams({ step: '9' }));
    expect(usePlayhead.getState().position).toBe(8);
    rerender({ view: viewOf(10) });
    expect(usePlayhead.getState().position).toBe(8);
  });

  it('a link to a step a live run does not have yet opens it once the step arrives', () => {
    act(() => useUrl.getState().setParams({ step: '12' }));
    const { rerender, result } = renderHook(({ view }) => useStepInUrl(view), { initialProps: { view: viewOf(10) } });
    expect(result.current).toBe('12');
    rerender({ view: viewOf(11) });
    expect(usePlayhead.getState().position).not.toBe(11);
    rerender({ view: viewOf(12) });
    expect(usePlayhead.getState()).toMatchObject({ position: 11, length: 12 });
    expect(result.current).toBeUndefined();
  });
});
