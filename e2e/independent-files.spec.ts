// Files opened together are independent (issue 17, item 8): a file whose JSON nests 10⁴ deep, opened with good files,
// fails alone with the JSON path and the depth limit; the good files open. (It used to fail the whole pick with
// "Unserializable return value": the batch's result could not cross from the import worker to the page.)
import { writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { fileCard, openStudio, openTraceFiles } from './fixtures.ts';

test('a file nested 10⁴ deep fails alone; the files opened with it load', async ({ page }, testInfo) => {
  const chat = (i: number) => JSON.stringify({ question: `Question ${i}?`, history: [{ role: 'user', name: 'user', content: 'Start.' }, { role: 'assistant', name: 'solver', content: `Answer ${i}.` }] });
  const good = [0, 1].map((i) => {
    const path = testInfo.outputPath(`good-${i}.json`);
    writeFileSync(path, chat(i));
    return path;
  });
  const deep = testInfo.outputPath('deep.json');
  writeFileSync(deep, `{"question":"q","history":[{"role":"user","name":"user","content":"x","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`);
  await openStudio(page);
  await openTraceFiles(page, good[0], deep, good[1]);
  await expect(fileCard(page, 'good-0.json')).toBeVisible();
  await expect(fileCard(page, 'good-1.json')).toBeVisible();
  await expect(fileCard(page, 'deep.json')).toHaveCount(0);
  const failures = page.getByTestId('import-failures');
  await expect(failures).toContainText('deep.json');
  await expect(failures).toContainText('$.history[0].extra[0]');
  await expect(page.getByTestId('failure-detail')).toHaveText(['objects and arrays nested more than 256 levels deep (the limit)']);
});
