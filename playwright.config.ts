import { defineConfig } from '@playwright/test';
import { LIVE_OFFSET, pickE2ePort } from './scripts/e2e-port';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium-args';

// Debian's Chromium (installed by scripts/setup.mjs); Playwright cannot download its own browser here.
// The servers' port: drawn per run, never one Chromium refuses (scripts/e2e-port.ts). The config is evaluated again in
// each worker, which inherits the environment, so the choice is stored there.
process.env.E2E_PORT ??= String(pickE2ePort());
const PORT = Number(process.env.E2E_PORT);
const LIVE_PORT = PORT + LIVE_OFFSET;
const LIVE_SPECS = /live-otlp\.spec\.ts$/;
// Specs that time the page or race it (the longest main-thread task while a 10 MB text opens, the phases of an import,
// a reload in the middle of a supervisor call): they run by themselves once every other test has finished, two at a
// time at most — never beside more than one other test, as when the whole suite ran on two workers. They form the
// `teardown` of the other projects, which Playwright runs after them whether or not they passed (a dependency would
// skip them after any failure). A teardown runs whatever the filter: `playwright test e2e/x.spec.ts --no-deps` runs only
// the files named.
const TIMED_SPECS = /(huge-text|import-progress|no-data-loss)\.spec\.ts$/;
// The longest tests are handed out first (projects are dispatched in this order), so no worker starts a minute-long
// test while the others run out of work.
const LONG_SPECS = /(untrusted|daily-use)\.spec\.ts$/;

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  // Two workers. Three were measured on a quiet machine (fresh-clone CI): e2e 479.5 s against 477.8 s with two, every
  // test slower in proportion: the tests are bound by the two cores (Chromium's processes), not by waiting. Four failed
  // 10 s expectations on a loaded machine. More workers only add risk to the timed specs' neighbours.
  workers: 2,
  reporter: [['list'], ['json', { outputFile: 'reports/playwright.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // The benches launch the same way (scripts/chromium-args.ts, ADR 0044).
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'studio-long', testMatch: LONG_SPECS, teardown: 'timed' },
    { name: 'live-otlp', testMatch: LIVE_SPECS, use: { baseURL: `http://127.0.0.1:${LIVE_PORT}` }, teardown: 'timed' },
    { name: 'studio', testIgnore: [LIVE_SPECS, TIMED_SPECS, LONG_SPECS], teardown: 'timed' },
    { name: 'timed', testMatch: TIMED_SPECS, workers: 2 },
  ],
  webServer: [
    {
      command: `node node_modules/vite/bin/vite.js preview --port ${PORT} --strictPort`,
      url: `http://127.0.0.1:${PORT}`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: `node node_modules/vite/bin/vite.js preview --port ${LIVE_PORT} --strictPort`,
      url: `http://127.0.0.1:${LIVE_PORT}`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
  ],
});
