// A large run opened from a file (issue 14, ADR 0020): the import worker writes it to IndexedDB and the page gets it
// without its source spans. The span tree of a run with more than 20,000 spans starts folded and reads them when
// opened — right after the import and again after a reload, from IndexedDB — and the inspector's Spans section too.
import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { openStudio, openTraceInRunView } from './fixtures.ts';

const SPANS = 20_500;

test('a 20,500-span run: saved by the worker, its span tree read from IndexedDB when opened, after a reload too', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const file = testInfo.outputPath('flat-agent.otlp.json');
  writeFileSync(file, generateFlatAgentTrace(SPANS));
  await openStudio(page);
  // The worker writes the runs only once the library has been read (before that the page keeps them, spans inline).
  await page.getByTestId('persistence-status').and(page.locator('[data-status="saved"]')).waitFor();
  await openTraceInRunView(page, file);
  await expect(page.locator('section[aria-label="Steps"] h2')).toContainText('19,679');

  const tree = page.getByTestId('span-tree');
  const toggle = tree.getByRole('button', { name: /Spans/ });
  const openTree = async () => {
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(tree.getByTestId('span-count')).toHaveText('20,500 spans (read when opened)');
    await toggle.click();
    await expect(tree.getByTestId('span-count')).toHaveText('20,500 spans');
    await expect(tree.getByTestId('span-row').first()).toBeVisible();
    // A span drives the playhead as before: the tool call nested in a model call (span 25) belongs to row 23 (span 24's).
    await tree.getByLabel('Filter spans').fill('0000000000000019');
    await expect(tree.getByTestId('span-count')).toHaveText('1 of 20,500 spans match');
    await tree.getByTestId('span-row').first().click();
    await expect(page.getByTestId('playhead-position')).toContainText('23');
    // The inspector lists the step's spans, attributes included (restored from the step for step spans).
    const spans = page.getByTestId('inspector-spans').first();
    await spans.locator('summary').first().click();
    await expect(spans.getByTestId('inspector-span').first()).toBeVisible();
    await expect(spans).toContainText('gen_ai.usage.input_tokens');
  };
  await openTree();

  await page.reload();
  await expect(page.getByTestId('playhead-position')).toBeVisible();
  await openTree();
});
