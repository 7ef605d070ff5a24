import { expect, test } from '@playwright/test';
import { openStudio } from './fixtures.ts';

// A studio served by a host without the live receiver, which answers `/v1/live/events` with its page (200, HTML) as
// most single-page hosting does: the live worker says it is refused and asks again only every 5 s; it read the page as
// an event stream before, said "connected" and fetched it again every second (src/workers/live-stream.ts).
test('on a host that answers the live stream with its page, live OTLP says refused and does not ask every second', async ({ page, context }) => {
  let asked = 0;
  await context.route('**/v1/live/events', (route) => {
    asked++;
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>studio</title>' });
  });
  await openStudio(page);
  const root = page.locator('html');
  await expect(root).toHaveAttribute('data-otlp-live-status', 'refused');
  await expect(root).toHaveAttribute('data-otlp-live-message', /text\/html rather than an event stream/);
  const first = asked;
  await page.waitForTimeout(3000);
  expect(asked - first).toBeLessThanOrEqual(1);
});
