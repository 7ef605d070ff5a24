// No data loss (SPEC §9): a reload in the middle of a supervisor run against the project's test server loses at most
// the call in flight and Resume finishes without asking a finished step again (checked in the server's request
// log); "Export all" carries every run, label, intervention, LLM call and the engine settings (never the key) and
// opening it in an empty browser restores them; a corrupt stored record is reported and set aside, not deleted.
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { cliJson, editStoredRuns, fileCard, fileRuns, openStudio, openTraceFiles, sharedTrace, skipWithoutShared } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

const TRACE = 'trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json';
const LABELS = 'trail/annotations/3205fa0cb2135fe671bf7cd0e5a26151.json';
const ROOT = resolve(import.meta.dirname, '..');
const SHOTS = 'test-results/no-data-loss';

test.use({ viewport: { width: 1400, height: 1000 } });

/** Steps the supervisor's filter picks on the trace (the command line agrees with the panel; e2e/supervisor.spec.ts). */
async function triggerCount(): Promise<number> {
  return (await cliJson<{ runs: { triggers: unknown[] }[] }>(['supervise', sharedTrace(TRACE), '--offline', '--json'])).runs[0].triggers.length;
}

const annotationLane = (page: Page) => page.getByTestId('timeline-panel').getByText(/^annotations \(\d+\)$/);

async function openEngines(page: Page) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Engines' }).click();
  await expect(page.getByTestId('engines-page')).toBeVisible();
}

async function useEndpoint(page: Page, baseUrl: string) {
  await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
  await page.getByLabel('Base URL').fill(baseUrl);
  await page.getByLabel('Supervisor model').fill('test-model');
  await page.getByLabel('Retries').fill('0');
}

test.describe('against the test server', () => {
  let server: LlmServer;
  test.beforeAll(async () => {
    server = await startLlmServer();
  });
  test.afterAll(() => server.stop());

  const chats = async () => (await server.log()).filter((e) => e.path === '/v1/chat/completions');

  test('a reload during a supervisor run loses at most the call in flight; Resume does not repeat finished calls; Export all restores everything', async ({ page, browser }) => {
    skipWithoutShared(TRACE, LABELS);
    test.setTimeout(180_000);
    const expected = await triggerCount();
    expect(expected).toBeGreaterThan(3);
    const USAGE = { prompt_tokens: 120, completion_tokens: 12 };
    const decision = JSON.stringify({ analysis: 'slow scripted answer', action: 'correct_observation', parameters: { new_observation: 'Corrected by the test model.' } });
    await server.reset();
    await server.script({ fallback: { content: decision, usage: USAGE, delayMs: 700 } });

    await openStudio(page);
    await openTraceFiles(page, sharedTrace(TRACE), sharedTrace(LABELS));
    await fileRuns(page, basename(sharedTrace(TRACE))).first().getByRole('button').first().click();
    await expect(page).toHaveURL(/[?&]run=/);
    const lane = (await annotationLane(page).textContent()) ?? '';
    expect(lane).not.toBe('annotations (0)');
    const runId = new URL(page.url()).searchParams.get('run')!;
    await openEngines(page);
    await useEndpoint(page, server.baseUrl);
    await page.getByRole('button', { name: 'Run supervisor' }).click();
    const cards = page.getByTestId('intervention-card');
    // Reload in the very frame the second card shows: its write to IndexedDB has then barely begun (ADR 0055).
    const shown = await page.waitForFunction(
      () => {
        const count = document.querySelectorAll('[data-testid="intervention-card"]').length;
        return count >= 2 && count;
      },
      undefined,
      { polling: 'raf', timeout: 20_000 },
    );
    const seen = (await shown.jsonValue()) as number;

    // Mid-call: the next request is on the server, waiting out its delay.
    await page.reload();
    const asked = (await chats()).length;
    await expect(page.getByTestId('supervisor-interrupted')).toBeVisible();
    await expect(page.getByTestId('intervention-list')).toBeVisible();
    const kept = await cards.count();
    await page.screenshot({ path: `${SHOTS}/interrupted.png`, fullPage: true });
    expect(kept).toBeGreaterThanOrEqual(seen); // every intervention shown before the reload is still there
    expect(asked - kept).toBeLessThanOrEqual(1); // at most the call in flight was lost
    expect(kept).toBeLessThan(expected);
    await expect(page.getByTestId('supervisor-interrupted')).toContainText(`${kept} intervention`);
    await expect(page.getByTestId('supervisor-mode')).toContainText('“test-model”'); // the endpoint settings survived

    await server.script({ fallback: { content: decision, usage: USAGE } });
    await page.getByRole('button', { name: /^Resume/ }).click();
    await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    await expect(cards).toHaveCount(expected);
    const log = await chats();
    // Resume asked exactly the steps without an intervention; no finished step was asked twice.
    expect(log.length - asked).toBe(expected - kept);
    const distinct = new Set(log.map((e) => JSON.stringify(e.body))).size;
    expect(distinct).toBe(expected);
    expect(log.length - distinct).toBeLessThanOrEqual(1);
    await expect(page.getByTestId('supervisor-interrupted')).toHaveCount(0);

    // Export all: runs with labels and interventions, every LLM call, the settings without the key.
    await page.getByLabel('API key').fill('sk-never-exported');
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Library' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export all' }).click()]);
    const path = test.info().outputPath('library.session.json');
    await download.saveAs(path);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('sk-never-exported');
    const session = JSON.parse(text) as {
      runs: { id: string; annotations: unknown[]; interventions: { engine: string; llmCallIds?: string[] }[] }[];
      llmCalls: { id: string }[];
      engineSettings: { endpoint: { baseUrl: string; models: { supervisor?: string } } };
    };
    const run = session.runs.find((r) => r.id === runId)!;
    expect(run.interventions.filter((i) => i.engine === 'supervisor')).toHaveLength(expected);
    expect(run.annotations.filter((a) => (a as { taxonomy?: string }).taxonomy === 'TRAIL').length).toBeGreaterThan(0);
    const callIds = new Set(session.llmCalls.map((c) => c.id));
    expect(run.interventions.flatMap((i) => i.llmCallIds ?? []).every((id) => callIds.has(id))).toBe(true);
    expect(session.llmCalls.length).toBeGreaterThanOrEqual(expected);
    expect(session.engineSettings.endpoint.baseUrl).toBe(server.baseUrl);
    expect(session.engineSettings.endpoint.models.supervisor).toBe('test-model');

    // An empty browser (fresh profile): open the export, apply its settings, find everything again.
    const fresh = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const other = await fresh.newPage();
    await openStudio(other);
    const [card] = await openTraceFiles(other, path);
    await expect(fileRuns(other, basename(path))).toHaveCount(session.runs.length);
    const saved = card.getByTestId('saved-settings');
    await expect(saved).toContainText(`endpoint ${server.baseUrl}`);
    await expect(saved).toContainText('no API key');
    await saved.getByRole('button', { name: 'Use these settings' }).click();
    await expect(saved.getByRole('button', { name: 'In use' })).toBeDisabled();
    await other.screenshot({ path: `${SHOTS}/imported.png` });
    await openEngines(other);
    await expect(other.getByTestId('supervisor-mode')).toContainText('“test-model”');
    await expect(other.getByLabel('API key')).toHaveValue('');
    await other.getByLabel('Run', { exact: true }).selectOption(runId);
    await expect(other.getByTestId('intervention-card')).toHaveCount(expected);
    await other.getByTestId('intervention-card').first().getByRole('button').first().click();
    await expect(annotationLane(other)).toHaveText(lane);
    await expect(other.getByTestId('timeline-panel').getByText(/^interventions \(\d+\)$/)).toHaveText(`interventions (${expected})`);
    await fresh.close();
  });
});

test('a corrupt stored record is reported and set aside in quarantine, not deleted', async ({ page }) => {
  await openStudio(page);
  const sample = resolve(ROOT, 'public/samples/simulated-group-chat.session.json');
  await expect(fileCard(page, 'simulated-group-chat.session.json')).toHaveCount(0);
  await openTraceFiles(page, sample);
  await expect(page.getByTestId('persistence-status')).toHaveAttribute('data-status', 'saved');
  await expect.poll(async () => Number(await page.getByTestId('persistence-status').getAttribute('data-writes'))).toBeGreaterThan(0);

  // Damage the stored run the way a bad write or another program would: steps no longer a list.
  const [runId] = await editStoredRuns(page, (run, changed) => (changed === 0 ? { ...run, steps: 'not a list' } : undefined));
  await page.reload();
  const note = page.getByTestId('quarantine-note');
  await expect(note).toContainText('1 stored record was set aside');
  await expect(note).toContainText(`runs/${runId}`);
  await expect(note).toContainText('$.steps: Invalid input: expected array, received string');
  await page.screenshot({ path: `${SHOTS}/quarantined.png` });
  const quarantined = await page.evaluate(
    () =>
      new Promise<{ key: string; reason: string; steps: unknown }[]>((done) => {
        const open = indexedDB.open('mas-replay-studio');
        open.onsuccess = () => {
          const all = open.result.transaction('quarantine').objectStore('quarantine').getAll();
          all.onsuccess = () => {
            open.result.close();
            done((all.result as { key: string; reason: string; value: { steps: unknown } }[]).map((q) => ({ key: q.key, reason: q.reason, steps: q.value.steps })));
          };
        };
      }),
  );
  expect(quarantined).toEqual([{ key: runId, reason: '$.steps: Invalid input: expected array, received string', steps: 'not a list' }]);
});

test('a reload right after an import is reported done keeps what it opened', async ({ page }, testInfo) => {
  // Small chat logs (Who&When shape), each under its own name, opened and reloaded at once after the done signal:
  // the progress row gone and the account of the import shown.
  const { writeFileSync } = await import('node:fs');
  await openStudio(page);
  for (let i = 0; i < 3; i++) {
    const name = `quick-reload-${i}.json`;
    const path = testInfo.outputPath(name);
    writeFileSync(path, JSON.stringify({ question: `Question ${i}?`, history: [{ role: 'user', name: 'user', content: 'Start.' }, { role: 'assistant', name: 'solver', content: `Answer ${i}.` }] }));
    const input = page.getByTestId('open-file-input');
    if ((await input.count()) === 0) await page.getByRole('button', { name: 'Library', exact: true }).click();
    await input.setInputFiles(path);
    await expect(page.getByTestId('import-summary')).toHaveText(/^Opened 1 file · 1 run/);
    await expect(page.getByTestId('import-progress')).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'MAS Replay Studio' })).toBeVisible();
    for (let j = 0; j <= i; j++) await expect(fileCard(page, `quick-reload-${j}.json`), `file ${j} after reload ${i}`).toBeVisible();
  }
});
