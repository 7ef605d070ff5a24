import { describe, expect, it } from 'vitest';
import type { RunView } from './run-view-model.ts';
import { drawTimeline } from './timeline.tsx';
import type { TimelineGeometry } from './timeline-geometry.ts';

/** A canvas context that counts its calls. */
function countingContext() {
  const calls = new Map<string, number>();
  const count = (name: string) => () => void calls.set(name, (calls.get(name) ?? 0) + 1);
  const ctx = new Proxy({} as Record<string, unknown>, {
    get: (target, key: string) => (key in target ? target[key] : count(key)),
    set: (target, key: string, value) => ((target[key] = value), true),
  });
  return { ctx: ctx as unknown as CanvasRenderingContext2D, calls };
}

describe('drawTimeline', () => {
  it('draws at most one loop mark and one error marker per pixel column and lane, however many steps', () => {
    const n = 100_000;
    const x0 = new Float64Array(n);
    const x1 = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      x0[p] = p;
      x1[p] = p + 1;
    }
    const view = {
      lanes: [{ agentId: 'a', name: 'a', depth: 0 }],
      bands: [],
      laneAt: new Int32Array(n),
      errorAt: new Uint8Array(n).fill(1),
      loopAt: new Int32Array(n),
      annotationPositions: new Int32Array(0),
      interventionPositions: new Int32Array(1),
    } as unknown as RunView;
    const g: TimelineGeometry = { mode: 'order', x0, x1, domain: [0, n], byLane: [] };
    const { ctx, calls } = countingContext();
    const width = 500;
    drawTimeline(ctx, view, g, [0, n], width, ['#000']);
    // Blocks, loop marks, lane backgrounds and the marker lanes: a few per pixel column, not one per step.
    expect(calls.get('fillRect') ?? 0).toBeLessThan(4 * width);
    // Error markers are paths, one per pixel column.
    expect(calls.get('beginPath') ?? 0).toBeLessThan(2 * width);
  });
});
