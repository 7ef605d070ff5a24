// A run without steps — a line of a benchmark's result file (the question, the answer given, the expected answer,
// timing) — opens on what it does record: its outcome with the benchmark's scores, its duration, its task, the answer
// and the expected answer. The scores are the ones the CLI's `inspect` prints for the same run.
import { expect, test } from '@playwright/test';
import { cliJson, fileRuns, openStudio, openTraceFiles, sharedTrace, skipWithoutShared } from './fixtures.ts';

const RESULTS = 'smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__math__2025-08-27.jsonl';

skipWithoutShared(RESULTS);

interface Inspected {
  files: { runs: { id: string; steps: number; outcome: string; scores?: { exact_match: number; contains: number }; duration_s?: number }[] }[];
}

test('a benchmark result line shows its answer, the expected answer and its scores, as the CLI reads them', async ({ page }) => {
  const cli = cliJson<Inspected>(['inspect', sharedTrace(RESULTS), '--json']);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(RESULTS));
  const row = fileRuns(page, RESULTS.split('/').pop()!).first();
  const runId = (await row.getAttribute('data-run-id'))!;
  // The library counts the benchmark's score as the run view does (one count, library-rows.ts scoreCounts).
  await expect(row.getByTestId('run-scores')).toHaveText('1');
  await row.getByRole('button').first().click();
  const result = page.getByTestId('run-result');
  await expect(result).toBeVisible();
  const inspected = (await cli).files[0].runs.find((r) => r.id === runId)!;
  expect(inspected.steps).toBe(0);
  await expect(page.getByTestId('run-result-scores')).toContainText(`exact match ${inspected.scores!.exact_match} · contains ${inspected.scores!.contains}`);
  await expect(page.getByTestId('run-result-outcome')).toContainText(inspected.outcome);
  await expect(page.getByTestId('run-result-task')).toContainText('magic square');
  await expect(page.getByTestId('run-result-answer')).toBeVisible();
  await expect(page.getByTestId('run-result-reference')).not.toBeEmpty();
  // The scores panel counts the benchmark's score and shows it.
  await expect(page.getByTestId('scores-toggle')).toHaveText('scores & labels (1)');
  await page.getByTestId('scores-toggle').click();
  await expect(page.getByTestId('benchmark-score')).toContainText(`exact match ${inspected.scores!.exact_match}`);
  // The panel keeps its height above the long result (it shrank to a clipped strip that scrolled).
  const panel = page.getByRole('region', { name: 'Scores and labels' });
  expect(await panel.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeLessThanOrEqual(0);
  await page.screenshot({ path: 'test-results/run-result.png' });
});
