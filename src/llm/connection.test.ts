import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefaults } from './index.ts';
import { startTestServer, type TestServer } from '../../test-server/server.ts';
import { testConnection } from './connection.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('testConnection against the test server', () => {
  it('lists the models and sends the key only as a bearer header to the base URL', async () => {
    server.reset();
    const r = await testConnection(withDefaults({ baseUrl: `${server.baseUrl}/`, models: { supervisor: 'test-model' }, apiKey: { key: 'sk-t', origin: server.url } }));
    expect(r).toMatchObject({ ok: true, via: 'models', models: ['test-model'] });
    expect(r.ok && r.detail).toContain('1 model: test-model');
    expect(server.log()).toEqual([expect.objectContaining({ method: 'GET', path: '/v1/models', authorization: 'Bearer sk-t' })]);
  });

  it('refuses to send a key entered for another origin, and says so', async () => {
    server.reset();
    const r = await testConnection(withDefaults({ baseUrl: server.baseUrl, models: { supervisor: 'test-model' }, apiKey: { key: 'sk-t', origin: 'http://127.0.0.1:1' } }));
    expect(r).toMatchObject({ ok: false, problem: expect.stringContaining(`entered for http://127.0.0.1:1, not for ${server.url}`) });
    expect(server.log()).toHaveLength(0);
  });

  it('says when the chosen model is not served', async () => {
    const r = await testConnection(withDefaults({ baseUrl: server.baseUrl, models: { supervisor: 'other' } }));
    expect(r.ok && r.detail).toMatch(/“other” is not among them/);
  });

  it('falls back to a chat call where /models does not exist', async () => {
    server.reset();
    server.setScript({ fallback: { content: 'OK', usage: { prompt_tokens: 7, completion_tokens: 1 } } });
    // A server with no model list: /models answers 404; the chat call (made by LlmClient) reaches the real server.
    const r = await testConnection(withDefaults({ baseUrl: server.baseUrl, models: { supervisor: 'test-model' } }), async () => new Response('', { status: 404 }));
    expect(r).toMatchObject({ ok: true, via: 'chat' });
    expect(r.ok && r.detail).toContain('answered “OK” (8 tokens)');
  });

  it('reports an unreachable server with the CORS hint, and a refused key plainly', async () => {
    const down = await testConnection(withDefaults({ baseUrl: 'http://127.0.0.1:9/v1', models: {} }));
    expect(down).toMatchObject({ ok: false, hint: expect.stringContaining('CORS') });
    const refused = await testConnection(withDefaults({ baseUrl: server.baseUrl, models: {} }), async () => new Response('no', { status: 401 }));
    expect(refused).toMatchObject({ ok: false, problem: expect.stringContaining('check the API key') });
    const bad = await testConnection(withDefaults({ baseUrl: 'ftp://x', models: {} }));
    expect(bad.ok).toBe(false);
  });
});
