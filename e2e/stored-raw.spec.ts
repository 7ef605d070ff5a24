// A large span run's raw attributes (ADR 0026): the import worker keeps each step's raw with its stored span and hands
// the page the steps without it; the inspector's "Raw attributes" reads it with the spans when opened — right after
// the import, after a reload, and after a label added to the run (a page write of the run) and another reload.
import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { openStudio, openTraceFiles, openTraceInRunView } from './fixtures.ts';

const SPANS = 20_500;

/** The library is saved (the import worker's write and the page's own): the document element says so. */
async function saved(page: Page): Promise<void> {
  await expect(page.locator('html[data-library-status="saved"]')).toHaveCount(1, { timeout: 30_000 });
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

test('a 20,500-span run: its raw attributes are read from the stored spans, after a reload and after a label too', async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  const file = testInfo.outputPath('flat-agent.otlp.json');
  const text = generateFlatAgentTrace(SPANS);
  writeFileSync(file, text);
  const traceId = /"traceId":"([0-9a-f]{32})"/.exec(text)![1];
  await openStudio(page);
  await saved(page);
  await openTraceInRunView(page, file);
  const runUrl = page.url();
  await saved(page);
  await expectFirstStepRaw(page);
  // A tool step keeps the call id it answers on the page, and shows the rest of its raw too.
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('inspector-raw')).toContainText('"gen_ai.tool.call.id": "call_3"');
  await expect(page.getByTestId('inspector-raw')).toContainText('gen_ai.tool.call.result');

  await page.reload();
  await expect(page.getByTestId('playhead-position')).toBeVisible();
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
