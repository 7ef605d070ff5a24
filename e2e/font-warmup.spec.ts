import { expect, test } from '@playwright/test';
import { openStudio } from './fixtures.ts';

// The monospace font is matched once the page is idle after it opens (ADR 0091): a few hidden characters laid out in
// the font-mono stack, then removed. In the real browser: they come, in that font, hidden from sight, from the pointer
// and from assistive technology, and they go.
test('the monospace font is matched when the page is idle: hidden characters in it come and go', async ({ page }) => {
  await page.addInitScript(() => {
    const w = window as unknown as { __warmup: { seen: boolean; hidden: boolean; mono: boolean } };
    w.__warmup = { seen: false, hidden: false, mono: false };
    new MutationObserver(() => {
      const el = document.querySelector<HTMLElement>('[data-testid="font-warmup"]');
      if (!el || w.__warmup.seen) return;
      const style = getComputedStyle(el);
      const span = el.querySelector('span');
      w.__warmup = {
        seen: true,
        hidden: el.getAttribute('aria-hidden') === 'true' && style.visibility === 'hidden' && style.pointerEvents === 'none',
        mono: span !== null && /mono/i.test(getComputedStyle(span).fontFamily),
      };
    }).observe(document, { subtree: true, childList: true });
  });
  await openStudio(page);
  await expect.poll(() => page.evaluate('window.__warmup.seen')).toBe(true);
  expect(await page.evaluate('window.__warmup')).toEqual({ seen: true, hidden: true, mono: true });
  await expect(page.getByTestId('font-warmup')).toHaveCount(0);
});
