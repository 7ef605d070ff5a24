// A file whose steps carry long texts crosses from the import worker to the page in slices cut by their text (ADR 0073):
// 1,200 tool results of 6,000 characters are several slices where 2,000 short steps are one. Each slice's results
// cross joined into one string, those with a character past Latin-1 (every seventh here) into another (ADR 0074).
// Every step arrives, in its order, with its whole text.
import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { fileRuns, openStudio } from './fixtures.ts';

const STEPS = 1200;
const RESULT_CHARS = 6000;

/** OTLP/JSON Lines: 4 lines of 300 tool spans, each returning `<n> ` and then RESULT_CHARS letters. */
function longResults(): string {
  const lines: string[] = [];
  for (let line = 0; line < STEPS / 300; line++) {
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

test('a run of 1,200 long tool results opens whole: every step, in its order, with its whole text', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const file = testInfo.outputPath('long-results.jsonl');
  writeFileSync(file, longResults());
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = fileRuns(page, 'long-results.jsonl');
  await expect(row).toHaveCount(1, { timeout: 60_000 });
  await row.first().getByRole('button').first().click();
  await expect(page.getByRole('heading', { name: `Steps (${STEPS.toLocaleString('en')})` })).toBeVisible({ timeout: 30_000 });
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
