// A file opened while the library is still loading from IndexedDB (a drop right after the page opens, a `?src=` link)
// is written by the import worker, as any other file (ADR 0020), not by the page. The import used to decide where to
// write when it started: with the library still loading there was no database yet, so the page wrote the runs itself,
// on its own thread, once it had them (~1 s of a frozen page for a 200k-message chat log, just after it was listed).
// Now the worker asks once the runs are mapped, and the page answers when its library has loaded.
// What tells the two writers apart: the worker keeps a run's source spans apart (`runSpans`), the page writes them
// inline; and the library marks a run as saving while the worker writes it.
import { basename } from 'node:path';
import { expect, test } from '@playwright/test';
import { fileRuns, libraryStoreKeys, openStudio, sharedTrace, skipWithoutShared } from './fixtures.ts';

const TRACE = 'otlp/rag_earnings_agent.json';
const LOAD_DELAY_MS = 3000;

// The page's library database opens LOAD_DELAY_MS late: its first `success` is held back (idb listens with
// addEventListener). Workers open it as they always do.
const SLOW_LIBRARY = `(() => {
  const open = IDBFactory.prototype.open;
  let held = false;
  IDBFactory.prototype.open = function (name, version) {
    const request = version === undefined ? open.call(this, name) : open.call(this, name, version);
    if (held || name !== 'mas-replay-studio') return request;
    held = true;
    window.__libraryOpenAt = performance.now() + ${LOAD_DELAY_MS};
    const add = request.addEventListener.bind(request);
    request.addEventListener = (type, listener, options) =>
      add(type, type === 'success' ? (event) => setTimeout(() => listener.call(request, event), ${LOAD_DELAY_MS}) : listener, options);
    return request;
  };
})()`;

test('a file opened while the library loads is written by the import worker, not by the page', async ({ page }) => {
  skipWithoutShared(TRACE);
  await page.addInitScript(SLOW_LIBRARY);
  await openStudio(page);
  // Record whether the run was ever shown as being saved by the worker.
  await page.evaluate(() => {
    const w = window as unknown as { __sawSaving?: boolean };
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="run-saving"]')) w.__sawSaving = true;
    }).observe(document.body, { subtree: true, childList: true });
  });
  const openedWhileLoading = await page.evaluate(() => performance.now() < (window as unknown as { __libraryOpenAt: number }).__libraryOpenAt);
  expect(openedWhileLoading, 'the file is opened before the library has loaded').toBe(true);
  await page.getByTestId('open-file-input').setInputFiles(sharedTrace(TRACE));
  await expect(fileRuns(page, basename(TRACE))).toHaveCount(1, { timeout: 30_000 });
  await expect(page.locator('html')).toHaveAttribute('data-library-status', 'saved', { timeout: 30_000 });
  const runId = await fileRuns(page, basename(TRACE)).first().getAttribute('data-run-id');
  expect(runId).toBeTruthy();
  // The runs whose spans are kept apart.
  expect((await libraryStoreKeys(page, 'runSpans')).map(String)).toContain(runId);
  expect(await page.evaluate(() => (window as unknown as { __sawSaving?: boolean }).__sawSaving)).toBe(true);
  // And it is there after a reload.
  await page.reload();
  await expect(fileRuns(page, basename(TRACE))).toHaveCount(1, { timeout: 30_000 });
});
