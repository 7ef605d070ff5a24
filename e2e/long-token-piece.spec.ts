import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { cliJson, fileRuns, openStudio, sharedTrace, skipWithoutShared } from './fixtures.ts';

// ADR 0082, addendum: a message holding one long run of a kind (padding of `=`, a line of spaces, letters without a
// break) is one piece for the token counter, and the byte-pair merge of a piece was quadratic: a run of 300,000
// characters held the import worker for over a minute. Merged by a heap, the file opens as any other.
const WHO_AND_WHEN = 'who-and-when/hand-crafted/1.json';

test('a chat log with runs of 300,000 "=" and 200,000 letters in its messages opens, its tokens estimated as the CLI estimates them', async ({ page }, testInfo) => {
  skipWithoutShared(WHO_AND_WHEN);
  const log = JSON.parse(readFileSync(sharedTrace(WHO_AND_WHEN), 'utf8')) as { history: { content: string }[] };
  log.history[1].content += `\n${'='.repeat(300_000)}\n`;
  log.history[2].content += ` ${'a'.repeat(200_000)}.`;
  const file = testInfo.outputPath('padded-chat.json');
  writeFileSync(file, JSON.stringify(log));

  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(file);
  // Before the heap merge this took 100 s and more.
  const row = fileRuns(page, 'padded-chat.json');
  await expect(row).toHaveCount(1, { timeout: 20_000 });
  await expect(page.getByTestId('failure-detail')).toHaveCount(0);
  const cli = await cliJson<{ files: { runs: { tokens: { total: number } }[] }[] }>(['inspect', file, '--json']);
  const total = cli.files[0].runs[0].tokens.total;
  // The padding is counted: hundreds of thousands of characters are tens of thousands of tokens.
  expect(total).toBeGreaterThan(30_000);
  await expect(row.getByTestId('run-tokens')).toContainText(`≈${total.toLocaleString('en-US')}`);
});
