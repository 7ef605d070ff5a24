import { describe, expect, it } from 'vitest';
import { edgeGateLabel, parseEdgeGate, routeEdge, sampleValue } from './edge-gate.ts';
import type { EdgeState } from './edges.ts';

const edge = (id: string, message: string): EdgeState => {
  const a = { id: 'a', name: 'A' };
  const b = { id: 'b', name: 'B' };
  return { id, task: 't', sender: a, receiver: b, receivers: [b], message, history: [] };
};

describe('edge gate', () => {
  it('parses the settings and refuses anything else', () => {
    expect(parseEdgeGate('all')).toMatchObject({ mode: 'all' });
    expect(parseEdgeGate('flagged')).toMatchObject({ mode: 'flagged' });
    expect(parseEdgeGate('flagged+sample')).toMatchObject({ mode: 'flagged+sample', sampleRate: 0.1 });
    expect(parseEdgeGate('flagged+sample:0.25', 9)).toEqual({ mode: 'flagged+sample', sampleRate: 0.25, seed: 9 });
    for (const bad of ['some', 'flagged:0.2', 'flagged+sample:1.5', 'all:0.1', '']) expect(parseEdgeGate(bad), bad).toBeUndefined();
    expect(edgeGateLabel(parseEdgeGate('flagged+sample:0.3')!)).toBe('flagged+sample:0.3');
  });

  it('routes flagged edges to the model, skips the rest, and samples deterministically near the rate', () => {
    const flagged = edge('h0', 'The total is [insert value] dollars.');
    const plain = edge('h1', 'The total is 42 dollars.');
    expect(routeEdge(flagged, { mode: 'flagged', sampleRate: 0, seed: 1 }).route).toBe('flagged');
    expect(routeEdge(plain, { mode: 'flagged', sampleRate: 0, seed: 1 }).route).toBe('skipped');
    expect(routeEdge(plain, { mode: 'all', sampleRate: 0, seed: 1 }).route).toBe('all');
    const ids = Array.from({ length: 2000 }, (_, i) => `run:h${i}`);
    const picked = ids.filter((id) => routeEdge(edge(id, 'fine'), { mode: 'flagged+sample', sampleRate: 0.2, seed: 3 }).route === 'sampled');
    expect(picked.length / ids.length).toBeGreaterThan(0.16);
    expect(picked.length / ids.length).toBeLessThan(0.24);
    expect(ids.filter((id) => sampleValue(id, 3) < 0.2)).toEqual(picked);
    expect(ids.filter((id) => sampleValue(id, 4) < 0.2)).not.toEqual(picked);
  });
});
