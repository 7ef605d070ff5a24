// The taxonomy's edge list on a run with many handoffs draws only the rows in view (issue 14 goal 2). Drawn whole, a
// 20,000-message group chat's list froze the page 4.6 s when its tab opened (68 s at 200,000), and each saved label
// drew it again. Now a long list is windowed, and its rows are worked out a slice at a time (ADR 0062); keys, clicks
// and labels work as on a short one.
import { expect, test } from '@playwright/test';
import { openGroupChat, watchLongTasks } from './fixtures.ts';

const MESSAGES = 20_000;
/** Far under the 4.6 s the whole list took here; far over a slice (12 ms of work, and a garbage collection). */
const LONG_TASK_MS = 250;


test('a run of 20,000 handoffs: its edge list opens without freezing the page, moves by key, scrolls and labels', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await openGroupChat(page, testInfo.outputPath('many-edges.json'), MESSAGES);
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Taxonomy' }).click();
  await expect(page.getByTestId('taxonomy-page')).toBeVisible();

  const longest = await watchLongTasks(page);
  await page.getByRole('tab', { name: 'Edges & labels' }).click();
  const list = page.getByRole('list', { name: 'Edges of the run' });
  await expect(page.getByTestId('edge-list')).toContainText(`Edges (${(MESSAGES - 1).toLocaleString('en')})`);
  await expect(list).toHaveAttribute('data-windowed', 'true');
  const rows = page.getByTestId('edge-row');
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeLessThan(100);
  expect(await longest(), 'longest task while the edge list opened').toBeLessThan(LONG_TASK_MS);
  // Rows of one height, placed without measuring them: names and message on one line each, both whole in the title.
  await expect(rows.first()).toHaveAttribute('title', 'Planner → Coder\nstep 0: noted item 0');
  const [one, two] = [await rows.nth(0).boundingBox(), await rows.nth(1).boundingBox()];
  expect(two!.y - one!.y).toBe(52);
  expect(one!.height).toBe(48);

  // Keys move the current edge, and it stays drawn. Pressed on the row a click focused, they take the focus along:
  // the focus ring and the current row stay one row.
  await rows.first().click();
  await expect(page).toHaveURL(/[?&]edge=/);
  const current = rows.and(page.locator('[aria-current="true"]'));
  for (let i = 0; i < 3; i++) {
    const before = page.url();
    await page.keyboard.press('j');
    await expect.poll(() => page.url()).not.toBe(before);
    await expect(current).toContainText(`#${i + 2}`);
    await expect(current).toBeFocused();
  }
  // Each handoff made on the page from its step (ADR 0067): message i is sent by its speaker to the next one.
  await expect(page.getByRole('heading', { name: /^Edge #4:/ })).toHaveText('Edge #4: Writer → Planner (message)');
  await expect(rows.and(page.locator('[aria-current="true"]'))).toContainText('#4');

  // Scrolled to the middle, the rows there are drawn (and only a window of them); one is picked and labelled.
  await list.evaluate((el) => {
    el.scrollTop = el.scrollHeight / 2;
  });
  const middle = rows.filter({ hasText: /#10\d{3}/ }).first();
  await expect(middle).toBeVisible();
  expect(await rows.count()).toBeLessThan(100);
  const number = /#(\d+)/.exec((await middle.textContent()) ?? '')![1];
  await middle.click();
  const speakers = ['Planner', 'Coder', 'Critic', 'Writer'];
  const at = Number(number) - 1;
  await expect(page.getByRole('heading', { name: new RegExp(`^Edge #${number}:`) })).toHaveText(`Edge #${number}: ${speakers[at % 4]} → ${speakers[(at + 1) % 4]} (message)`);
  const form = page.getByTestId('label-form');
  await form.getByRole('radio', { name: /^RD/ }).click();
  await form.getByRole('button', { name: 'Save label' }).click();
  await expect(page.getByTestId('saved-label')).toContainText('Saved: RD');
  await expect(rows.and(page.locator('[aria-current="true"]'))).toContainText('you:');
});
