// A file whose steps carry long texts crosses from the import worker to the page in slices cut by their text (ADR 0073):
// 1,200 tool results of 6,000 characters are several slices where 2,000 short steps are one. Each slice's results
// cross joined into one string, those with a character past Latin-1 (every seventh here) into another (ADR 0074).
// Every step arrives, in its order, with its whole text.
import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { fileRuns, libraryStoreKeys, openStudio } from './fixtures.ts';

const STEPS = 1200;
const RESULT_CHARS = 6000;

/** OTLP/JSON Lines: lines of 300 tool spans, each returning `<n> ` and then RESULT_CHARS letters. */
function longResults(steps = STEPS): string {
  const lines: string[] = [];
  for (let line = 0; line < steps / 300; line++) {
    const spans: string[] = [];
    for (let k = 0; k < 300; k++) {
      const n = line * 300 + k;
      const start = 1_760_000_000_000_000_000n + BigInt(n) * 1_000_000n;
      const letter = String.fromCharCode(97 + (n % 26));
      const result = n % 7 === 4 ? `${n} \u2019${letter.repeat(RESULT_CHARS - 1)}` : `${n} ${letter.repeat(RESULT_CHARS)}`;
      spans.push(
        JSON.stringify({
          traceId: 'cd'.repeat(16),
          spanId: (n + 1).toString(16).padStart(16, '0'),
          name: 'execute_tool fetch_page',
          startTimeUnixNano: String(start),
          endTimeUnixNano: String(start + 500_000n),
          attributes: [
            { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
            { key: 'gen_ai.tool.name', value: { stringValue: 'fetch_page' } },
            { key: 'gen_ai.tool.call.result', value: { stringValue: result } },
          ],
        }),
      );
    }
    lines.push(`{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"long"},"spans":[${spans.join(',')}]}]}]}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Waits for the file's run in the Library, opens it and waits for its `steps` rows to be counted. */
async function openListedRun(page: Page, name: string, steps: number): Promise<void> {
  const row = fileRuns(page, name);
  await expect(row).toHaveCount(1, { timeout: 60_000 });
  await row.first().getByRole('button').first().click();
  await expect(page.getByRole('heading', { name: `Steps (${steps.toLocaleString('en')})` })).toBeVisible({ timeout: 30_000 });
}

test('a run of 1,200 long tool results opens whole: every step, in its order, with its whole text', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const file = testInfo.outputPath('long-results.jsonl');
  writeFileSync(file, longResults());
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  await openListedRun(page, 'long-results.jsonl', STEPS);
  const inspector = page.getByTestId('inspector');
  const observation = page.getByTestId('inspector-observation');
  // The first and the last: each the result of its own span, whole.
  for (const [key, n] of [['Home', 0], ['End', STEPS - 1]] as const) {
    await page.keyboard.press(key);
    await expect(inspector).toHaveAttribute('data-position', String(n));
    await expect(inspector).toContainText(`Observation (${(String(n).length + 1 + RESULT_CHARS).toLocaleString('en')} characters)`);
    await expect(observation).toContainText(new RegExp(`^${n} ${String.fromCharCode(97 + (n % 26))}{20}`));
  }
  await page.getByTestId('step-list').evaluate((list, share) => {
    list.scrollTop = list.scrollHeight * share;
  }, 900 / STEPS);
  // One past the first slices, picked in the list: a result with a character past Latin-1.
  const middle = page.getByTestId('step-list').locator('li[data-position="900"]');
  await middle.click();
  await expect(inspector).toHaveAttribute('data-position', '900');
  await expect(inspector).toContainText(`Observation (${(4 + RESULT_CHARS).toLocaleString('en')} characters)`);
  await expect(observation).toContainText(/^900 \u2019q{20}/);
  // The one before it is Latin-1 text, of the same slice.
  await page.keyboard.press('ArrowLeft');
  await expect(inspector).toHaveAttribute('data-position', '899');
  await expect(observation).toContainText(/^899 p{20}/);
});

// Saved, such a run is large enough to be stored in chunks, which the import worker writes in columns with their long
// texts joined (ADR 0075). After a reload the page reads them back: every step, with its whole text.
test('a run of 4,800 long tool results is stored in chunks and found whole after a reload', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const steps = 4800;
  const file = testInfo.outputPath('long-results-stored.jsonl');
  writeFileSync(file, longResults(steps));
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  await expect(fileRuns(page, 'long-results-stored.jsonl')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  const chunks = (await libraryStoreKeys(page, 'runChunks')).filter((k) => (k as unknown[])[1] === 'steps');
  expect(chunks.length).toBeGreaterThan(1);
  await page.reload();
  await openListedRun(page, 'long-results-stored.jsonl', steps);
  const inspector = page.getByTestId('inspector');
  const observation = page.getByTestId('inspector-observation');
  const letter = (n: number) => String.fromCharCode(97 + (n % 26));
  const chars = (n: number) => `Observation (${(String(n).length + 1 + RESULT_CHARS).toLocaleString('en')} characters)`;
  // The first (Latin-1), the last (a wide one: n % 7 === 4) and the one before it (Latin-1), in the last chunk.
  expect((steps - 1) % 7).toBe(4);
  for (const [key, n, text] of [
    ['Home', 0, new RegExp(`^0 ${letter(0)}{20}`)],
    ['End', steps - 1, new RegExp(`^${steps - 1} \u2019${letter(steps - 1)}{20}`)],
    ['ArrowLeft', steps - 2, new RegExp(`^${steps - 2} ${letter(steps - 2)}{20}`)],
  ] as const) {
    await page.keyboard.press(key);
    await expect(inspector).toHaveAttribute('data-position', String(n));
    await expect(inspector).toContainText(chars(n));
    await expect(observation).toContainText(text);
  }
});
