// How every Chromium of the project starts: the e2e suite (playwright.config.ts) and the browser benchmarks (bench/).
// Every browser context is a window, and Chromium 156 preloads the omnibox popup of each window as a WebUI page in a
// renderer of its own (`chrome://omnibox-popup.top-chrome/`, and its AI-mode twin): ~1 CPU-s per context for UI that
// headless never shows (ADR 0044). Chromium keeps only the last --disable-features, so Playwright's own list (1.65,
// chromiumSwitches.ts) is repeated before ours (its Edge-only names left out): when Playwright is upgraded, copy its
// list again.
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
];
export const NO_OMNIBOX_POPUP = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];

/** The command-line switches of every Chromium the project launches (no request leaves the machine: SPEC §9). */
export const CHROMIUM_ARGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...NO_OMNIBOX_POPUP].join(',')}`,
];

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
