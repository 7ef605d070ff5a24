// Issue 14 goal 2: a large file shows a progress bar for every phase of its import, and Cancel (by keyboard) stops the
// import worker and leaves the library as it was. The files are generated here, large enough that each phase lasts.
import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { generateFlatAgentTrace } from '../bench/gen-flat-agent-otlp.ts';
import { groupChat, openStudio } from './fixtures.ts';


/** A message-bus log (JSON Lines, one message per line) of `steps` messages: read and parsed as a stream. */
function busLog(steps: number): string {
  const lines = Array.from({ length: steps }, (_, i) =>
    JSON.stringify({ id: `m${i}`, timestamp: 1_760_000_000 + i, sender: i % 3 === 0 ? 'alice' : 'bob', type: 'channel_message', content: `message ${i} about item ${i % 97}`, recipients: ['@all'], thread_id: null, reply_to: null }),
  );
  return `${lines.join('\n')}\n`;
}

// The progress row as it changes, recorded in the page: its phase and its bar (value, or indeterminate).
const RECORD = `
  window.__progress = [];
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(() => {
      const row = document.querySelector('[data-testid="import-progress"]');
      if (!row) return;
      const bar = row.querySelector('[role="progressbar"], progress');
      const entry = { phase: row.dataset.phase, bar: !!bar, value: bar && bar.hasAttribute('value') ? Number(bar.getAttribute('value')) : null, text: row.textContent };
      const last = window.__progress[window.__progress.length - 1];
      if (!last || last.phase !== entry.phase || last.value !== entry.value || last.text !== entry.text) window.__progress.push(entry);
    }).observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['value', 'data-phase'] });
  });
`;

interface Seen {
  phase: string;
  bar: boolean;
  value: number | null;
  text: string;
}

/** `text` written to `path` and opened in a freshly loaded studio, recording its progress row: what the row showed, once it is gone. */
async function importRecorded(page: Page, path: string, text: string): Promise<Seen[]> {
  writeFileSync(path, text);
  await page.addInitScript(RECORD);
  await openStudio(page);
  await page.getByTestId('open-file-input').setInputFiles(path);
  await expect(page.getByTestId('run-row')).toHaveCount(1, { timeout: 90_000 });
  await expect(page.getByTestId('import-progress')).toHaveCount(0, { timeout: 60_000 });
  return (await page.evaluate('window.__progress')) as Seen[];
}

test('a large JSON Lines file shows a progress bar that advances through reading, mapping and handing over', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const seen = await importRecorded(page, testInfo.outputPath('messages.jsonl'), busLog(150_000));
  // A bar at every moment the row was shown.
  expect(seen.length).toBeGreaterThan(2);
  expect(seen.every((s) => s.bar)).toBe(true);
  const phases = [...new Set(seen.map((s) => s.phase))];
  expect(phases).toEqual(expect.arrayContaining(['mapping', 'handing-over']));
  // Handing over counts steps: a determinate bar, never going back.
  const handing = seen.filter((s) => s.phase === 'handing-over' && s.value !== null).map((s) => s.value!);
  expect(handing.length).toBeGreaterThan(0);
  expect(handing.every((v, i) => v >= 0 && v <= 1 && (i === 0 || v >= handing[i - 1]))).toBe(true);
  expect(seen.some((s) => /of 300,000 steps and handoffs/.test(s.text))).toBe(true); // a broadcast handoff per message
  // Saving it in this browser: shown, and where the worker's write told how far it was, a bar with a percent. (A
  // write of this size can finish its requests before the page draws a figure: a determinate state is not required.)
  expect(seen.some((s) => s.phase === 'saving')).toBe(true);
  const saving = seen.filter((s) => s.phase === 'saving' && s.value !== null);
  expect(saving.every((s) => /saving messages\.jsonl in this browser: \d+%/.test(s.text))).toBe(true);
});

test('one large OTLP document shows how far into its text its spans are parsed, then a mapping bar (ADR 0047)', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const seen = await importRecorded(page, testInfo.outputPath('flat-agent.json'), generateFlatAgentTrace(60_000));
  // Its spans are parsed a batch at a time from the text: the bar moves through the text's MB (one JSON.parse of the
  // whole document was an indeterminate "parsing").
  const parsing = seen.filter((s) => s.phase === 'parsing' && s.value !== null);
  expect(parsing.length).toBeGreaterThan(0);
  expect(parsing.every((s) => /parsing flat-agent\.json: [\d.]+ of [\d.]+ MB/.test(s.text))).toBe(true);
  // Then the mapping's passes against the spans' count.
  expect(seen.some((s) => s.phase === 'mapping' && s.value !== null)).toBe(true);
  await expect(page.getByTestId('run-row').getByTestId('run-steps')).toContainText(/5[0-9],[0-9]{3}/);
});

test('Cancel, pressed from the keyboard mid-import, stops the worker and leaves the library as it was', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const big = testInfo.outputPath('big-chat.json');
  writeFileSync(big, groupChat(400_000));
  const small = testInfo.outputPath('small-chat.json');
  writeFileSync(small, groupChat(20));
  await page.addInitScript(RECORD);
  await openStudio(page);
  const importWorkers = () => page.workers().filter((w) => /import/.test(w.url())).length;
  await page.getByTestId('open-file-input').setInputFiles(big);
  const row = page.getByTestId('import-progress');
  await expect(row.getByRole('progressbar')).toBeVisible();
  // The chat log's messages are parsed in batches (ADR 0049): its bar moves through the text, where one JSON.parse
  // of the whole stood still.
  await expect
    .poll(async () => ((await page.evaluate('window.__progress')) as Seen[]).some((s) => s.phase === 'parsing' && s.value !== null && /parsing big-chat\.json: [\d.]+ of [\d.]+ MB/.test(s.text)), { timeout: 60_000 })
    .toBe(true);
  // Mid-import: the worker is parsing or mapping the file.
  await expect(row).toHaveAttribute('data-phase', /parsing|mapping/, { timeout: 60_000 });
  expect(importWorkers()).toBe(1);
  await row.getByRole('button', { name: 'Cancel' }).focus();
  await page.keyboard.press('Enter');
  await expect(row).toHaveCount(0, { timeout: 10_000 });
  await expect(page.getByTestId('import-summary')).toContainText('Cancelled opening big-chat.json');
  await expect.poll(importWorkers).toBe(0); // terminated, not left running
  await expect(page.getByTestId('run-row')).toHaveCount(0);
  await expect(page.getByTestId('library-file')).toHaveCount(0);
  // The next import starts a fresh worker and works.
  await page.getByTestId('open-file-input').setInputFiles(small);
  await expect(page.getByTestId('run-row')).toHaveCount(1, { timeout: 30_000 });
  await expect(page.getByTestId('library-file')).toHaveCount(1);
});
