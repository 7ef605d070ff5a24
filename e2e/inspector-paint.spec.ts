// The step inspector paints the same bounds whatever the step (issue 14 goal 3, ADR 0032): Chromium layerizes the whole
// page again on a playhead move when any paint chunk changes its bounds, and the inspector did on every move — its
// background followed the step's height, and each text box that clips or scrolls (`max-h overflow-auto`) is a chunk
// of its own whose bounds follow its text. So on a real trace: a step that fits the panel fills it, and nothing in the
// inspector clips or scrolls until the reader asks for more of a text (which then scrolls in its own box).
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';

const TRACE = 'who-and-when/hand-crafted/1.json';

skipWithoutShared(TRACE);
test.use({ viewport: { width: 1600, height: 1000 } });

async function openRun(page: Page) {
  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(TRACE));
  await expect(page.getByTestId('inspector')).toBeVisible();
  // The loop panel comes last (the panels are drawn in stages) and takes its height from the inspector's panel.
  await expect(page.getByTestId('loop-panel')).toBeVisible();
}

/** The inspector's box against its panel's, and the elements inside it that clip or scroll. */
function inspectorBox(page: Page) {
  return page.evaluate(() => {
    const panel = document.querySelector('[data-testid="inspector-panel"]')!;
    const inspector = panel.querySelector('[data-testid="inspector"]')!;
    const clipping = [...inspector.querySelectorAll('*')]
      .filter((el) => {
        const style = getComputedStyle(el);
        return style.overflowX !== 'visible' || style.overflowY !== 'visible';
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.getAttribute('class') ?? ''}`);
    return {
      position: inspector.getAttribute('data-position'),
      fits: panel.scrollHeight <= panel.clientHeight,
      height: Math.round(inspector.getBoundingClientRect().height),
      panelHeight: panel.clientHeight,
      clipping,
    };
  });
}

test('the inspector fills its panel and nothing in it clips or scrolls, step after step', async ({ page }) => {
  await openRun(page);
  let fitting = 0;
  for (let press = 0; press < 12; press++) {
    const box = await inspectorBox(page);
    expect(box.clipping, `step ${box.position}`).toEqual([]);
    if (box.fits) {
      fitting++;
      expect(box.height, `step ${box.position}`).toBe(box.panelHeight);
    }
    const position = box.position;
    await page.keyboard.press('j');
    await expect(page.getByTestId('inspector')).not.toHaveAttribute('data-position', position!);
  }
  // The trace's steps fit the panel at this size, most of them: the check above is not vacuous.
  expect(fitting).toBeGreaterThan(3);
});

test('a text shown whole scrolls in a box of its own; the next step starts cut again, without one', async ({ page }) => {
  await openRun(page);
  // The first step with a text long enough to be cut; each press waits until the inspector shows the next step.
  const inspector = page.getByTestId('inspector');
  const showAll = inspector.getByRole('button', { name: /^show all/ }).first();
  for (let press = 0; press < 40 && !(await showAll.isVisible()); press++) {
    const position = await inspector.getAttribute('data-position');
    await page.keyboard.press('j');
    await expect(inspector).not.toHaveAttribute('data-position', position!);
  }
  await expect(showAll).toBeVisible();
  // Its text shown by the markdown renderer, not the plain text shown until the renderer arrives (which moves the button).
  await expect(inspector.locator('[data-markdown="rendered"]:not(:has([data-testid="markdown"]))')).toHaveCount(0);
  const shown = await inspector.getAttribute('data-position');
  await showAll.click();
  // Read with the step it belongs to: a box on another step, or none on this one, each says so when it fails.
  await expect
    .poll(async () => {
      const box = await inspectorBox(page);
      return { position: box.position, grown: box.clipping.length > 0 };
    })
    .toEqual({ position: shown, grown: true });
  await page.keyboard.press('j');
  await expect.poll(async () => (await inspectorBox(page)).clipping).toEqual([]);
});

test('the markdown renderer is fetched once the run view is drawn: the first markdown text shows rendered at once', async ({ page }) => {
  await openRun(page);
  await expect
    .poll(() => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /markdown-view/.test(e.name))), { message: 'the renderer fetched ahead' })
    .toBe(true);
  // Every text the inspector shows as markdown from here on, as each is put in the page: drawn by the renderer, or by
  // the plain stand-in shown while the renderer loads (a <pre> directly in the text's box).
  await page.evaluate(() => {
    const seen = { rendered: 0, standIn: 0 };
    (window as unknown as { markdownSeen: typeof seen }).markdownSeen = seen;
    new MutationObserver(() => {
      for (const box of document.querySelectorAll('[data-testid="inspector"] [data-markdown="rendered"]')) {
        if (box.querySelector(':scope > pre')) seen.standIn++;
        else if (box.querySelector('[data-testid="markdown"]')) seen.rendered++;
      }
    }).observe(document.body, { subtree: true, childList: true });
  });
  const inspector = page.getByTestId('inspector');
  for (let press = 0; press < 40 && (await inspector.locator('[data-markdown="rendered"]').count()) === 0; press++) {
    const position = await inspector.getAttribute('data-position');
    await page.keyboard.press('j');
    await expect(inspector).not.toHaveAttribute('data-position', position!);
  }
  await expect(inspector.getByTestId('markdown').first()).toBeVisible();
  const seen = await page.evaluate(() => (window as unknown as { markdownSeen: { rendered: number; standIn: number } }).markdownSeen);
  expect(seen.rendered).toBeGreaterThan(0);
  expect(seen.standIn).toBe(0);
});
