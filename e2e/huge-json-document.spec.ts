// One JSON document of a format other than OTLP, larger than the file size read whole (400 MB), opens: its text is
// parsed in pieces into its value as it is read (issue 14 goal 2, json-value-stream.ts, ADR 0081). The large file is a
// real Who&When chat log with ~4 MB of spaces and newlines after each message (JSON allows them there), so that it
// passes the limit without a huge run; it must give the run the same log gives when read whole, and so must the same
// gzip-compressed in two members (its trailer understates its size). Before, such a file was refused.
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { constants, gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { openedInFreshLibrary, openedRunFacts, openStudio } from './fixtures.ts';

const LIMIT = 400 * 1024 * 1024;
const LOG = resolve(import.meta.dirname, '../../shared/traces/who-and-when/hand-crafted/1.json');

test('a chat log too large to read whole is parsed as a stream, into the run the same log gives', async ({ page, browser }, testInfo) => {
  test.skip(!existsSync(LOG), `${LOG} is absent (../shared)`);
  test.setTimeout(240_000);
  const text = readFileSync(LOG, 'utf8');
  const small = testInfo.outputPath('chat-log.json');
  writeFileSync(small, text);
  const log = JSON.parse(text) as Record<string, unknown> & { history: unknown[] };
  const pad = `\n${' '.repeat(Math.ceil((LIMIT + 8 * 1024 * 1024) / log.history.length))}`;
  const big = testInfo.outputPath('large-chat-log.json');
  const zipped = testInfo.outputPath('large-chat-log.json.gz');
  // The same members in the same order; the history's messages each followed by the spaces.
  const fd = openSync(big, 'w');
  try {
    writeSync(fd, '{');
    for (const [i, key] of Object.keys(log).entries()) {
      writeSync(fd, `${i > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      if (key !== 'history') writeSync(fd, JSON.stringify(log[key]));
      else {
        writeSync(fd, '[');
        for (const [j, message] of log.history.entries()) writeSync(fd, `${j > 0 ? ',' : ''}${JSON.stringify(message)}${pad}`);
        writeSync(fd, ']');
      }
    }
    writeSync(fd, '}');
  } finally {
    closeSync(fd);
  }
  try {
    expect(statSync(big).size).toBeGreaterThan(LIMIT);

    await openStudio(page);
    const whole = await openedRunFacts(page, small, 'chat-log.json');
    expect(Number(whole.steps)).toBe(log.history.length);

    expect(await openedInFreshLibrary(browser, big, 'large-chat-log.json')).toEqual(whole);

    // gzip-compressed (a few MB: the spaces compress), in two members as concatenated gzip files are, the last one of
    // ten bytes: its trailer says ten bytes, so it is read whole at first, and read again as a stream once it decodes
    // past the limit.
    const bytes = readFileSync(big);
    writeFileSync(zipped, Buffer.concat([gzipSync(bytes.subarray(0, -10), { level: constants.Z_BEST_SPEED }), gzipSync(bytes.subarray(-10))]));
    expect(statSync(zipped).size).toBeLessThan(LIMIT);
    expect(await openedInFreshLibrary(browser, zipped, 'large-chat-log.json.gz')).toEqual(whole);
  } finally {
    rmSync(big, { force: true });
    rmSync(zipped, { force: true });
  }
});
