// One JSON document of a format other than OTLP, larger than the file size read whole (400 MB), opens: its text is
// parsed in pieces into its value as it is read (issue 14 goal 2, json-value-stream.ts, ADR 0081). The large file is a
// real Who&When chat log with ~4 MB of spaces and newlines after each message (JSON allows them there), so that it
// passes the limit without a huge run; it must give the run the same log gives when read whole, and so must the same
// gzip-compressed in two members (its trailer understates its size). Before, such a file was refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { expectStreamedAsWhole, sharedTrace, skipWithoutShared, WHOLE_READ_LIMIT } from './fixtures.ts';

const LOG = 'who-and-when/hand-crafted/1.json';

test('a chat log too large to read whole is parsed as a stream, into the run the same log gives', async ({ page, browser }, testInfo) => {
  skipWithoutShared(LOG);
  test.setTimeout(240_000);
  const text = readFileSync(sharedTrace(LOG), 'utf8');
  const small = testInfo.outputPath('chat-log.json');
  writeFileSync(small, text);
  const log = JSON.parse(text) as Record<string, unknown> & { history: unknown[] };
  const pad = `\n${' '.repeat(Math.ceil((WHOLE_READ_LIMIT + 8 * 1024 * 1024) / log.history.length))}`;
  // The same members in the same order; the history's messages each followed by the spaces.
  function* pieces(): Generator<string> {
    yield '{';
    for (const [i, key] of Object.keys(log).entries()) {
      yield `${i > 0 ? ',' : ''}${JSON.stringify(key)}:`;
      if (key !== 'history') yield JSON.stringify(log[key]);
      else {
        yield '[';
        for (const [j, message] of log.history.entries()) yield `${j > 0 ? ',' : ''}${JSON.stringify(message)}${pad}`;
        yield ']';
      }
    }
    yield '}';
  }
  const whole = await expectStreamedAsWhole(page, browser, {
    small,
    big: testInfo.outputPath('large-chat-log.json'),
    pieces: pieces(),
    // gzip-compressed (a few MB: the spaces compress), in two members as concatenated gzip files are, the last one of
    // ten bytes: its trailer says ten bytes, so it is read whole at first, and read again as a stream once it decodes
    // past the limit.
    zipped: testInfo.outputPath('large-chat-log.json.gz'),
    zip: (bytes) => {
      const zipped = Buffer.concat([gzipSync(bytes.subarray(0, -10), { level: constants.Z_BEST_SPEED }), gzipSync(bytes.subarray(-10))]);
      expect(zipped.length).toBeLessThan(WHOLE_READ_LIMIT);
      return zipped;
    },
  });
  expect(Number(whole.steps)).toBe(log.history.length);
});
