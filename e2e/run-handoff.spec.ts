// A large run opened from a file (issue 14, ADR 0020): the import worker writes it to IndexedDB and the page gets it
// without its source spans. The span tree of a run with more than 20,000 spans starts folded and reads them when
// opened — right after the import and again after a reload, from IndexedDB — and the inspector's Spans section too.
// Its raw attributes (ADR 0026): the worker keeps each step's raw with its stored span and hands the page the steps
// without it; the inspector's "Raw attributes" reads it with the spans when opened — right after the import, after a
// reload, and after a label added to the run (a page write of the run) and another reload.
// One test: the 20,500-span file is generated and imported once for both (it was two tests, each importing it).
import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { openStudio, openTraceFiles, openTraceInRunView } from './fixtures.ts';

const SPANS = 20_500;

/** The library is saved (the import worker's write and the page's own): the document element says so. */
async function saved(page: Page): Promise<void> {
  await expect(page.locator('html[data-library-status="saved"]')).toHaveCount(1, { timeout: 30_000 });
}

/** Open the folded span tree (its spans read from storage) and follow a span to its step and the step's spans. */
async function openTree(page: Page): Promise<void> {
  const tree = page.getByTestId('span-tree');
  const toggle = tree.getByRole('button', { name: /Spans/ });
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
}

/** The first step's raw attributes, read from storage: its span's attributes, not only what the page was handed. */
async function expectFirstStepRaw(page: Page): Promise<void> {
  await expect(page.getByTestId('playhead-position')).toContainText('1');
  const raw = page.getByTestId('inspector-raw');
  await raw.locator('summary').click({ timeout: 15_000 });
  await expect(raw).toContainText('"gen_ai.usage.input_tokens": 302');
  await expect(raw).toContainText('gen_ai.input.messages');
  await expect(raw).toContainText('"gen_ai.request.model": "gpt-4o"');
}

test('a 20,500-span run: saved by the worker; its span tree and raw attributes read from IndexedDB when opened, after a reload and after a label too', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const file = testInfo.outputPath('flat-agent.otlp.json');
  const text = generateFlatAgentTrace(SPANS);
  writeFileSync(file, text);
  const traceId = /"traceId":"([0-9a-f]{32})"/.exec(text)![1];
  await openStudio(page);
  // The worker writes the runs only once the library has been read (before that the page keeps them, spans inline).
  await page.getByTestId('persistence-status').and(page.locator('[data-status="saved"]')).waitFor();
  await saved(page);
  await openTraceInRunView(page, file);
  const runUrl = page.url();
  await expect(page.locator('section[aria-label="Steps"] h2')).toContainText('19,679');

  // Right after the import: the span tree (opened before the save is awaited), then the raw attributes once saved.
  await openTree(page);
  await saved(page);
  await page.keyboard.press('Home');
  await expectFirstStepRaw(page);
  // A tool step keeps the call id it answers on the page, and shows the rest of its raw too.
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('inspector-raw')).toContainText('"gen_ai.tool.call.id": "call_3"');
  await expect(page.getByTestId('inspector-raw')).toContainText('gen_ai.tool.call.result');

  // After a reload, both from IndexedDB again.
  await page.reload();
  await expect(page.getByTestId('playhead-position')).toBeVisible();
  await openTree(page);
  await page.keyboard.press('Home');
  await expectFirstStepRaw(page);

  // A label on the first step (a TRAIL annotation file for this trace): the page writes the changed run.
  const writes = Number(await page.locator('html').getAttribute('data-library-writes'));
  const labels = testInfo.outputPath('labels.json');
  writeFileSync(labels, JSON.stringify({ trace_id: traceId, errors: [{ category: 'Tool Selection Errors', location: '0000000000000002', evidence: 'e2e', description: 'a label added later', impact: 'HIGH' }] }));
  await openTraceFiles(page, labels);
  await expect(async () => expect(Number(await page.locator('html').getAttribute('data-library-writes'))).toBeGreaterThan(writes)).toPass();
  await saved(page);

  await page.goto(runUrl);
  await expect(page.getByTestId('playhead-position')).toBeVisible();
  await page.keyboard.press('Home');
  await expect(page.getByTestId('inspector-annotations')).toContainText('a label added later');
  await expectFirstStepRaw(page);
});
