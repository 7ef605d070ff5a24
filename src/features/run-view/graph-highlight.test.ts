import { describe, expect, it } from 'vitest';
import { drawHighlight, type HighlightShape } from './interaction-graph.tsx';

/** A 2D context that records what is drawn, in order (the calls drawHighlight makes). */
function recordingContext() {
  const calls: string[] = [];
  const ctx = new Proxy(
    {},
    {
      get: (_target, key: string) => (key in drawn ? drawn[key] : (...args: unknown[]) => calls.push(`${key}(${args.filter((a) => typeof a === 'string').join(',')})`)),
      set: (_target, key: string, value: unknown) => {
        drawn[key] = value;
        if (key === 'fillStyle' || key === 'strokeStyle' || key === 'font') calls.push(`${key}=${String(value)}`);
        return true;
      },
    },
  ) as CanvasRenderingContext2D;
  const drawn: Record<string, unknown> = {};
  return { ctx, calls };
}

const edge = { start: [0, 0] as [number, number], control: [50, 20] as [number, number], end: [100, 0] as [number, number], width: 4 };

describe("the current step's highlight on the graph", () => {
  it("writes the current edges' counts again, after (above) the thick curves that would cover them", () => {
    const { ctx, calls } = recordingContext();
    const shape: HighlightShape = { edges: [{ ...edge, count: { text: '×250k', at: [50, 10], color: '#b45309' } }], pruned: false, ring: { at: [0, 0], r: 10 } };
    drawHighlight(ctx, shape, { k: 1, x: 0, y: 0 }, 1, { width: 200, height: 100 });
    const curve = calls.indexOf('stroke()');
    const outline = calls.indexOf('strokeText(×250k)');
    const text = calls.indexOf('fillText(×250k)');
    expect(curve).toBeGreaterThanOrEqual(0);
    expect(outline).toBeGreaterThan(curve);
    expect(text).toBeGreaterThan(outline);
    // In the edge's colour, outlined in white, as the graph's own count.
    expect(calls.slice(outline - 1, text)).toContain('fillStyle=#b45309');
    expect(calls.slice(0, outline)).toContain('strokeStyle=#fff');
  });

  it('writes the names of the nodes it touches again, last, as the graph writes them (bold for an agent, in the page’s font)', () => {
    const { ctx, calls } = recordingContext();
    const shape: HighlightShape = {
      edges: [{ ...edge, count: { text: '×3', at: [50, 10], color: '#b45309' } }],
      pruned: false,
      names: [
        { text: 'research-agent', at: [0, 30], agent: true },
        { text: 'run_python', at: [100, 25], agent: false },
      ],
    };
    drawHighlight(ctx, shape, { k: 1, x: 0, y: 0 }, 1, { width: 200, height: 100 }, 'Arial, sans-serif');
    const agent = calls.indexOf('fillText(research-agent)');
    const tool = calls.indexOf('fillText(run_python)');
    expect(agent).toBeGreaterThan(calls.indexOf('fillText(×3)'));
    expect(calls.slice(0, agent).filter((c) => c.startsWith('font=')).pop()).toBe('font=600 11px Arial, sans-serif');
    expect(calls.slice(agent, tool).filter((c) => c.startsWith('font=')).pop()).toBe('font=11px Arial, sans-serif');
  });

  it('writes no count for an edge without one (a graph of more than 40 edges writes none)', () => {
    const { ctx, calls } = recordingContext();
    drawHighlight(ctx, { edges: [edge], pruned: false }, { k: 1, x: 0, y: 0 }, 1, { width: 200, height: 100 });
    expect(calls.some((c) => c.startsWith('fillText') || c.startsWith('strokeText'))).toBe(false);
  });
});
