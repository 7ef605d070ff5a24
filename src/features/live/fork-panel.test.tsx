// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRun } from '../../testing/test-runs.ts';
import type { Run } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { ForkPanel, STEP_OPTIONS_MAX } from './fork-panel.tsx';

/** A two-agent chat of `n` messages (a run the fork panel takes). */
function chat(id: string, n: number): Run {
  return makeRun(id, {
    agents: [{ id: 'a', name: 'a' }, { id: 'b', name: 'b' }],
    agentRuns: [],
    steps: Array.from({ length: n }, (_, i) => ({ id: `${id}:s${i}`, index: i, kind: 'message' as const, agentId: i % 2 ? 'b' : 'a', output: `message number ${i + 1}` })),
  });
}

function show(run: Run, at?: string) {
  useLibrary.setState({ runs: { [run.id]: run }, files: [], hydrated: true });
  useUrl.setState({ view: 'live', params: { tab: 'fork', forkOf: run.id, ...(at ? { at } : {}) } });
  return render(<ForkPanel />);
}

beforeEach(() => useUrl.setState({ view: 'live', params: {} }));
afterEach(cleanup);

describe('ForkPanel step picker', () => {
  it('lists every step of a run of up to STEP_OPTIONS_MAX steps', () => {
    show(chat('small', 12), 'small:s3');
    const picker = screen.getByLabelText('Fork step');
    expect(picker.tagName).toBe('SELECT');
    expect(picker).toHaveValue('small:s3');
    expect(picker.querySelectorAll('option')).toHaveLength(12);
    // Numbered as the step list numbers them (from 1), as the message box below says.
    expect(picker.querySelectorAll('option')[3]).toHaveTextContent(/^#4 b: message number 4$/);
    expect(screen.getByLabelText(/Message at step 4 /)).toHaveValue('message number 4');
  });

  it('takes the step of a larger run by its number, with what that step says', () => {
    const big = chat('big', STEP_OPTIONS_MAX + 500);
    show(big, 'big:s1200');
    const picker = screen.getByLabelText('Fork step');
    expect(picker.tagName).toBe('INPUT');
    expect(document.querySelectorAll('option[value^="big:s"]')).toHaveLength(0);
    expect(picker).toHaveValue(1201);
    expect(screen.getByTestId('fork-step-count')).toHaveTextContent('of 1,500');
    expect(screen.getByTestId('fork-step-shown')).toHaveTextContent('#1201 a: message number 1201');
    expect(screen.getByLabelText(/Message at step 1201 /)).toHaveValue('message number 1201');
    // Both speakers, in the order they first speak, each with its treatment.
    expect(screen.getAllByLabelText(/^Treatment of /).map((e) => e.getAttribute('aria-label'))).toEqual(['Treatment of a', 'Treatment of b']);

    act(() => void fireEvent.change(picker, { target: { value: '7' } }));
    expect(useUrl.getState().params.at).toBe('big:s6');
    expect(screen.getByTestId('fork-step-shown')).toHaveTextContent('#7 a: message number 7');
    expect(screen.getByLabelText(/Message at step 7 /)).toHaveValue('message number 7');

    // A number out of range says which are valid and leaves the step where it was.
    act(() => void fireEvent.change(picker, { target: { value: String(STEP_OPTIONS_MAX + 501) } }));
    expect(useUrl.getState().params.at).toBe('big:s6');
    expect(picker).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByTestId('fork-step-shown')).toHaveTextContent('a step number from 1 to 1,500');
    act(() => void fireEvent.blur(picker));
    expect(picker).toHaveValue(7);
    expect(picker).toHaveAttribute('aria-invalid', 'false');
  });
});
