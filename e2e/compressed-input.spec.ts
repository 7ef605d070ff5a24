// Compressed and UTF-16 input in the studio (SPEC §9): a multi-member gzip opens with the runs of every member, and a
// UTF-16 file opens as text, both through the file input and the import worker.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { busLines, multiMemberGzip } from '../src/testing/gzip-kit.ts';
import { fileRuns, openStudio, openTraceFiles } from './fixtures.ts';

test('a multi-member .gz shows the runs of every member; a UTF-16 file opens as text', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'mas-gzip-'));
  const gz = join(dir, 'three-members.jsonl.gz');
  writeFileSync(gz, multiMemberGzip(busLines(6), 3));
  const utf16 = join(dir, 'utf16-be.jsonl');
  const text = busLines(2, 100).map((l) => `${l}\n`).join('');
  writeFileSync(utf16, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
  await openStudio(page);
  await openTraceFiles(page, gz, utf16);
  const gzRuns = fileRuns(page, 'three-members.jsonl.gz');
  const utf16Runs = fileRuns(page, 'utf16-be.jsonl');
  await expect(gzRuns).toHaveCount(6);
  // The last member's runs are there, not only the first's.
  await expect(gzRuns.getByText('Question 5?')).toBeVisible();
  await expect(utf16Runs).toHaveCount(2);
  await expect(utf16Runs.getByText('Question 101?')).toBeVisible();
});
