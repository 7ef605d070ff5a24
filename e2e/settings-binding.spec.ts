// Settings carried in a file cannot send the API key elsewhere, and the studio cannot be framed (SPEC §9, issue 17).
// Two instances of the project's test server stand for the endpoint the key was typed for (A) and the one a session
// file names (B): after "Use these settings" the key is gone, the card and the engines panel say why, and no request
// carrying the key reaches B. The served page refuses framing by header, and by its own check where headers are absent.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openStudio, openTraceFiles } from './fixtures.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';
import { goTo } from './views.ts';

const KEY = 'sk-only-for-endpoint-a';
const RUN = 'sim-gaia-showcase-baseline';

async function openEngines(page: Page) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Engines' }).click();
  await expect(page.getByTestId('engines-page')).toBeVisible();
}

test.describe('the API key stays with the endpoint it was typed for', () => {
  let a: LlmServer;
  let b: LlmServer;
  test.beforeAll(async () => {
    [a, b] = await Promise.all([startLlmServer(), startLlmServer()]);
  });
  test.afterAll(() => {
    a.stop();
    b.stop();
  });

  test('a session naming another base URL: warning, key cleared, nothing with the key reaches the other host', async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    const decision = JSON.stringify({ analysis: 'scripted', action: 'provide_guidance', parameters: { guidance: 'Check the source first.' } });
    for (const s of [a, b]) {
      await s.reset();
      await s.script({ fallback: { content: decision, usage: { prompt_tokens: 40, completion_tokens: 8 } } });
    }
    // Every request the page makes to B, with its headers as sent.
    const toB: { url: string; authorization?: string }[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(b.origin)) toB.push({ url: r.url(), authorization: r.headers().authorization });
    });

    // A session file whose engine settings name B.
    const session = JSON.parse(readFileSync(resolve(import.meta.dirname, '../public/samples/simulated-gaia-showcase.session.json'), 'utf8')) as Record<string, unknown>;
    session.engineSettings = { version: 1, endpoint: { mode: 'endpoint', baseUrl: b.baseUrl, models: { supervisor: 'test-model' }, retries: 0 }, supervisor: {} };
    const file = testInfo.outputPath('names-another-endpoint.session.json');
    writeFileSync(file, JSON.stringify(session));

    // The key is typed for A and works there.
    await openStudio(page);
    await openEngines(page);
    await page.getByRole('radio', { name: /OpenAI-compatible endpoint/ }).check();
    await page.getByLabel('Base URL').fill(a.baseUrl);
    await page.getByLabel('Supervisor model').fill('test-model');
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByTestId('connection-result')).toContainText('Connected');
    expect((await a.log()).map((e) => e.authorization)).toEqual([`Bearer ${KEY}`]);

    // The card warns before the click, naming both endpoints.
    const [card] = await openTraceFiles(page, file);
    const saved = card.getByTestId('saved-settings');
    const warning = saved.getByTestId('saved-settings-warning');
    await expect(warning).toContainText(`names the endpoint ${b.origin}, not the current ${a.origin}`);
    await expect(warning).toContainText(`the API key entered for ${a.origin} is cleared`);
    await saved.getByRole('button', { name: 'Use these settings' }).click();
    await expect(saved.getByRole('button', { name: 'In use' })).toBeDisabled();
    const why = `The API key was cleared because the endpoint changed from ${a.origin} to ${b.origin}; enter it again for ${b.origin}.`;
    await expect(saved.getByTestId('saved-settings-key-notice')).toHaveText(why);

    // The engines panel: B's URL, no key, and the reason.
    await goTo(page, `?view=engines&run=${RUN}`);
    await expect(page.getByLabel('Base URL')).toHaveValue(b.baseUrl);
    await expect(page.getByLabel('API key')).toHaveValue('');
    await expect(page.getByTestId('api-key-notice')).toHaveText(why);

    // An engine run against B: it reaches B, without the key.
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByTestId('connection-result')).toContainText('Connected');
    await page.getByRole('button', { name: 'Run supervisor' }).click();
    await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    const atB = await b.log();
    expect(atB.some((e) => e.path === '/v1/chat/completions')).toBe(true);
    expect(atB.filter((e) => e.authorization !== undefined)).toEqual([]);
    expect(toB.length).toBeGreaterThan(1);
    expect(toB.filter((r) => r.authorization !== undefined)).toEqual([]);
    expect(JSON.stringify(atB)).not.toContain(KEY);
    expect((await a.log()).length).toBe(1);

    // A key typed now belongs to B, and the notice goes.
    await page.getByLabel('API key').fill('sk-typed-for-b');
    await expect(page.getByTestId('api-key-notice')).toHaveCount(0);
    await b.reset();
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByTestId('connection-result')).toContainText('Connected');
    expect((await b.log()).map((e) => e.authorization)).toEqual(['Bearer sk-typed-for-b']);
  });
});

test.describe('the studio refuses to be framed', () => {
  test('the served page says so in its headers', async ({ request }) => {
    for (const path of ['/', '/?samples=1']) {
      const res = await request.get(path);
      expect(res.ok()).toBe(true);
      const headers = res.headers();
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  test('a page that frames the studio gets nothing; where a host strips the headers, the app refuses to render', async ({ page, baseURL }) => {
    const frameOf = async (src: string) => {
      await page.setContent(`<iframe id="studio" src="${src}" width="800" height="600"></iframe>`);
      return page.frameLocator('#studio');
    };

    // With the server's headers the browser does not load the studio into the frame at all.
    const studioLoads: string[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(`${baseURL}/assets/`)) studioLoads.push(r.url());
    });
    const blocked = await frameOf(`${baseURL}/?framed=headers`);
    await expect(blocked.getByRole('heading', { name: 'MAS Replay Studio' })).toHaveCount(0);
    await page.waitForTimeout(500);
    expect(studioLoads).toEqual([]);
    expect(page.frames().find((f) => f.url().includes('framed=headers'))).toBeUndefined();

    // The same page served without those headers (another host): the entry sees the frame and shows only a refusal.
    await page.route('**/?framed=stripped', async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers['x-frame-options'];
      delete headers['content-security-policy'];
      await route.fulfill({ response, headers });
    });
    const stripped = await frameOf(`${baseURL}/?framed=stripped`);
    await expect(stripped.getByTestId('framed-refusal')).toContainText('does not run inside a frame');
    await expect(stripped.getByRole('heading', { name: 'MAS Replay Studio' })).toHaveCount(0);

    // Opened in its own tab, it runs.
    await openStudio(page);
  });
});
