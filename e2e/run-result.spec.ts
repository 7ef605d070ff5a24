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
  // The library counts the benchmark's score as the run view does (one count, model/annotations.ts scoreCounts).
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

test('benchmark result lines in the library: no measured-looking 0 tokens, and durations that never read "60 s"', async ({ page }) => {
  const GAIA = 'smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__gaia__2025-08-27.jsonl';
  skipWithoutShared(GAIA);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openStudio(page);
  await openTraceFiles(page, sharedTrace(GAIA));
  const rows = fileRuns(page, GAIA.split('/').pop()!);
  await expect(rows.first()).toBeVisible();
  // 119.9 s read "1 min 60 s" before (two lines of the file ask this question: 119.9 s and 93.0 s).
  const long = rows.filter({ hasText: 'Pull out the sentence' });
  await expect(long).toHaveCount(2);
  expect((await long.getByRole('cell').filter({ hasText: /^\d+ min \d+ s$/ }).allTextContents()).sort()).toEqual(['1 min 33 s', '2 min 0 s']);
  // A result line has no steps: its tokens are a dash that says why, as in the corpus table (they read 0 before).
  const tokens = long.first().getByTestId('run-tokens');
  await expect(tokens).toHaveText('—');
  await expect(tokens).toHaveAttribute('title', /No steps recorded/);
  for (const text of await rows.getByRole('cell').filter({ hasText: / s$/ }).allTextContents()) expect(text).not.toMatch(/\b60(\.0)? s$/);
});
