// The step list's window over a run of any length (issue 14 goal 3): rows have one fixed height, so which rows are
// visible and where they go is arithmetic. A browser cannot lay out an element taller than about 33.5 million pixels
// (a million 40 px rows is 40 million), so above MAX_SCROLL_HEIGHT the scrollable height is capped and the scroll
// position is scaled onto the rows: the bar's ends are the run's ends, and rows are placed relative to the scroll
// position so they sit where they are drawn.

/** Scrollable height above which the scroll position is scaled (well under Chromium's limit of 2^25 px). */
export const MAX_SCROLL_HEIGHT = 8_000_000;

export interface ListGeometry {
  count: number;
  row: number;
  viewport: number;
  /** Height of every row stacked. */
  total: number;
  /** Height of the scrollable content: `total`, capped at MAX_SCROLL_HEIGHT. */
  scrollHeight: number;
  /** Content pixels per scrolled pixel (1 unless capped). */
  ratio: number;
}

export function listGeometry(count: number, row: number, viewport: number, max = MAX_SCROLL_HEIGHT): ListGeometry {
  const total = count * row;
  const scrollHeight = Math.min(total, max);
  const ratio = total > scrollHeight && scrollHeight > viewport ? (total - viewport) / (scrollHeight - viewport) : 1;
  return { count, row, viewport, total, scrollHeight, ratio };
}

/** Where in the stacked rows the top of the viewport is, for a scroll position. */
export function contentOffset(g: ListGeometry, scrollTop: number): number {
  return scrollTop * g.ratio;
}

/** The scroll position that puts `offset` (in the stacked rows) at the top of the viewport. */
export function scrollTopFor(g: ListGeometry, offset: number): number {
  return Math.max(0, Math.min(offset, g.total - g.viewport)) / g.ratio;
}

/** First and last row to render (inclusive), `overscan` rows beyond the viewport on each side. */
export function visibleRows(g: ListGeometry, scrollTop: number, overscan: number): { first: number; last: number } {
  if (g.count === 0) return { first: 0, last: -1 };
  const offset = contentOffset(g, scrollTop);
  const first = Math.max(0, Math.floor(offset / g.row) - overscan);
  const last = Math.min(g.count - 1, Math.ceil((offset + g.viewport) / g.row) + overscan);
  return { first, last };
}

/** Where to place row `index` in the scrollable content, so it shows where the scaled scroll position says. */
export function rowTop(g: ListGeometry, scrollTop: number, index: number): number {
  return g.ratio === 1 ? index * g.row : scrollTop + index * g.row - contentOffset(g, scrollTop);
}

/** Whether row `index` is wholly inside the viewport at this scroll position. */
export function rowInView(g: ListGeometry, scrollTop: number, index: number): boolean {
  const offset = contentOffset(g, scrollTop);
  const top = index * g.row;
  return top >= offset && top + g.row <= offset + g.viewport;
}

/** The scroll position that centres row `index` in the viewport. */
export function scrollTopCentring(g: ListGeometry, index: number): number {
  return scrollTopFor(g, index * g.row - (g.viewport - g.row) / 2);
}

/**
 * How many row slots the list keys its rows by (`index % slots`): at least the most rows `visibleRows` can return for
 * this viewport, so keys never repeat in a window, and no more, so that any two windows use the same slots. A jump
 * anywhere then updates the rendered rows in place (new text, new place) instead of removing and creating them all.
 */
export function windowSlots(g: ListGeometry, overscan: number): number {
  return Math.ceil(g.viewport / g.row) + 2 * overscan + 2;
}

/**
 * The rows a fixed pool of `slots` rows shows (inclusive): the window's rows from `first`, moved up at the run's end so
 * the pool stays full, and only rows whose place lies inside the scrollable content (where the scroll position is
 * scaled, rows far above or below the viewport would be placed outside it and make it taller).
 */
export function poolRows(g: ListGeometry, scrollTop: number, first: number, slots: number): { start: number; end: number } {
  if (g.count === 0) return { start: 0, end: -1 };
  // rowTop(i) = scrollTop + i * row - contentOffset: at least 0, and its row ends by scrollHeight.
  const shift = contentOffset(g, scrollTop) - scrollTop;
  const lowest = Math.max(0, Math.ceil(shift / g.row - 1e-9));
  const highest = Math.min(g.count - 1, Math.floor((g.scrollHeight + shift) / g.row + 1e-9) - 1);
  const start = Math.max(lowest, Math.min(first, highest - slots + 1));
  return { start, end: Math.min(highest, start + slots - 1) };
}
