import { describe, expect, it } from 'vitest';
import { contentOffset, listGeometry, MAX_SCROLL_HEIGHT, poolRows, rowInView, rowTop, scrollTopCentring, visibleRows, windowSlots } from './list-window.ts';

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

  it('keys rows by slots that never repeat in a window and are all reused after a jump', () => {
    for (const [count, viewport] of [[100_000, 800], [1_000_000, 813], [50, 800], [100_000, 37]] as const) {
      const g = listGeometry(count, 40, viewport);
      const slots = windowSlots(g, 4);
      const keysAt = (top: number) => {
        const { first, last } = visibleRows(g, top, 4);
        const keys = new Set<number>();
        for (let i = first; i <= last; i++) keys.add(i % slots);
        expect(keys.size).toBe(last - first + 1);
        return keys;
      };
      // Every scroll position, at sub-row offsets too, and a jump from the start to the end.
      for (let top = 0; top <= Math.min(4000, g.scrollHeight - viewport); top += 7) keysAt(top);
      keysAt(g.scrollHeight - viewport);
      // A full window (away from the ends) uses the slots of any other, but for one: a long jump creates or removes
      // at most one row and updates the others in place.
      if (count >= 1000) {
        const before = keysAt(g.scrollHeight / 10 + 13);
        const after = keysAt(g.scrollHeight * 0.77);
        expect([...after].filter((k) => !before.has(k)).length).toBeLessThanOrEqual(1);
      }
    }
  });

  it('a fixed pool of rows stays full at the ends and every row it shows is placed inside the content', () => {
    for (const g of [listGeometry(100_000, 40, 800), listGeometry(1_000_000, 40, 800), listGeometry(50, 40, 800)]) {
      const slots = windowSlots(g, 4);
      for (const top of [0, 7, 150, 4000, g.scrollHeight / 2, g.scrollHeight - g.viewport - 3, g.scrollHeight - g.viewport]) {
        const { first, last } = visibleRows(g, top, 4);
        const { start, end } = poolRows(g, top, first, slots);
        // Full (as many rows as slots, or every row of a short run) and holding every visible row.
        expect(end - start + 1).toBe(Math.min(slots, g.count));
        for (let i = Math.max(first, 0); i <= last; i++) {
          if (rowTop(g, top, i) >= 0 && rowTop(g, top, i) + g.row <= g.scrollHeight) {
            expect(i).toBeGreaterThanOrEqual(start);
            expect(i).toBeLessThanOrEqual(end);
          }
        }
        expect(rowTop(g, top, start)).toBeGreaterThanOrEqual(-1e-6);
        expect(rowTop(g, top, end) + g.row).toBeLessThanOrEqual(g.scrollHeight + 1e-6);
        // Rows in view are among them.
        const inView = Math.ceil(contentOffset(g, top) / g.row);
        if (inView < g.count) expect(inView >= start && inView <= end).toBe(true);
      }
    }
  });
});

