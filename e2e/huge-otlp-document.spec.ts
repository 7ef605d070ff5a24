// One OTLP/JSON export larger than the file size read whole (400 MB) opens, read as a stream (issue 14 goal 2,
// otlp-document-stream.ts), with the run the same spans give when the file is small enough to be read whole. The
// large file is the small one with ~200 KB of spaces and newlines after each span (JSON allows them there), so that
// it passes the limit without a run of a million steps; then the same gzip-compressed.
import { closeSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { openedInFreshLibrary, openedRunFacts, openStudio } from './fixtures.ts';

const SPANS = 2000;
const LIMIT = 400 * 1024 * 1024;

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
    const whole = await openedRunFacts(page, small, 'small-export.json');
    expect(Number(whole.steps)).toBeGreaterThan(SPANS * 0.9);

    expect(await openedInFreshLibrary(browser, big, 'large-export.json')).toEqual(whole);

    // gzip-compressed (a few MB: the spaces compress), it decodes to more than the limit: read as a stream as well.
    writeFileSync(zipped, gzipSync(readFileSync(big), { level: constants.Z_BEST_SPEED }));
    expect(await openedInFreshLibrary(browser, zipped, 'large-export.json.gz')).toEqual(whole);
  } finally {
    rmSync(big, { force: true });
    rmSync(zipped, { force: true });
  }
});
