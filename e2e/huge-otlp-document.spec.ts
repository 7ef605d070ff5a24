// One OTLP/JSON export larger than the file size read whole (400 MB) opens, read as a stream (issue 14 goal 2,
// otlp-document-stream.ts), with the run the same spans give when the file is small enough to be read whole. The
// large file is the small one with ~200 KB of spaces and newlines after each span (JSON allows them there), so that
// it passes the limit without a run of a million steps; then the same gzip-compressed.
import { closeSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { fileRuns, openStudio } from './fixtures.ts';

const SPANS = 2000;
const LIMIT = 400 * 1024 * 1024;

/** What the Library's row and the opened run say about the file's run. */
async function opened(page: Page, file: string, name: string) {
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = fileRuns(page, name);
  await expect(row).toHaveCount(1, { timeout: 90_000 });
  const listed = (await row.innerText()).replace(name, '').replace(/saving…|saved/g, '').replace(/\s+/g, ' ').trim();
  await row.getByRole('button').first().click();
  const counts = page.getByTestId('run-step-counts');
  await expect(counts).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('token-charts-panel')).toBeVisible();
  return { listed, steps: await counts.getAttribute('data-steps'), counts: await counts.innerText(), tokens: await page.getByTestId('token-charts-panel').innerText() };
}

test('an OTLP export too large to read whole is read as a stream, into the run the same spans give', async ({ page, browser }, testInfo) => {
  test.setTimeout(240_000);
  const text = generateFlatAgentTrace(SPANS);
  const small = testInfo.outputPath('small-export.json');
  writeFileSync(small, text);
  // Spans follow each other as `},{"traceId"` in the generated export: the spaces go after each comma.
  const spans = text.split('},{"traceId"');
  const pad = `\n${' '.repeat(Math.ceil((LIMIT + 8 * 1024 * 1024) / spans.length))}`;
  const big = testInfo.outputPath('large-export.json');
  const zipped = testInfo.outputPath('large-export.json.gz');
  const fd = openSync(big, 'w');
  try {
    for (const [i, piece] of spans.entries()) writeSync(fd, i === 0 ? piece : `},${pad}{"traceId"${piece}`);
  } finally {
    closeSync(fd);
  }
  try {
    expect(statSync(big).size).toBeGreaterThan(LIMIT);

    await openStudio(page);
    const whole = await opened(page, small, 'small-export.json');
    expect(Number(whole.steps)).toBeGreaterThan(SPANS * 0.9);

    // A fresh context: its own library (the two files hold the same trace, which would be one run).
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const other = await context.newPage();
    await openStudio(other);
    const streamed = await opened(other, big, 'large-export.json');
    expect(streamed).toEqual(whole);
    await expect(other.getByTestId('failure-detail')).toHaveCount(0);
    await context.close();

    // gzip-compressed (a few MB: the spaces compress), it decodes to more than the limit: read as a stream as well.
    writeFileSync(zipped, gzipSync(readFileSync(big), { level: constants.Z_BEST_SPEED }));
    const third = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page3 = await third.newPage();
    await openStudio(page3);
    expect(await opened(page3, zipped, 'large-export.json.gz')).toEqual(whole);
    await third.close();
  } finally {
    rmSync(big, { force: true });
    rmSync(zipped, { force: true });
  }
});
