// What the browser benches that open a generated file through the studio's Library share (bench/views,
// bench/engine-flood): a page that records its long tasks, the file opened and saved, the run's id; and the way each
// bench runs its main and cleans up.
import type { Browser, Page } from '@playwright/test';
import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';

// As a string (tsx would add helpers that do not exist in the page): the page's long tasks, in `window.__longTasks`.
export const LONG_TASKS_INIT = `
  localStorage.setItem('mas-replay:visited', 'bench');
  window.__longTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask', buffered: true });
`;

/** `file` opened in a fresh page at 1280×800 and saved in the Library; resolves to the page and its first run's id. */
export async function openedInLibrary(browser: Browser, base: string, file: string, timeoutMs = 600_000): Promise<{ page: Page; id: string }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(LONG_TASKS_INIT);
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.locator('html[data-library-status="saved"]').waitFor({ timeout: 120_000 });
  await page.getByTestId('open-file-input').setInputFiles(file);
  const row = page.getByTestId('run-row').first();
  await row.waitFor({ timeout: timeoutMs });
  const id = (await row.getAttribute('data-run-id')) ?? '';
  await page.locator('html[data-library-status="saved"]').waitFor({ timeout: timeoutMs });
  return { page, id };
}

/** Closes what a bench opened: its server, its browser, its temporary directory. */
export async function closeBench(server: Server, browser: Browser, tmp: string): Promise<void> {
  server.close();
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
}

/** Runs a bench's main when its file is the script run; a failure is printed and the process exits with 1. */
export function runWhenMain(url: string, main: () => Promise<void>): void {
  if (url !== pathToFileURL(process.argv[1] ?? '').href) return;
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
