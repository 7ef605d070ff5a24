// The step inspector on a real OTLP trace (issue 16 item 4, issue 20 item 1): a model call reads as one conversation
// (its prompt as turns, tool answers under their calls, then its output rendered as markdown), the span tree opens,
// filters and moves the playhead, and the inspector's Spans section shows the step's spans with their attributes.
// Screenshots at 1280×800 in test-results/inspector/.
import { expect, test } from '@playwright/test';
import { openStudio, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { expectClean, watchPage } from './sentinel.ts';

const TRACE = 'otlp/quo_tav_agent.json';
const SHOTS = 'test-results/inspector';

test.use({ viewport: { width: 1280, height: 800 } });

test('a model call as a conversation with markdown output, the span tree driving the playhead, and the step’s spans', async ({ page }) => {
  skipWithoutShared(TRACE);
  const sentinel = await watchPage(page);
  await openStudio(page);
  await openTraceInRunView(page, sharedTrace(TRACE));

  // The span tree can be folded and opened again.
  const tree = page.getByTestId('span-tree');
  const toggle = tree.getByRole('button', { name: /Spans/ });
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(tree.getByRole('tree')).toBeHidden();
  await toggle.click();
  await expect(tree.getByRole('tree')).toBeVisible();
  await expect(tree.getByTestId('span-count')).toHaveText('29 spans');

  // Filtering leaves the three LangChain model calls; the last one moves the playhead to its step (step 5).
  await tree.getByLabel('Filter spans').fill('ChatOpenAI');
  await expect(tree.getByTestId('span-count')).toHaveText('3 of 29 spans match');
  const rows = tree.getByTestId('span-row');
  await expect(rows).toHaveCount(3);
  await rows.nth(2).click();
  await expect(page.getByTestId('playhead-position')).toContainText('5');
  const inspector = page.getByTestId('inspector');
  await expect(inspector).toHaveAttribute('data-position', '4');
  await expect(rows.nth(2)).toHaveAttribute('data-current', 'step');
  await expect(tree.getByTestId('span-details')).toContainText('llm.input_messages');

  // The prompt as turns, each tool answer under the call it answers, then the output turn.
  const conversation = inspector.getByTestId('inspector-conversation');
  const prompt = conversation.getByTestId('inspector-prompt');
  await expect(prompt.locator(':scope > ol > li > [data-testid="chat-turn"]')).toHaveCount(4);
  expect(await prompt.locator(':scope > ol > li > [data-testid="chat-turn"]').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-role')))).toEqual(['system', 'user', 'assistant', 'assistant']);
  const calls = prompt.getByTestId('tool-call');
  await expect(calls).toHaveCount(2);
  await expect(calls.first().getByTestId('tool-result')).toContainText('call_kW83onhuRFzCvfhqM524IExy');
  await expect(calls.nth(1).getByTestId('tool-result')).toContainText('neudesic.com');
  // The output is markdown (a numbered list with bold titles) and renders as such; "plain" shows it as recorded.
  const output = conversation.getByTestId('inspector-output');
  const markdown = output.getByTestId('markdown');
  await expect(markdown.locator('ol > li').first()).toBeVisible();
  await expect(markdown.locator('li strong').first()).toHaveText('Generative AI');
  await output.getByRole('button', { name: 'plain' }).click();
  await expect(output.getByTestId('markdown')).toHaveCount(0);
  await expect(output).toContainText('1. **Generative AI**');
  await output.getByRole('button', { name: 'rendered' }).click();
  await expect(output.getByTestId('markdown')).toBeVisible();

  await prompt.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/conversation-1280x800.png` });

  // The step's spans: the LangChain span and the provider span merged into it, with their attributes.
  const spans = inspector.getByTestId('inspector-spans');
  await expect(spans.locator('summary').first()).toHaveText('Spans (2)');
  await spans.locator('summary').first().click();
  const listed = spans.getByTestId('inspector-span');
  await expect(listed).toHaveCount(2);
  await expect(listed.first()).toContainText('ChatOpenAI');
  await expect(listed.nth(1)).toContainText('ChatCompletion');
  await listed.first().locator('summary').click();
  await expect(listed.first().getByTestId('span-details')).toContainText('llm.model_name');

  await listed.first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/spans-1280x800.png` });
  await expectClean(sentinel);
});
