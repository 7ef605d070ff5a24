import { describe, expect, it } from 'vitest';
import { contentOffset, listGeometry, MAX_SCROLL_HEIGHT, rowInView, rowTop, scrollTopCentring, visibleRows } from './list-window.ts';

describe('the step list window', () => {
  it('below the cap, rows stack as they are and the scroll position is the offset', () => {
    const g = listGeometry(100_000, 40, 800);
    expect(g).toMatchObject({ total: 4_000_000, scrollHeight: 4_000_000, ratio: 1 });
    expect(visibleRows(g, 4000, 4)).toEqual({ first: 96, last: 124 });
    expect(rowTop(g, 4000, 100)).toBe(4000);
    expect(rowInView(g, 4000, 100)).toBe(true);
    expect(rowInView(g, 4000, 120)).toBe(false);
    expect(scrollTopCentring(g, 1000)).toBe(40_000 - 380);
    expect(scrollTopCentring(g, 0)).toBe(0);
  });

  it('a million rows fit under the browser’s height limit and the last one is reachable', () => {
    const g = listGeometry(1_000_000, 40, 800);
    expect(g.scrollHeight).toBe(MAX_SCROLL_HEIGHT);
    expect(g.scrollHeight).toBeLessThan(2 ** 25);
    // The scroll bar's end shows the last rows, placed inside the scrollable content.
    const end = g.scrollHeight - g.viewport;
    expect(contentOffset(g, end)).toBeCloseTo(g.total - g.viewport, 6);
    const { first, last } = visibleRows(g, end, 4);
    expect(last).toBe(999_999);
    expect(first).toBe(999_976);
    expect(rowTop(g, end, 999_999)).toBeCloseTo(g.scrollHeight - 40, 6);
    expect(rowInView(g, end, 999_999)).toBe(true);
    // Centring any row puts it in view, and its drawn place is inside the viewport.
    for (const index of [0, 1, 500_000, 838_861, 999_998, 999_999]) {
      const top = scrollTopCentring(g, index);
      expect(top).toBeGreaterThanOrEqual(0);
      expect(top).toBeLessThanOrEqual(end + 1e-6);
      expect(rowInView(g, top, index)).toBe(true);
      const drawn = rowTop(g, top, index);
      expect(drawn).toBeGreaterThanOrEqual(top - 1e-6);
      expect(drawn + 40).toBeLessThanOrEqual(top + g.viewport + 1e-6);
    }
  });

  it('an empty list has no rows', () => {
    expect(visibleRows(listGeometry(0, 40, 800), 0, 4)).toEqual({ first: 0, last: -1 });
  });
});
