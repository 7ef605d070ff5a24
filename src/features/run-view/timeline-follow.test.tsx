// @vitest-environment jsdom
// The zoomed timeline follows the playhead in the key's own task (issue 14 goal 3): when a move leaves the zoomed
// window, the window moves to the new step before the browser paints, so the frame after the key shows the current
// block inside the timeline rather than the old window for a frame.
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createRef } from 'react';
import { flushSync } from 'react-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Step } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { runViewOf } from './run-view-model.ts';
import { Timeline } from './timeline.tsx';

const WIDTH = 600;
// jsdom lays nothing out: the timeline is given a width, as its ResizeObserver would.
vi.mock('../../ui/use-element-width.ts', () => ({ useElementWidth: () => [createRef(), WIDTH] }));

afterEach(cleanup);
// No canvas in jsdom: the blocks and the playhead are not drawn (what is tested is where the playhead is put).
HTMLCanvasElement.prototype.getContext = (() => null) as unknown as HTMLCanvasElement['getContext'];

/** The x of the current block's left edge in the timeline (drawn on the playhead canvas, held in `data-x`), in pixels. */
function currentBlockX(): number {
  const block = screen.getByTestId('timeline').querySelector('[data-current="true"]') as HTMLElement;
  return Number(block.dataset.x);
}

describe('the zoomed timeline', () => {
  it('moves its window to a step outside it in the same task as the move', () => {
    const steps: Step[] = Array.from({ length: 2_000 }, (_, i) => ({ id: `s${i}`, index: i, kind: 'action', agentId: i % 2 ? 'a' : 'b', output: `step ${i}` }));
    const view = runViewOf(makeRun('zoom', { steps }));
    usePlayhead.getState().load('zoom', view.steps.length, 0);
    render(<Timeline view={view} />);
    const canvas = screen.getByTestId('timeline-canvas');
    // Zoom in far (each wheel notch shows 80 % of the window).
    for (let i = 0; i < 20; i++) fireEvent.wheel(canvas, { deltaY: -100, clientX: 0 });
    expect(currentBlockX()).toBeGreaterThanOrEqual(-1);
    const actEnvironment = (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT;
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
    try {
      // As a key does: a synchronous render, then nothing else before the browser paints (no scheduler task, no act).
      flushSync(() => usePlayhead.getState().moveTo(1_500));
      expect(screen.getByTestId('timeline')).toHaveAttribute('data-position', '1500');
      const x = currentBlockX();
      expect(x).toBeGreaterThanOrEqual(-1);
      expect(x).toBeLessThanOrEqual(WIDTH);
    } finally {
      (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = actEnvironment;
    }
  });
});

describe("the timeline's playhead marks", () => {
  it('paint no opaque filled rectangle (an opaque area that moves made Chromium re-layerize the page on every move)', () => {
    const steps: Step[] = Array.from({ length: 50 }, (_, i) => ({ id: `s${i}`, index: i, kind: 'action', agentId: 'a', output: `step ${i}` }));
    const view = runViewOf(makeRun('marks', { steps }));
    usePlayhead.getState().load('marks', view.steps.length, 10);
    render(<Timeline view={view} />);
    const layer = screen.getByTestId('timeline-playhead-layer');
    const filled = [...layer.querySelectorAll('rect')].filter((r) => (r.getAttribute('fill') ?? 'none') !== 'none');
    // The bounds holder and the playhead line.
    expect(filled.length).toBeGreaterThanOrEqual(2);
    // SVG's fill-opacity is inherited: a shape's own, else the nearest one above it inside the layer, else 1.
    const fillOpacity = (shape: Element): number => {
      for (let e: Element | null = shape; e && e !== layer.parentElement; e = e.parentElement) {
        const own = e.getAttribute('fill-opacity');
        if (own !== null) return Number(own);
      }
      return 1;
    };
    for (const rect of filled) expect(fillOpacity(rect)).toBeLessThan(1);
  });
});
