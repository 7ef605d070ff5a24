// Waiting for something to be shown, timed by the page's own clock. A locator's waitFor (and expect's polling) checks
// at 0, 20, 100, 100 ms and then every 500 ms: a figure timed around it lands on those polls, so the same work read
// ~400 ms or ~900 ms (the span tree, ADR 0103). Here the page checks each frame and says when it saw it.
import type { Page } from '@playwright/test';

export interface ShownOptions {
  timeout: number;
  /** Only an element whose text holds this. */
  text?: string;
  /** 'epoch': the time as ms since 1970 (Date.now() in Node reads the same clock), for a wait across a navigation. */
  clock?: 'page' | 'epoch';
}

/** The first frame in which an element matching `selector` is shown (and holds `text`): the page's performance.now() then. */
export async function whenShown(page: Page, selector: string, { timeout, text, clock = 'page' }: ShownOptions): Promise<number> {
  const found = await page.waitForFunction(
    ([sel, want, epoch]) => {
      // Shown as a locator's waitFor means it: in the document, and drawn (a box, not hidden).
      const hit = Array.from(document.querySelectorAll(sel)).some((e) => e.checkVisibility() && (want === null || (e.textContent ?? '').includes(want)));
      if (!hit) return false;
      return epoch ? performance.timeOrigin + performance.now() : performance.now();
    },
    [selector, text ?? null, clock === 'epoch'] as const,
    { polling: 'raf', timeout },
  );
  return (await found.jsonValue()) as number;
}
