// The span tree of a run with many spans filters them in slices (ADR 0104): over 50,000 spans, the render that takes
// the filter does not make a pass over them all; the count says it is filtering, the rows come in later tasks, and
// the page stays responsive. A 1M-span tree took 160–170 ms a key before.
import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { openStudio, openTraceInRunView, watchLongTasks } from './fixtures.ts';

const SPANS = 60_000;

test('a 60,000-span tree: a filter is worked out in slices, the count saying so meanwhile, then the matching spans', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const file = testInfo.outputPath('flat-agent-60k.otlp.json');
  const text = generateFlatAgentTrace(SPANS);
  writeFileSync(file, text);
  const expected = (text.match(/"name":"execute_tool run_python"/g) ?? []).length;
  expect(expected).toBeGreaterThan(1000);
  await openStudio(page);
  await page.getByTestId('persistence-status').and(page.locator('[data-status="saved"]')).waitFor();
  await openTraceInRunView(page, file);
  const tree = page.getByTestId('span-tree');
  await tree.getByRole('button', { name: /Spans/ }).click();
  await expect(tree.getByTestId('span-count')).toHaveText(`${SPANS.toLocaleString('en')} spans`, { timeout: 30_000 });

  // Every text the count takes, as the page shows it (a transient state is kept, not polled for).
  await page.evaluate(() => {
    const count = document.querySelector('[data-testid="span-tree"] [data-testid="span-count"]')!;
    const seen: string[] = [];
    (window as unknown as { __counts: string[] }).__counts = seen;
    const rows = document.querySelector('[data-testid="span-rows"]')!;
    new MutationObserver(() => seen.push(`${count.textContent ?? ''}${rows.getAttribute('aria-busy') === 'true' ? ' [busy]' : ''}`)).observe(count, { childList: true, characterData: true, subtree: true });
  });
  const longest = await watchLongTasks(page);
  await tree.getByLabel('Filter spans').fill('run_python');
  await expect(tree.getByTestId('span-count')).toHaveText(`${expected.toLocaleString('en')} of ${SPANS.toLocaleString('en')} spans match`);
  expect(await longest(), 'longest task while the filter was worked out').toBeLessThan(100);
  const counts = await page.evaluate(() => (window as unknown as { __counts: string[] }).__counts);
  expect(counts.some((c) => c.startsWith(`${SPANS.toLocaleString('en')} spans (filtering…`) && c.endsWith('[busy]')), counts.join(' | ')).toBe(true);
  // The rows are the matching spans, no longer dimmed.
  await expect(tree.getByTestId('span-row').first()).toContainText('run_python');
  await expect(tree.getByTestId('span-rows')).toHaveAttribute('aria-busy', 'false');
  // A filter nothing matches says so.
  await tree.getByLabel('Filter spans').fill('zzzz');
  await expect(tree.getByTestId('span-count')).toHaveText(`0 of ${SPANS.toLocaleString('en')} spans match`);
  await expect(tree.getByText('No span matches “zzzz”.')).toBeVisible();
  await expect(tree.getByTestId('span-row')).toHaveCount(0);
});
