import { describe, expect, it } from 'vitest';
import { diffStats, observationDiff, truncateSegments } from './observation-diff.tsx';

const rebuild = (segs: { kind: string; text: string }[], side: 'before' | 'after') =>
  segs.filter((s) => s.kind === 'same' || s.kind === (side === 'before' ? 'removed' : 'added')).map((s) => s.text).join('');

describe('observationDiff', () => {
  it('rebuilds both texts and merges neighbouring segments of the same kind', () => {
    const before = 'Address: http://x\n<div class="nav">Menu</div>\nThe answer is 42.';
    const after = 'Address: http://x\nMenu\nThe answer is 42.';
    const segs = observationDiff(before, after);
    expect(rebuild(segs, 'before')).toBe(before);
    expect(rebuild(segs, 'after')).toBe(after);
    for (let i = 1; i < segs.length; i++) expect(segs[i].kind === segs[i - 1].kind).toBe(false);
    expect(segs.some((s) => s.kind === 'removed' && s.text.includes('<div'))).toBe(true);
    const stats = diffStats(segs);
    expect(stats.kept + stats.removed).toBe(before.length);
    expect(stats.kept + stats.added).toBe(after.length);
  });

  it('uses a line diff on long texts and still rebuilds them', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} <span style="x">text</span>`);
    const before = lines.join('\n');
    const after = lines.filter((_, i) => i % 2 === 0).join('\n');
    const segs = observationDiff(before, after);
    expect(rebuild(segs, 'before')).toBe(before);
    expect(rebuild(segs, 'after')).toBe(after);
  });

  it('keeps script payloads as plain segment text', () => {
    const segs = observationDiff('<script>alert(1)</script>ok', 'ok');
    expect(segs).toEqual([
      { kind: 'removed', text: '<script>alert(1)</script>' },
      { kind: 'same', text: 'ok' },
    ]);
  });

  it('truncates at the limit and says so', () => {
    const segs = observationDiff('aaaa bbbb', 'aaaa cccc');
    const { shown, cut } = truncateSegments(segs, 6);
    expect(cut).toBe(true);
    expect(shown.map((s) => s.text).join('')).toHaveLength(6);
    expect(truncateSegments(segs, 1000).cut).toBe(false);
  });
});
