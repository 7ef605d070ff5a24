import { describe, expect, it } from 'vitest';
import { layoutGraph } from './graph-layout.ts';

describe('layoutGraph', () => {
  const input = {
    nodes: [
      { id: 'agent:mgr', depth: 0, radius: 16 },
      { id: 'agent:a', depth: 1, radius: 12 },
      { id: 'agent:b', depth: 1, radius: 12 },
      { id: 'tool:search', depth: 2, radius: 10 },
    ],
    links: [
      { source: 'agent:mgr', target: 'agent:a', weight: 3 },
      { source: 'agent:mgr', target: 'agent:b', weight: 1 },
      { source: 'agent:a', target: 'tool:search', weight: 5 },
      { source: 'agent:a', target: 'missing', weight: 1 },
    ],
  };

  it('places every node, deterministically, managers above the agents they manage', () => {
    const first = layoutGraph(input);
    expect(Object.keys(first.positions).sort()).toEqual(['agent:a', 'agent:b', 'agent:mgr', 'tool:search']);
    expect(layoutGraph(input)).toEqual(first);
    const y = (id: string) => first.positions[id][1];
    expect(y('agent:mgr')).toBeLessThan(y('agent:a'));
    expect(y('agent:mgr')).toBeLessThan(y('agent:b'));
    expect(y('agent:a')).toBeLessThan(y('tool:search'));
  });

  it('keeps nodes apart', () => {
    const many = { nodes: Array.from({ length: 50 }, (_, i) => ({ id: `n${i}`, depth: 0, radius: 12 })), links: [] };
    const points = Object.values(layoutGraph(many).positions);
    let closest = Infinity;
    for (let i = 0; i < points.length; i++)
      for (let j = i + 1; j < points.length; j++) closest = Math.min(closest, Math.hypot(points[i][0] - points[j][0], points[i][1] - points[j][1]));
    expect(closest).toBeGreaterThan(24);
  });
});
