// What a playhead move changes (issue 14 goal 3, ADR 0021): the graph's highlight is drawn on a canvas over the graph
// (a move changes pixels, not elements, so it does not make Chromium layerize the page again), and the step list is a
// fixed pool of rows (a jump updates the rows in place: none is added, removed or reordered).
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';

const TRACE = 'who-and-when/hand-crafted/1.json';

skipWithoutShared(TRACE);

async function openRun(page: Page) {
  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(TRACE));
  await expect(page.getByTestId('run-view')).toBeVisible();
  await expect(page.getByTestId('graph-current')).toBeAttached();
}

/** The highlight's red pixels on the canvas, as a box in page coordinates (undefined when none are drawn). */
async function highlightBox(page: Page) {
  return page.getByTestId('graph-current').evaluate((canvas: HTMLCanvasElement) => {
    const ctx = canvas.getContext('2d')!;
    const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let [x0, y0, x1, y1, n] = [Infinity, Infinity, -Infinity, -Infinity, 0];
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        // #e11d48 (225, 29, 72), opaque
        if (data[i + 3] > 200 && data[i] > 180 && data[i + 1] < 90 && data[i + 2] < 130) {
          n++;
          x0 = Math.min(x0, x);
          y0 = Math.min(y0, y);
          x1 = Math.max(x1, x);
          y1 = Math.max(y1, y);
        }
      }
    }
    if (n === 0) return undefined;
    const rect = canvas.getBoundingClientRect();
    const scale = rect.width / width;
    return { left: rect.left + x0 * scale, top: rect.top + y0 * scale, right: rect.left + (x1 + 1) * scale, bottom: rect.top + (y1 + 1) * scale, pixels: n };
  });
}

test('the graph highlight is drawn on a canvas around the current agent and follows the playhead', async ({ page }) => {
  await openRun(page);
  const current = page.getByTestId('graph-current');
  await expect(current).toHaveJSProperty('tagName', 'CANVAS');
  const seen = new Set<string>();
  for (let press = 0; press < 12 && seen.size < 2; press++) {
    const nodeId = await current.getAttribute('data-node-id');
    if (nodeId && !seen.has(nodeId)) {
      seen.add(nodeId);
      const node = page.locator(`[data-testid="graph"] [data-node-id=${JSON.stringify(nodeId)}]`).first();
      const at = (await node.locator('circle, rect, ellipse').last().boundingBox())!;
      await expect.poll(() => highlightBox(page)).toBeDefined();
      const box = (await highlightBox(page))!;
      // The ring is drawn around the agent's node: the red pixels cover its centre.
      const [cx, cy] = [at.x + at.width / 2, at.y + at.height / 2];
      expect(box.left).toBeLessThan(cx);
      expect(box.right).toBeGreaterThan(cx);
      expect(box.top).toBeLessThan(cy);
      expect(box.bottom).toBeGreaterThan(cy);
    }
    await page.keyboard.press('j');
  }
  expect(seen.size).toBe(2);
  // Nothing of the highlight is an SVG element any more.
  await expect(page.locator('[data-testid="graph-panel"] svg [data-current]')).toHaveCount(0);
});

test('a jump keeps the step list rows (same elements, same order) and shows the current row in the list', async ({ page }) => {
  await openRun(page);
  const list = page.getByTestId('step-list');
  const mark = () =>
    list.evaluate((el) => {
      const rows = [...el.querySelectorAll('li')];
      rows.forEach((row, i) => ((row as unknown as { poolSlot: number }).poolSlot = i));
      return rows.length;
    });
  const slots = () => list.evaluate((el) => [...el.querySelectorAll('li')].map((row) => (row as unknown as { poolSlot?: number }).poolSlot ?? -1));
  const count = await mark();
  expect(count).toBeGreaterThan(5);
  for (const key of ['End', 'Home', 'j', 'End']) {
    await page.keyboard.press(key);
    const row = list.locator('[aria-current="step"]');
    await expect(row).toHaveCount(1);
    await expect(row).toBeInViewport();
    expect(await slots()).toEqual(Array.from({ length: count }, (_, i) => i));
  }
});

test("a step row names its step in a tooltip while the pointer is on it, and no row carries a title otherwise", async ({ page }) => {
  await openRun(page);
  const list = page.getByTestId('step-list');
  await page.keyboard.press('Home');
  await expect(list.locator('li[title]')).toHaveCount(0);
  // The run's second step is named "thought"; its first has no name.
  const second = list.locator('li[data-position="1"]');
  await second.hover();
  await expect(second).toHaveAttribute('title', 'thought');
  await list.locator('li[data-position="0"]').hover();
  await expect(second).not.toHaveAttribute('title');
  await expect(list.locator('li[title]')).toHaveCount(0);
});
