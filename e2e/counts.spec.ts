// Issue 13: the graph counts each tool call once and the run header counts the rows of the step list, on TRAIL
// b1f9b9ba… (4 find_archived_url, 4 web_search, 2 visit_page, 1 page_down and 1 final_answer TOOL spans; 27 rows).
import { expect, test } from '@playwright/test';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openStudio, openTraceInRunView } from './fixtures.ts';

const TRACES = fileURLToPath(new URL('../../shared/traces/', import.meta.url));
const TRACE = `${TRACES}trail/gaia/b1f9b9baefa4c69d1d848e35c130e29d.json`;

test.skip(!existsSync(TRACE), `${TRACE} is absent: real-trace counts test skipped`);

test('TRAIL b1f9b9ba…: edge labels count each tool call once; the header counts the step list rows', async ({ page }) => {
  await openStudio(page);
  await openTraceInRunView(page, TRACE);
  await expect(page.getByTestId('graph-current')).toBeAttached();

  const label = (tool: string) => page.locator(`[data-testid="graph"] [data-edge-id$="->tool:${tool}"]`);
  for (const [tool, n] of [
    ['find_archived_url', 4],
    ['web_search', 4],
    ['visit_page', 2],
    ['page_down', 1],
  ] as const) {
    await expect(label(tool)).toHaveCount(1);
    await expect(label(tool)).toContainText(`×${n}`);
  }
  await expect(label('final_answer')).toHaveCount(1);
  await expect(label('final_answer')).toContainText('×1');

  const header = page.getByTestId('run-step-counts');
  await expect(header).toContainText('27 steps · 16 actions');
  await page.keyboard.press('End');
  const total = Number((await page.getByTestId('playhead-position').innerText()).split('/')[1].replace(/\D/g, ''));
  expect(total).toBe(Number(await header.getAttribute('data-steps')));
  expect(total).toBe(27);
});

test.describe('in a German-language browser', () => {
  test.use({ locale: 'de-DE' });

  test('the run view writes counts as the library, the corpus and the CLI do (12,345), not in the browser locale', async ({ page }) => {
    await openStudio(page);
    await openTraceInRunView(page, TRACE);
    const total = page.getByTestId('token-charts-panel').locator('header span').first();
    // The run has tens of thousands of tokens: a browser-locale format would write "12.345".
    await expect(total).toHaveText(/^\d{1,3}(,\d{3})+ total/);
  });
});
