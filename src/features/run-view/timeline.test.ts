import { describe, expect, it } from 'vitest';
import type { RunView } from './run-view-model.ts';
import { drawTimeline, firstAtLeast } from './timeline.tsx';
import { timelineGeometry, type TimelineGeometry } from './timeline-geometry.ts';

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

/** A canvas context that records each drawing call with the colour it draws in. */
function recordingContext() {
  const calls: string[] = [];
  const state: Record<string, unknown> = {};
  const ctx = new Proxy(state, {
    get: (target, key: string) =>
      key in target ? target[key] : (...args: number[]) => void calls.push(`${String(target.fillStyle)} ${String(target.strokeStyle)} ${key}(${args.join(',')})`),
    set: (target, key: string, value) => ((target[key] = value), true),
  });
  return { ctx: ctx as unknown as CanvasRenderingContext2D, calls };
}

/** A seeded PRNG (mulberry32), so that a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('drawTimeline by chunks of a lane', () => {
  it.each([
    ['some long blocks', 2000],
    ['every block short', 0],
  ])('draws the same as step by step, whatever the window, width, errors, loops and order of the blocks (%s)', (_, long) => {
    const rand = random(14);
    const n = 30_000;
    const lanes = 4;
    const laneAt = new Int32Array(n);
    const start = new Float64Array(n);
    const end = new Float64Array(n);
    const errorAt = new Uint8Array(n);
    const loopAt = new Int32Array(n).fill(-1);
    let t = 1_760_000_000_000;
    let lane = 0;
    for (let p = 0; p < n; p++) {
      if (rand() < 0.3) lane = Math.floor(rand() * lanes);
      laneAt[p] = lane;
      // Mostly short steps, some long ones; lane 3 has steps that start before the one before them.
      t += rand() < 0.01 ? rand() * 5000 : rand() * 3;
      start[p] = lane === 3 && rand() < 0.2 ? t - rand() * 400 : t;
      end[p] = start[p] + (rand() < 0.02 ? rand() * long : rand() < 0.3 ? 0 : rand() * 2);
      // Errors sparse, and dense in one stretch; a loop over most of the middle.
      if (rand() < 0.002 || (p > 5000 && p < 6000 && rand() < 0.5) || (p > 20_000 && p < 21_000)) errorAt[p] = 1;
      if (p > 8000 && p < 25_000 && rand() < 0.9) loopAt[p] = 0;
    }
    let max = -Infinity;
    for (const e of end) max = Math.max(max, e);
    const view = {
      steps: { length: n },
      lanes: Array.from({ length: lanes }, (_, i) => ({ agentId: `a${i}`, name: `a${i}`, depth: 0 })),
      bands: [],
      laneAt,
      errorAt,
      loopAt,
      time: { start, end, hasTime: true, min: start[0], max },
      tokens: { cumulative: new Float64Array(n) },
      annotationPositions: new Int32Array([3, 7000]),
      interventionPositions: new Int32Array(0),
    } as unknown as RunView;
    const g = timelineGeometry(view, 'time');
    expect(g.chunks?.map((c) => c.sorted)).toEqual([true, true, true, false]);
    const [d0, d1] = g.domain;
    const span = d1 - d0;
    const windows: [number, number][] = [
      [d0, d1],
      [d0 + span * 0.3, d0 + span * 0.5],
      [d0 + span * 0.05, d0 + span * 0.0501],
      [d0 - span * 0.1, d0 + span * 0.2],
      [d0 + span * 0.9, d1 + span],
    ];
    let drawn = 0;
    for (const width of [300, 777]) {
      for (const win of windows) {
        const chunked = recordingContext();
        drawTimeline(chunked.ctx, view, g, win, width, ['#111', '#222', '#333', '#444']);
        const stepwise = recordingContext();
        drawTimeline(stepwise.ctx, view, { ...g, chunks: undefined }, win, width, ['#111', '#222', '#333', '#444']);
        // Lane by lane rather than in replay order: the same calls, lanes never overlap.
        expect(chunked.calls.toSorted(), `${width} px, window ${win.join('–')}`).toEqual(stepwise.calls.toSorted());
        drawn += chunked.calls.length;
      }
    }
    expect(drawn).toBeGreaterThan(5000);
  });
});

describe('firstAtLeast', () => {
  it('finds the first entry at or above the bound from any start and guess, as a linear search does', () => {
    const rand = random(3);
    for (let round = 0; round < 200; round++) {
      const values = Array.from({ length: 1 + Math.floor(rand() * 300) }, () => Math.floor(rand() * 50)).sort((a, b) => a - b);
      const from = Math.floor(rand() * values.length);
      const bound = Math.floor(rand() * 55) - 2;
      let expected = from;
      while (expected < values.length && values[expected] < bound) expected++;
      const positions = Int32Array.from(values, (_, i) => i);
      expect(firstAtLeast(values, positions, 0, 1, from, values.length, bound, 1 + Math.floor(rand() * 40))).toBe(expected);
    }
  });
});
