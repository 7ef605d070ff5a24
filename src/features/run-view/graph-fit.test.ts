// The interaction graph fills its panel: a round cluster in a wide panel is spread along x (a tall one along y), at the
// scale the other side allows; nothing moves when the shapes already match.
import { describe, expect, it } from 'vitest';
import { recordOf } from '../../model/record.ts';
import { fitTransform, graphBounds, MAX_SCALE, MAX_SPREAD, spreadToPanel } from './graph-fit.ts';

/** Six nodes on a circle of radius 100, as the force layout leaves a team where everyone talks to everyone. */
const ring = recordOf(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`a${i}`, [Math.round(100 * Math.cos((i * Math.PI) / 3)), Math.round(100 * Math.sin((i * Math.PI) / 3))] as [number, number]])));
const nodes = Object.keys(ring).map((id) => ({ id, half: 40 }));
const size = (b: { x0: number; x1: number; y0: number; y1: number }) => [b.x1 - b.x0, b.y1 - b.y0];

describe('spreadToPanel', () => {
  it('widens a round drawing to a wide panel at the scale its height allows, and keeps its height', () => {
    const [w0, h0] = size(graphBounds(nodes, ring)!);
    expect([w0, h0]).toEqual([280, 264]);
    const spread = spreadToPanel(nodes, ring, 600, 250);
    const b = graphBounds(nodes, spread)!;
    const [w, h] = size(b);
    expect(h).toBe(h0);
    const { scale } = fitTransform(b, 600, 250);
    expect(scale).toBeCloseTo(250 / h0, 2); // the height still decides the scale (centres are rounded to whole units)…
    expect(w * scale).toBeGreaterThan(595); // …and the drawing is now as wide as the panel
    expect(w * scale).toBeLessThanOrEqual(601);
    // Order along x is kept; names keep their size (only centres move).
    expect(spread.a0[0]).toBeGreaterThan(ring.a0[0]);
    expect(spread.a3[0]).toBeLessThan(ring.a3[0]);
  });

  it('heightens it in a tall panel, and spreads no more than MAX_SPREAD times', () => {
    const tall = spreadToPanel(nodes, ring, 300, 600);
    const [w, h] = size(graphBounds(nodes, tall)!);
    expect(w).toBe(280);
    expect(h).toBeGreaterThan(264);
    const far = spreadToPanel(nodes, ring, 5000, 250);
    expect(far.a0[0]).toBe(100 * MAX_SPREAD);
  });

  it('leaves a drawing alone when its shape already fits, or when the panel is not measured yet', () => {
    expect(spreadToPanel(nodes, ring, 280, 264)).toBe(ring);
    expect(spreadToPanel(nodes, ring, 0, 250)).toBe(ring);
    expect(spreadToPanel([], ring, 800, 250)).toBe(ring);
  });

  it('does not magnify a small graph past MAX_SCALE to fill a panel: it spreads it instead', () => {
    const pair = recordOf({ a: [-30, 0] as [number, number], b: [30, 0] as [number, number] });
    const two = [{ id: 'a', half: 40 }, { id: 'b', half: 40 }];
    const spread = spreadToPanel(two, pair, 800, 400);
    const b = graphBounds(two, spread)!;
    expect(fitTransform(b, 800, 400).scale).toBe(MAX_SCALE);
    expect((b.x1 - b.x0) * MAX_SCALE).toBeLessThanOrEqual(801);
    expect(spread.b[0] - spread.a[0]).toBeGreaterThan(60);
  });

  it('keeps names from the trace as plain keys (__proto__, constructor)', () => {
    const hostile = recordOf({ ['__proto__']: [-100, 0] as [number, number], constructor: [100, 0] as [number, number] });
    const list = [{ id: '__proto__', half: 40 }, { id: 'constructor', half: 40 }];
    const spread = spreadToPanel(list, hostile, 900, 150);
    expect(Object.keys(spread).sort()).toEqual(['__proto__', 'constructor']);
    expect(spread['__proto__'][0]).toBeLessThan(-100);
    expect(Object.getPrototypeOf(spread)).toBeNull();
  });
});
