// The Engines and Stages views work on a run's steps: a benchmark result file (100 result lines, no steps) opened
// beside a real trace neither becomes the run they show first nor fills their run lists; opened alone, they say why
// there is nothing to work on.
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceFiles, sharedTrace, skipWithoutShared } from './fixtures.ts';

const RESULTS = 'smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__math__2025-08-27.jsonl';
const TRACE = 'who-and-when/hand-crafted/1.json';

skipWithoutShared(RESULTS, TRACE);

const views = (page: Page, name: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name }).click();

test('Engines and Stages offer only runs with steps, and open on one', async ({ page }) => {
  await openStudio(page);
  // The result file first: the library lists its runs before the trace's.
  await openTraceFiles(page, sharedTrace(RESULTS), sharedTrace(TRACE));
  for (const [view, panel] of [
    ['Engines', page.getByTestId('supervisor-run')],
    ['Stages', page.getByTestId('stages-view')],
  ] as const) {
    await views(page, view);
    const picker = panel.getByLabel('Run');
    await expect(picker).toBeVisible();
    const options = await picker.locator('option').allTextContents();
    expect(options, view).toHaveLength(1);
    expect(options[0], view).not.toMatch(/\b0 steps\b/);
    await expect(picker.locator('option:checked'), view).toHaveText(options[0]);
  }
});

test('with only result lines in the library, Engines and Stages say there is no run with steps', async ({ page }) => {
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(RESULTS));
  await views(page, 'Engines');
  await expect(page.getByTestId('supervisor-run')).toContainText('No run in the library has steps');
  await views(page, 'Stages');
  await expect(page.getByText('No run in the library has steps')).toBeVisible();
});
