// Ids that are names of Object's own members (issue 17): a trace whose id is `__proto__` is stored and still in the
// Library after a reload, and links naming `constructor`, `toString`, `valueOf`… say "not found" instead of blanking.
import { expect, test, type Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { openStudio, openTraceFiles } from './fixtures.ts';
import { goTo } from './views.ts';

/** A TRAIL span tree (one agent span with a model call) whose trace id is `id`. */
function spanTreeText(id: string): string {
  const span = (spanId: string, name: string, kind: string, children: unknown[] = []) => ({
    span_id: spanId,
    span_name: name,
    timestamp: '2025-01-01T00:00:00Z',
    duration: 'PT1S',
    span_attributes: { 'openinference.span.kind': kind, 'input.value': `input of ${name}`, 'output.value': `output of ${name}` },
    child_spans: children,
  });
  return JSON.stringify({ trace_id: id, spans: [span('a1', 'main agent', 'AGENT', [span('l1', 'model call', 'LLM')])] });
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

test('a trace with id __proto__ is kept across a reload; links to Object member names say not found', async ({ page }, testInfo) => {
  const errors = watchErrors(page);
  const path = testInfo.outputPath('proto-trace.json');
  writeFileSync(path, spanTreeText('__proto__'));
  await openStudio(page);
  await openTraceFiles(page, path);
  await expect(page.locator('[data-testid="run-row"][data-run-id="__proto__"]')).toBeVisible();
  const status = page.getByTestId('persistence-status');
  await expect.poll(async () => Number(await status.getAttribute('data-writes'))).toBeGreaterThan(0);
  await expect(status).toHaveAttribute('data-status', 'saved');

  await page.reload();
  await expect(page.getByRole('heading', { name: 'MAS Replay Studio' })).toBeVisible();
  const row = page.locator('[data-testid="run-row"][data-run-id="__proto__"]');
  await expect(row).toBeVisible();
  await expect(page.getByTestId('failure-detail')).toHaveCount(0);
  await row.getByRole('button').first().click();
  await expect(page).toHaveURL(/[?&]run=__proto__/);
  await expect(page.getByTestId('playhead-position')).toBeVisible();

  for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
    await goTo(page, `?run=${name}`);
    await expect(page.getByText(`Run not found: “${name}”.`)).toBeVisible();
  }
  await goTo(page, '?view=compare&a=toString&b=valueOf');
  await expect(page.getByTestId('compare-page')).toContainText('The link names “toString” and “valueOf”, which the library does not hold');
  await goTo(page, '?view=compare&a=__proto__&b=constructor');
  await expect(page.getByTestId('compare-page')).toContainText('The link names “constructor”, which the library does not hold');

  // The same links opened cold (a fresh page load, before the library is read).
  await page.goto('/?run=constructor');
  await expect(page.getByText('Run not found: “constructor”.')).toBeVisible();
  await page.goto('/?view=compare&a=toString&b=valueOf');
  await expect(page.getByTestId('compare-page')).toContainText('which the library does not hold');
  expect(errors).toEqual([]);
});
