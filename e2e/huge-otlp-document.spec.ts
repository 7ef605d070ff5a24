// One OTLP/JSON export larger than the file size read whole (400 MB) opens, read as a stream (issue 14 goal 2,
// otlp-document-stream.ts), with the run the same spans give when the file is small enough to be read whole. The
// large file is the small one with ~200 KB of spaces and newlines after each span (JSON allows them there), so that
// it passes the limit without a run of a million steps; then the same gzip-compressed.
import { writeFileSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { expectStreamedAsWhole, WHOLE_READ_LIMIT } from './fixtures.ts';

const SPANS = 2000;

test('an OTLP export too large to read whole is read as a stream, into the run the same spans give', async ({ page, browser }, testInfo) => {
  test.setTimeout(240_000);
  const text = generateFlatAgentTrace(SPANS);
  const small = testInfo.outputPath('small-export.json');
  writeFileSync(small, text);
  // Spans follow each other as `},{"traceId"` in the generated export: the spaces go after each comma.
  const spans = text.split('},{"traceId"');
  const pad = `\n${' '.repeat(Math.ceil((WHOLE_READ_LIMIT + 8 * 1024 * 1024) / spans.length))}`;
  const whole = await expectStreamedAsWhole(page, browser, {
    small,
    big: testInfo.outputPath('large-export.json'),
    pieces: spans.map((piece, i) => (i === 0 ? piece : `},${pad}{"traceId"${piece}`)),
    // gzip-compressed (a few MB: the spaces compress), it decodes to more than the limit: read as a stream as well.
    zipped: testInfo.outputPath('large-export.json.gz'),
    zip: (bytes) => gzipSync(bytes, { level: constants.Z_BEST_SPEED }),
  });
  expect(Number(whole.steps)).toBeGreaterThan(SPANS * 0.9);
});
