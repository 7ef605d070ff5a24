// A run larger than one IndexedDB value is stored in chunks (issue 14 goal 6, ADR 0025). A group chat of 45,000
// messages is over the chunk size (20,000 items): the import worker writes its steps in three chunks; after "saved" a
// reload finds the run whole, its last step included. (A run over Chromium's real limit of ~127 MiB a value takes
// minutes to generate and import here: the unit tests and bench/million.bench.ts cover that side.)
import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { openStudio, openTraceInRunView } from './fixtures.ts';

const STEPS = 45_000;

/** An AG2 group chat of `steps` short messages (Who&When's `history` shape). */
function groupChat(steps: number): string {
  const names = ['Planner', 'Coder', 'Critic', 'Writer'];
  const history = Array.from({ length: steps }, (_, i) => `{"content":"step ${i}: noted item ${i % 97}","role":"assistant","name":"${names[i % names.length]}"}`);
  return `{"question":"Write the report.","history":[${history.join(',')}]}`;
}

// Keys and chunk counts of the library's run chunks, read with the plain IndexedDB API (as a string: no bundler helpers).
const CHUNK_KEYS = `new Promise((resolve, reject) => {
  const open = indexedDB.open('mas-replay-studio');
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains('runChunks')) { db.close(); resolve([]); return; }
    const req = db.transaction('runChunks').objectStore('runChunks').getAllKeys();
    req.onsuccess = () => { db.close(); resolve(req.result.map((k) => k[1] + ':' + k[2])); };
    req.onerror = () => reject(req.error);
  };
})`;

test('a run over the chunk size is saved in chunks and found whole after a reload', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const file = testInfo.outputPath('group-chat.json');
  writeFileSync(file, groupChat(STEPS));
  await openStudio(page);
  await page.getByTestId('persistence-status').and(page.locator('[data-status="saved"]')).waitFor();
  await openTraceInRunView(page, file);
  const count = page.locator('section[aria-label="Steps"] h2');
  await expect(count).toContainText('45,0');
  const shown = await count.textContent();
  // Saved means durable: the worker's write has committed.
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 60_000 });
  const keys = (await page.evaluate(CHUNK_KEYS)) as string[];
  expect(keys.filter((k) => k.startsWith('steps:'))).toEqual(['steps:0', 'steps:1', 'steps:2']);

  await page.reload();
  await expect(page.getByTestId('playhead-position')).toBeVisible({ timeout: 30_000 });
  await expect(count).toHaveText(shown!);
  await page.keyboard.press('End');
  const last = `step ${STEPS - 1}: noted item ${(STEPS - 1) % 97}`;
  await expect(page.getByTestId('inspector')).toContainText(last);
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved');
});
