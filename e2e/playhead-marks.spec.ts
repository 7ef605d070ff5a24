// The playhead's marks in the timeline and the token chart are shapes in fixed-size SVGs (issue 14 goal 3: a DOM mark
// that moves made Chromium re-layerize the whole page on every key). These tests read the pixels the page shows:
// the timeline's line and the current block's outline, and the token chart's marker, follow the keys and a click,
// and sit where the attributes other tests and scripts read say the current step is.
import { expect, test, type Page } from '@playwright/test';
import { openStudio } from './fixtures.ts';

const STEPS = 24;
/** Tailwind indigo-600, the timeline's playhead colour. */
const INDIGO = [79, 70, 229];

function session() {
  const agents = ['planner', 'coder', 'tester'];
  return {
    format: 'mas-replay-session',
    version: 2,
    id: 'playhead-canvas',
    runs: [
      {
        id: 'playhead-canvas-run',
        title: 'playhead canvas',
        sourceFormat: 'native',
        models: [],
        outcome: { status: 'unknown' },
        tags: {},
        agents: agents.map((id) => ({ id, name: id })),
        agentRuns: [],
        steps: Array.from({ length: STEPS }, (_, i) => ({
          id: `s${i}`,
          index: i,
          kind: 'action',
          agentId: agents[i % agents.length],
          output: `step ${i}`,
          usage: { input: 100 + 10 * i, output: 20, total: 120 + 10 * i },
        })),
        handoffs: [],
        annotations: [],
        interventions: [],
        orphanSpans: 0,
      },
    ],
    engineSettings: {},
    llmCalls: [],
  };
}

/**
 * The pixel columns where what the page shows in an element's box (a screenshot, decoded in the page) has at least
 * `minRun` pixels of `color`, each with the rows it spans. Page screenshots are at device scale 1 here: pixels are CSS
 * pixels.
 */
async function columnsOf(page: Page, testId: string, color: 'indigo' | 'rose', minRun: number) {
  const png = (await page.getByTestId(testId).screenshot()).toString('base64');
  return page.evaluate(
    async ({ png, color, minRun, INDIGO_RGB }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${png}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(image, 0, 0);
      const { width, height } = canvas;
      const data = ctx.getImageData(0, 0, width, height).data;
      // Close to the colour; for the rose marker (a 1.5 px line, blended with what is under it) any red whose blue
      // exceeds its green (the orange bars have more green than blue, the blue bars little red).
      const near =
        color === 'rose'
          ? (i: number) => data[i] > 150 && data[i] - data[i + 1] > 60 && data[i + 2] > data[i + 1] + 15
          : (i: number) => Math.abs(data[i] - INDIGO_RGB[0]) < 40 && Math.abs(data[i + 1] - INDIGO_RGB[1]) < 40 && Math.abs(data[i + 2] - INDIGO_RGB[2]) < 40;
      const columns: { x: number; top: number; bottom: number; count: number }[] = [];
      for (let x = 0; x < width; x++) {
        let count = 0;
        let top = -1;
        let bottom = -1;
        for (let y = 0; y < height; y++) {
          if (!near((y * width + x) * 4)) continue;
          count++;
          if (top < 0) top = y;
          bottom = y;
        }
        if (count >= minRun) columns.push({ x, top, bottom, count });
      }
      return columns;
    },
    { png, color, minRun, INDIGO_RGB: INDIGO },
  );
}

/** The x of the timeline's playhead line: the one indigo column (2 px wide) as tall as the lanes. */
async function timelineLineX(page: Page): Promise<number> {
  const tall = await columnsOf(page, 'timeline-playhead-layer', 'indigo', 60);
  expect(tall.length, `tall indigo columns: ${JSON.stringify(tall)}`).toBeGreaterThan(0);
  expect(tall.length).toBeLessThanOrEqual(3);
  return tall[0].x;
}

async function chartMarkerX(page: Page): Promise<number> {
  const tall = await columnsOf(page, 'token-charts-playhead-layer', 'rose', 100);
  expect(tall.length, `tall rose columns: ${JSON.stringify(tall)}`).toBeGreaterThan(0);
  expect(tall.length).toBeLessThanOrEqual(3);
  return tall[0].x;
}

test.use({ viewport: { width: 1280, height: 800 } });

test('the timeline playhead, the current block and the token chart marker are drawn where the playhead is, and move with the keys', async ({ page }) => {
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles({ name: 'playhead-canvas.session.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(session())) });
  const row = page.locator('[data-testid="run-row"][data-file="playhead-canvas.session.json"]').first();
  await expect(row).toBeVisible();
  await row.getByRole('button').first().click();
  await expect(page.getByTestId('timeline-playhead-layer')).toBeVisible();
  await expect(page.getByTestId('token-charts-playhead-layer')).toBeVisible();
  const timeline = page.getByTestId('timeline');
  const playhead = page.getByTestId('timeline-playhead');

  const seen: number[] = [];
  const markers: number[] = [];
  for (let p = 0; p < 6; p++) {
    if (p > 0) await page.keyboard.press('j');
    await expect(timeline).toHaveAttribute('data-position', String(p));
    const x = await timelineLineX(page);
    // The drawn line is where the attribute holder says it is (to the pixel column).
    expect(Math.abs(x - Number(await playhead.getAttribute('data-x')))).toBeLessThanOrEqual(1);
    seen.push(x);
    const marker = await chartMarkerX(page);
    expect(Math.abs(marker - Number(await page.getByTestId('token-charts').getAttribute('data-x')))).toBeLessThanOrEqual(1.5);
    markers.push(marker);
    // The current block's outline: indigo in the current lane's row, around the block's left edge, in no other lane.
    const block = page.locator('[data-testid="timeline"] [data-current="true"]');
    const lane = Number(await block.getAttribute('data-lane'));
    const blockX = Number(await block.getAttribute('data-x'));
    // (Columns beside the line are left out: there the line's antialiased edge blends with the blocks under it.)
    const lineX = seen[seen.length - 1];
    const outline = (await columnsOf(page, 'timeline-playhead-layer', 'indigo', 2)).filter((c) => c.count < 60 && Math.abs(c.x - lineX) > 2);
    expect(outline.length, `outline columns at step ${p}`).toBeGreaterThan(0);
    for (const c of outline) {
      expect(c.top).toBeGreaterThanOrEqual(lane * 22 - 1);
      expect(c.bottom).toBeLessThanOrEqual(lane * 22 + 22);
    }
    const outlineLeft = outline.reduce((m, c) => Math.min(m, c.x), Infinity);
    expect(outlineLeft).toBeGreaterThanOrEqual(blockX - 4);
    // (At step 0 the outline's left side is off the canvas and its first columns are under the line.)
    expect(outlineLeft).toBeLessThanOrEqual(blockX + 6);
  }
  // Each key moved the line and the marker to the right.
  for (let i = 1; i < seen.length; i++) {
    expect(seen[i], `timeline line at ${seen.join(', ')}`).toBeGreaterThan(seen[i - 1] + 5);
    expect(markers[i], `chart marker at ${markers.join(', ')}`).toBeGreaterThan(markers[i - 1] + 3);
  }
  const canvasWidth = (await page.getByTestId('timeline-playhead-layer').boundingBox())!.width;
  await page.keyboard.press('End');
  await expect(timeline).toHaveAttribute('data-position', String(STEPS - 1));
  expect(await timelineLineX(page)).toBeGreaterThan(canvasWidth - canvasWidth / STEPS - 2);
  await page.keyboard.press('Home');
  await expect(timeline).toHaveAttribute('data-position', '0');
  expect(await timelineLineX(page)).toBeLessThan(3);
  expect(await chartMarkerX(page)).toBeLessThan(markers[1]);

  // A click on a block still moves the playhead there, and the line follows.
  await page.getByTestId('timeline-canvas').click({ position: { x: (canvasWidth * 10.5) / STEPS, y: 22 * (10 % 3) + 11 } });
  await expect(timeline).toHaveAttribute('data-position', '10');
  await page.mouse.move(0, 0); // no hover tooltip over the line
  expect(Math.abs((await timelineLineX(page)) - (canvasWidth * 10) / STEPS)).toBeLessThanOrEqual(2);
});
