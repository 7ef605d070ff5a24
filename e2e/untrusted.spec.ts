// Untrusted traces (SPEC §9): files of every supported format whose every text field carries script payloads are
// opened through the real file input and shown in every view of e2e/views.ts (each step of each run, each compare
// row, the offline supervisor's cards). Nothing may run (no dialog, no `window.__xss`, no handler or script element
// in the DOM, no CSP violation), nothing may leave the page, and the payloads must be visible as plain text.
// Screenshots go to test-results/untrusted/.
import { expect, test } from '@playwright/test';
import { openStudio, openTraceFiles } from './fixtures.ts';
import { LONG_PAYLOAD, PAYLOADS, writePayloadFiles } from './payloads.ts';
import { expectClean, watchPage } from './sentinel.ts';
import { goTo, openView, STUDIO_VIEWS } from './views.ts';

const SHOTS = 'test-results/untrusted';
/** Payloads that appear unchanged at the start of titles and names, so every view shows at least one of them. */
const RAW = [PAYLOADS.img, PAYLOADS.script, PAYLOADS.svg];
/** The run of the bundled native sample the kit rewrites (ids are left alone by the kit). */
const NATIVE_RUN = 'sim-group-chat-trip-budget';

test.use({ viewport: { width: 1500, height: 1000 } });

test('hostile text in every field of every format runs nothing, requests nothing, and shows as text in every view', async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  const kit = writePayloadFiles(testInfo.outputPath('payload-files'));
  if (kit.missing.length > 0) console.warn(`../shared/traces absent: formats not covered here: ${kit.missing.join(', ')}`);
  const sentinel = await watchPage(page);
  await openStudio(page);

  const cards = await openTraceFiles(page, ...kit.files.map((f) => f.path));
  await expect(page.getByTestId('failure-detail')).toHaveCount(0);
  for (const [i, card] of cards.entries()) await expect(card, `${kit.files[i].label} opened`).toBeVisible();
  // The raw payload is on the page as text (a run title), not as an element.
  await expect(page.getByText(PAYLOADS.img).first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/library.png`, fullPage: false });

  const runIds = await page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')!));
  expect(runIds.length).toBeGreaterThanOrEqual(kit.files.length - 2); // annotation files add labels, not runs

  for (const v of STUDIO_VIEWS) {
    if (v.walk) await v.walk(page, runIds, { stepsPerRun: 40 });
    else await openView(page, v);
    await expect(page.getByTestId(v.ready)).toBeVisible();
    const text = await page.locator('main').innerText();
    expect(RAW.some((p) => text.includes(p)), `${v.view}: a payload shown literally`).toBe(true);
    await page.screenshot({ path: `${SHOTS}/${v.view}.png` });
    await expectClean(sentinel);
  }

  // A huge field (the native sample's first step carries the 100k-character payload) is cut with "show all";
  // showing all of it runs nothing either.
  await goTo(page, `?run=${NATIVE_RUN}&step=${encodeURIComponent(`${NATIVE_RUN}:s0`)}`);
  const inspector = page.getByTestId('inspector-panel');
  const showAll = inspector.getByRole('button', { name: /^show all \(/ }).first();
  await expect(showAll).toBeVisible();
  expect((await inspector.innerText()).length).toBeLessThan(LONG_PAYLOAD.length);
  await showAll.click();
  await expect(inspector).toContainText(LONG_PAYLOAD.slice(-200));
  await page.screenshot({ path: `${SHOTS}/show-all.png` });
  await expectClean(sentinel);
});
