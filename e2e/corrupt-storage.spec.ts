// Corrupt stored records (issue 17, item 7): runs damaged in IndexedDB the ways that used to blank every view on every
// reload are set aside on load, with a note in the Library naming each and why, and an export; the good runs load and
// open. (A run that passes the schema yet makes one panel throw is covered in jsdom: run-page-boundary.test.tsx.)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { editStoredRuns, fileRuns, openGroupChat, openStudio, openTraceFiles } from './fixtures.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SAMPLE = resolve(ROOT, 'public/samples/simulated-gaia-corpus.session.json');

test('damaged stored runs are set aside with a note; the rest of the library loads and opens', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openStudio(page);
  await openTraceFiles(page, SAMPLE);
  await expect(page.getByTestId('library-shown')).toHaveText('60 runs');
  await expect(page.getByTestId('persistence-status')).toHaveAttribute('data-status', 'saved');
  await expect.poll(async () => Number(await page.getByTestId('persistence-status').getAttribute('data-writes'))).toBeGreaterThan(0);

  // Five runs damaged in the five ways the issue lists.
  const damaged = await editStoredRuns(page, (run, changed) => {
    const steps = run.steps as Record<string, unknown>[];
    switch (changed) {
      case 0:
        return { ...run, agents: [null] };
      case 1:
        steps[0].toolCalls = 'not a list';
        return run;
      case 2:
        delete steps[0].agentId;
        return run;
      case 3:
        return { ...run, handoffs: [null] };
      case 4:
        steps[0].output = { text: 'an object where text belongs' };
        return run;
      default:
        return undefined;
    }
  });
  expect(damaged).toHaveLength(5);

  await page.reload();
  const note = page.getByTestId('quarantine-note');
  await expect(note).toContainText('5 stored records were set aside');
  for (const [i, key] of damaged.entries()) {
    const reason = [/\$\.agents\[0\]/, /\$\.steps\[0\]\.toolCalls/, /\$\.steps\[0\]\.agentId/, /\$\.handoffs\[0\]/, /\$\.steps\[0\]\.output/][i];
    await expect(note.getByRole('listitem').filter({ hasText: `runs/${key}` })).toContainText(reason);
  }
  await expect(page.getByTestId('library-shown')).toHaveText('55 runs');

  // The set-aside records can be taken away as JSON, untouched.
  const download = page.waitForEvent('download');
  await note.getByRole('button', { name: 'Export them (JSON)' }).click();
  const saved = JSON.parse(readFileSync((await (await download).path())!, 'utf8')) as { records: { key: string; value: { id: string } }[] };
  expect(saved.records.map((r) => r.key).sort()).toEqual([...damaged].sort());
  expect(saved.records.every((r) => r.value.id === r.key)).toBe(true);

  // The note stays on the next load (the records are kept, not deleted), and a good run opens.
  await page.reload();
  await expect(page.getByTestId('quarantine-note')).toContainText('5 stored records were set aside');
  await page.getByTestId('run-row').first().getByRole('button').first().click();
  await expect(page.getByTestId('run-view')).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'could not be shown' })).toHaveCount(0);
  expect(errors).toEqual([]);
});

// A long array is checked item by item, each item first given a quick look that lets zod pass over it only where zod
// would give it back unchanged (ADR 0076): a damaged item deep in it is still found, and named as zod names it. (A run
// of more than 2,000 steps is stored in chunks, ADR 0086: this one is edited in its record.)
test('a run of 1,800 messages with one damaged step deep inside is set aside, named at that step', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await openGroupChat(page, testInfo.outputPath('long-chat.json'), 1800);
  const [key] = await editStoredRuns(page, (run, changed) => {
    const steps = run.steps as Record<string, unknown>[] | undefined;
    if (changed > 0 || !Array.isArray(steps) || steps.length < 1800) return undefined;
    // An unknown key zod keeps, then a step without its agent.
    steps[10].notInTheSchema = 'kept';
    delete steps[1500].agentId;
    return run;
  });
  expect(key).toBeDefined();
  await page.reload();
  const note = page.getByTestId('quarantine-note');
  await expect(note).toContainText('1 stored record was set aside');
  await expect(note.getByRole('listitem').filter({ hasText: `runs/${key}` })).toContainText(/\$\.steps\[1500\]\.agentId/);
  await expect(fileRuns(page, 'long-chat.json')).toHaveCount(0);
});
