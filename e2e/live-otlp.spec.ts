// Issue 19: a running smolagents team exports OTLP to the studio's own server (the real OpenTelemetry JS SDK, from the
// test process) while the page is open; the run appears, grows step by step, the supervisor's trigger shows in the
// interventions lane before the run ends, and a reload in the middle loses nothing.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect, test, type Page } from '@playwright/test';
import { smolagentsEmitter } from '../src/testing/otel-smolagents.ts';
import { openStudio } from './fixtures.ts';

const position = (page: Page) => page.getByTestId('playhead-position');
const lane = (page: Page) => page.getByTestId('timeline-panel').getByText(/^interventions \(\d+\)$/);

test('a run exported live grows in the page, shows its supervisor trigger before it ends, and survives a reload', async ({ page, baseURL }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await openStudio(page);
  const emitter = smolagentsEmitter(new OTLPTraceExporter({ url: `${baseURL}/v1/traces` }), `Find the capital of France (${test.info().testId}).`);
  const rows = page.locator('[data-testid="run-row"]').filter({ has: page.getByTestId('live-badge') });

  await emitter.step(1);
  await expect(rows).toHaveCount(1);
  const row = rows.first();
  await expect(row.getByTestId('live-badge')).toHaveText('live');
  await expect(row.getByTestId('run-steps')).toHaveText('1');

  await row.getByRole('button').first().click();
  await expect(position(page)).toBeVisible();
  await page.keyboard.press('End');
  const atEnd = async () => {
    const m = /step (\d+) \/ (\d+)/.exec((await position(page).textContent()) ?? '');
    return m !== null && m[1] === m[2] ? Number(m[2]) : -1;
  };
  await expect.poll(atEnd).toBeGreaterThan(0);
  const first = await atEnd();

  // Step 2 fails: the filter fires and the lane shows it while the run is still going.
  await emitter.step(2);
  await expect.poll(atEnd).toBeGreaterThan(first);
  await expect(lane(page)).toHaveText('interventions (1)');

  await emitter.step(3);
  const beforeReload = await (async () => {
    await expect.poll(atEnd).toBeGreaterThan(first + 1);
    return atEnd();
  })();

  // A reload mid-run: the run is read back from the library, and steps sent after it join the same run.
  await page.waitForTimeout(600);
  await page.reload();
  await expect(position(page)).toContainText(`/ ${beforeReload}`);
  await expect(lane(page)).toHaveText('interventions (1)');
  await page.keyboard.press('End');
  await expect.poll(atEnd).toBe(beforeReload);
  await emitter.step(4);
  await expect.poll(atEnd).toBeGreaterThan(beforeReload);

  await emitter.finish();
  await page.getByRole('button', { name: 'Library', exact: true }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId('live-badge')).toHaveText('done');
  await expect(rows.first().getByTestId('run-steps')).toHaveText('4');
  await emitter.provider.shutdown();
  expect(problems).toEqual([]);
});
