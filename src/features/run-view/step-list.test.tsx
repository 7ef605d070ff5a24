// @vitest-environment jsdom
// The step list follows the playhead over a long run (issue 14 goal 3): a jump updates the rendered rows in place
// (slot keys, ./list-window.ts) rather than removing and creating them, and the list scrolls to centre the new row.
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { flushSync } from 'react-dom';
import { afterEach, describe, expect, it } from 'vitest';
import type { Step } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { listGeometry, scrollTopCentring } from './list-window.ts';
import { runViewOf } from './run-view-model.ts';
import { StepList } from './step-list.tsx';

afterEach(cleanup);

const COUNT = 10_000;

describe('the step list', () => {
  it('a jump updates the rows in place and scrolls to the new current row', () => {
    const steps: Step[] = Array.from({ length: COUNT }, (_, i) => ({ id: `s${i}`, index: i, kind: 'action', agentId: i % 3 === 0 ? 'a' : 'b', output: `output ${i}` }));
    const view = runViewOf(makeRun('long', { steps }));
    usePlayhead.getState().load('long', view.steps.length, 0);
    render(<StepList view={view} />);
    const list = screen.getByTestId('step-list');
    const rowsAt = () => [...list.querySelectorAll('li')];
    const before = rowsAt();
    expect(before.length).toBeGreaterThan(20);
    expect(list.querySelector('[aria-current="step"]')).toHaveAttribute('data-position', '0');

    for (const target of [6_543, COUNT - 1, 4_321, 0]) {
      const previous = rowsAt();
      act(() => usePlayhead.getState().moveTo(target));
      const current = list.querySelector('[aria-current="step"]');
      expect(current).toHaveAttribute('data-position', String(target));
      expect(current).toHaveTextContent(`output ${target}`);
      // No layout in jsdom: the list's viewport is the assumed one (20 rows), as in the component.
      expect(list.scrollTop).toBe(Math.round(scrollTopCentring(listGeometry(COUNT, 40, 20 * 40), target)));
      // The rows rendered before are still the rows in the DOM (one may come or go where the window meets an end).
      const kept = rowsAt().filter((row) => previous.includes(row));
      expect(kept.length).toBeGreaterThanOrEqual(Math.min(previous.length, rowsAt().length) - 1);
    }
  });

  it('is a fixed pool of rows: a step, a scroll or a jump never adds, removes or reorders a row, it updates them in place', async () => {
    const steps: Step[] = Array.from({ length: COUNT }, (_, i) => ({ id: `s${i}`, index: i, kind: 'action', agentId: 'a', output: `output ${i}` }));
    const view = runViewOf(makeRun('long', { steps }));
    usePlayhead.getState().load('long', view.steps.length, 0);
    render(<StepList view={view} />);
    const list = screen.getByTestId('step-list');
    const ol = list.querySelector('ol')!;
    const pool = [...ol.children];
    const changes: MutationRecord[] = [];
    const observer = new MutationObserver((records) => {
      for (const r of records) if (r.type === 'childList') changes.push(r);
    });
    observer.observe(ol, { childList: true });
    // Steps within the window, steps that scroll it by a screen, jumps anywhere and back.
    for (const target of [1, 2, 25, 26, 60, 6_543, 6_544, COUNT - 1, COUNT - 2, 4_321, 100, 0]) {
      act(() => usePlayhead.getState().moveTo(target));
      await Promise.resolve(); // mutation records are delivered in a microtask
      expect(list.querySelector('[aria-current="step"]')).toHaveAttribute('data-position', String(target));
      expect([...ol.children]).toEqual(pool);
      // Each row sits at its place, and the pool holds consecutive rows.
      const rows = [...ol.children] as HTMLElement[];
      for (const row of rows) expect(row.style.top).toBe(`${Number(row.dataset.position) * 40}px`);
      const positions = rows.map((row) => Number(row.dataset.position)).sort((a, b) => a - b);
      expect(positions).toEqual(positions.map((_, i) => positions[0] + i));
      expect(ol.querySelector(`[data-position="${target}"]`)).toHaveTextContent(`output ${target}`);
    }
    observer.disconnect();
    expect(changes).toEqual([]);
  });

  it('a jump shows the new rows in the same task as the move (the frame after the key shows it whole)', () => {
    const steps: Step[] = Array.from({ length: COUNT }, (_, i) => ({ id: `s${i}`, index: i, kind: 'action', agentId: 'a', output: `output ${i}` }));
    const view = runViewOf(makeRun('long', { steps }));
    usePlayhead.getState().load('long', view.steps.length, 0);
    render(<StepList view={view} />);
    const list = screen.getByTestId('step-list');
    // As a key does: a synchronous render, then nothing else before the browser paints (no scheduler task, no act).
    const actEnvironment = (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT;
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
    try {
      flushSync(() => usePlayhead.getState().moveTo(7_777));
      expect(list.querySelector('[aria-current="step"]')).toHaveAttribute('data-position', '7777');
      expect(list.querySelector('[data-position="7777"]')).toHaveTextContent('output 7777');
      expect(list.scrollTop).toBe(Math.round(scrollTopCentring(listGeometry(COUNT, 40, 20 * 40), 7_777)));
    } finally {
      (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = actEnvironment;
    }
  });

  it("shows a row's step name as a tooltip only while the pointer is on it, so a move changes no row's title", () => {
    const steps: Step[] = Array.from({ length: 200 }, (_, i) => ({ id: `s${i}`, index: i, kind: 'tool', name: `tool_${i}`, agentId: 'a', output: `output ${i}` }));
    const view = runViewOf(makeRun('names', { steps }));
    usePlayhead.getState().load('names', view.steps.length, 0);
    render(<StepList view={view} />);
    const list = screen.getByTestId('step-list');
    expect(list.querySelectorAll('li[title]')).toHaveLength(0);
    const row = list.querySelector('li[data-position="3"]') as HTMLElement;
    fireEvent.pointerEnter(row);
    expect(row).toHaveAttribute('title', 'tool_3');
    // A jump puts another step in this pooled row; the next pointer move over it names that step.
    act(() => usePlayhead.getState().moveTo(150));
    expect(list.querySelectorAll('li[title]').length).toBeLessThanOrEqual(1);
    const position = row.getAttribute('data-position');
    fireEvent.pointerMove(row);
    expect(row).toHaveAttribute('title', `tool_${position}`);
    fireEvent.pointerLeave(row);
    expect(row).not.toHaveAttribute('title');
  });
});
