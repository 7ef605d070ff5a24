// The dev-server proxy (SPEC §6) over real HTTP: a Vite dev server with MAS_REPLAY_LLM_PROXY pointed at the
// project's test server forwards `/llm/v1/...` to it, so the page's calls stay same-origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import { startTestServer, type TestServer } from '../test-server/server.ts';
import { llmProxy } from './llm-proxy.ts';

describe('llmProxy settings', () => {
  it('is off unless a target is given', () => {
    expect(llmProxy('')).toBeUndefined();
    expect(llmProxy(undefined)).toBeUndefined();
  });
  it('refuses what is not an http(s) URL', () => {
    expect(() => llmProxy('localhost:11434')).toThrow(/must be/);
    expect(() => llmProxy('file:///etc/passwd')).toThrow(/http\(s\)/);
  });
});

describe('the studio server forwards /llm to the model server', () => {
  let llm: TestServer;
  let vite: ViteDevServer;
  let origin: string;
  beforeAll(async () => {
    llm = await startTestServer({ script: { fallback: { content: 'proxied answer', usage: { prompt_tokens: 3, completion_tokens: 2 } } } });
    vite = await createServer({
      configFile: false,
      root: import.meta.dirname,
      logLevel: 'silent',
      server: { host: '127.0.0.1', port: 0, proxy: llmProxy(llm.url) },
    });
    await vite.listen();
    const address = vite.httpServer!.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    origin = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await vite?.close();
    await llm?.close();
  });

  it('models and chat completions reach the model server, path and body intact', async () => {
    const models = (await (await fetch(`${origin}/llm/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['test-model']);
    const res = await fetch(`${origin}/llm/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-proxy' },
      body: JSON.stringify({ model: 'test-model', messages: [{ role: 'user', content: 'hello through the proxy' }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[]; usage: { total_tokens: number } };
    expect(body.choices[0].message.content).toBe('proxied answer');
    expect(body.usage.total_tokens).toBe(5);
    const [, chat] = llm.log();
    expect(chat.path).toBe('/v1/chat/completions');
    expect(chat.authorization).toBe('Bearer sk-proxy');
    expect(JSON.stringify(chat.body)).toContain('hello through the proxy');
  });

  it('answers only the studio’s own page: another Origin or a cross-site fetch gets 403 and reaches nothing', async () => {
    llm.reset();
    const chat = (headers: Record<string, string>) =>
      fetch(`${origin}/llm/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const foreign: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: origin.replace('http:', 'https:') },
      { origin: 'http://127.0.0.1:1' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin },
    ];
    for (const headers of foreign) {
      const res = await chat(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.text()).toContain('only the studio');
    }
    expect((await fetch(`${origin}/llm/v1/models`, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect(llm.log()).toHaveLength(0);

    // The studio's page itself (same Origin, same-origin fetch) and requests from no page at all still go through.
    expect((await chat({ origin, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await chat({ 'sec-fetch-site': 'none' })).status).toBe(200);
    expect(llm.log()).toHaveLength(2);
  });
});
