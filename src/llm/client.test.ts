// The client against the project's test server over real HTTP (no mocked fetch).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-server/server.ts';
import { TokenBudget } from './budget.ts';
import { LlmClient, parseRetryAfter, sleepFor } from './client.ts';
import { BudgetExceeded, Cancelled, CassetteMiss, HttpError, KeyOriginMismatch, MalformedResponse, NetworkError, TimeoutError } from './errors.ts';
import { CallRecorder, Cassette } from './recorder.ts';
import { settingsWithoutKey, withDefaults, type LlmSettings } from './settings.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function settings(over: Partial<LlmSettings> = {}): LlmSettings {
  return withDefaults({
    baseUrl: server.baseUrl,
    models: { supervisor: 'sup-model', embeddings: 'emb-model' },
    retryBaseMs: 10,
    retryMaxMs: 3000,
    retries: 3,
    timeoutMs: 5000,
    ...over,
  });
}

const ask = (client: LlmClient, content = 'hello there', signal?: AbortSignal) =>
  client.chat({ role: 'supervisor', messages: [{ role: 'user', content }] }, signal);

describe('LlmClient over HTTP', () => {
  it('returns the text and the usage the server reported, and records the call without the key', async () => {
    server.setScript({ queue: [{ content: 'hi back', usage: { prompt_tokens: 11, completion_tokens: 2 } }] });
    const recorder = new CallRecorder();
    const client = new LlmClient(settings({ apiKey: { key: 'sk-secret', origin: server.url } }), { recorder });
    const r = await ask(client);
    expect(r.text).toBe('hi back');
    expect(r.usage).toEqual({ input: 11, output: 2, total: 13 });
    expect(recorder.records).toHaveLength(1);
    expect(recorder.records[0].model).toBe('sup-model');
    expect(JSON.stringify(recorder.records)).not.toContain('sk-secret');
    expect(server.log()[0].authorization).toBe('Bearer sk-secret');
    expect((server.log()[0].body as { response_format?: unknown }).response_format).toBeUndefined();
  });

  it('never sends a key to an origin other than the one it was entered for (not even one port away)', async () => {
    server.setScript({ fallback: { content: 'should not be asked' } });
    const other = new URL(server.url);
    other.port = String(Number(other.port) + 1);
    for (const origin of [other.origin, server.url.replace('127.0.0.1', 'localhost'), server.url.replace('http:', 'https:'), '']) {
      const client = new LlmClient(settings({ apiKey: { key: 'sk-bound', origin }, retries: 3 }));
      const err = await ask(client).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KeyOriginMismatch);
      expect((err as Error).message).toContain(server.url);
    }
    await expect(new LlmClient(settings({ apiKey: { key: 'sk-bound', origin: other.origin } })).embed(['x'])).rejects.toBeInstanceOf(KeyOriginMismatch);
    // Nothing reached the server: the request was refused before it left, and not retried.
    expect(server.log()).toHaveLength(0);
    // Without a key, the same request goes out (the guard is about the key, not the endpoint).
    await ask(new LlmClient(settings()));
    expect(server.log().map((e) => [e.path, e.authorization])).toEqual([['/v1/chat/completions', undefined]]);
  });

  it('counts tokens with a tokenizer and marks them estimated when the server leaves usage out', async () => {
    server.setScript({ queue: [{ content: 'four words right here', usage: null }] });
    const r = await ask(new LlmClient(settings()), 'count these words please');
    expect(r.usage.estimated).toBe(true);
    expect(r.usage.input).toBeGreaterThan(2);
    expect(r.usage.output).toBeGreaterThan(2);
  });

  it('asks for JSON mode and drops it when the server rejects it', async () => {
    server.setScript({ rejectJsonMode: true, fallback: { content: '{"a":1}' } });
    const client = new LlmClient(settings());
    const r = await client.chat({ role: 'supervisor', messages: [{ role: 'user', content: 'x' }], json: true });
    expect(r.text).toBe('{"a":1}');
    const bodies = server.log().map((e) => e.body as { response_format?: unknown });
    expect(bodies).toHaveLength(2);
    expect(bodies[0].response_format).toEqual({ type: 'json_object' });
    expect(bodies[1].response_format).toBeUndefined();
    await client.chat({ role: 'supervisor', messages: [{ role: 'user', content: 'y' }], json: true });
    expect(server.log()).toHaveLength(3);
  });

  it('retries a 429 after the Retry-After seconds and then succeeds', async () => {
    server.setScript({ queue: [{ status: 429, retryAfter: 1 }, { content: 'finally' }] });
    // The wait the client asks for is recorded (and not slept): the header's second, not the 10 ms backoff.
    const waits: number[] = [];
    const r = await ask(new LlmClient(settings(), { sleep: async (ms) => void waits.push(ms) }));
    expect(r.text).toBe('finally');
    expect(waits).toEqual([1000]);
    expect(server.log().map((e) => e.status)).toEqual([429, 200]);
  });

  it('reads Retry-After given as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('gives up cleanly on 500 forever after the configured retries, recording the failure', async () => {
    server.setScript({ fallback: { status: 500 } });
    const recorder = new CallRecorder();
    const err = await ask(new LlmClient(settings({ retries: 2 }), { recorder })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(500);
    expect(server.log()).toHaveLength(3);
    expect(recorder.records).toHaveLength(1);
    expect(recorder.records[0].error).toMatch(/HTTP 500/);
  });

  it('does not retry a 400 (bad request is not transient)', async () => {
    server.setScript({ fallback: { status: 400 } });
    await expect(ask(new LlmClient(settings()))).rejects.toBeInstanceOf(HttpError);
    expect(server.log()).toHaveLength(1);
  });

  it('retries a malformed body, and reports MalformedResponse when it persists', async () => {
    server.setScript({ queue: [{ fault: 'malformed' }, { content: 'good' }] });
    expect((await ask(new LlmClient(settings()))).text).toBe('good');
    server.reset();
    server.setScript({ fallback: { fault: 'malformed' } });
    await expect(ask(new LlmClient(settings({ retries: 1 })))).rejects.toBeInstanceOf(MalformedResponse);
  });

  it('treats a truncated body and a dropped connection as network errors and retries them', async () => {
    server.setScript({ queue: [{ fault: 'truncated' }, { fault: 'drop' }, { content: 'survived' }] });
    expect((await ask(new LlmClient(settings()))).text).toBe('survived');
    server.reset();
    server.setScript({ fallback: { fault: 'drop' } });
    await expect(ask(new LlmClient(settings({ retries: 0 })))).rejects.toBeInstanceOf(NetworkError);
  });

  it('times out a slow answer', async () => {
    // The answer would come after 1.5 s and succeed: a TimeoutError means the client gave up before it, each time.
    server.setScript({ fallback: { delayMs: 1500 } });
    await expect(ask(new LlmClient(settings({ timeoutMs: 200, retries: 1 })))).rejects.toBeInstanceOf(TimeoutError);
    expect(server.log()).toHaveLength(2);
  });

  it('cancels a call in flight and during a backoff wait', async () => {
    server.setScript({ fallback: { delayMs: 2000 } });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    await expect(ask(new LlmClient(settings()), 'x', ctl.signal)).rejects.toBeInstanceOf(Cancelled);
    server.reset();
    server.setScript({ fallback: { status: 429, retryAfter: 30 } });
    // Cancelled in the middle of the 30 s backoff: the call ends at once (a turn of the event loop), not after it.
    const ctl2 = new AbortController();
    const waits: number[] = [];
    const sleep = (ms: number, signal?: AbortSignal) => {
      waits.push(ms);
      const wait = sleepFor(ms, signal);
      ctl2.abort();
      return wait;
    };
    let settled = false;
    const call = ask(new LlmClient(settings({ retryMaxMs: 30_000 }), { sleep }), 'x', ctl2.signal).finally(() => {
      settled = true;
    });
    call.catch(() => undefined);
    await expect.poll(() => waits).toEqual([30_000]);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(true);
    await expect(call).rejects.toBeInstanceOf(Cancelled);
    expect(server.log()).toHaveLength(1);
  });

  it('keeps at most `concurrency` calls in flight', async () => {
    server.setScript({ fallback: { delayMs: 150, content: 'x' } });
    const client = new LlmClient(settings({ concurrency: 2 }));
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => ask(client, `q${i}`)));
    expect(results).toHaveLength(5);
    expect(server.maxInFlight()).toBe(2);
  });

  it('clients made for other runs share the concurrency limit and the recorder but not the budget', async () => {
    server.setScript({ fallback: { delayMs: 150, content: 'x', usage: { prompt_tokens: 30, completion_tokens: 0 } } });
    const base = new LlmClient(settings({ concurrency: 2, tokenBudgetPerRun: 1000 }));
    const runs = [base.forRun(), base.forRun(), base.forRun()];
    await Promise.all(runs.flatMap((c, i) => [ask(c, `a${i}`), ask(c, `b${i}`)]));
    expect(server.maxInFlight()).toBe(2);
    expect(base.recorder.records).toHaveLength(6);
    expect(runs.map((c) => c.tokensSpent)).toEqual([60, 60, 60]);
  });

  it('refuses calls once the per-run budget is spent', async () => {
    server.setScript({ fallback: { content: 'x', usage: { prompt_tokens: 60, completion_tokens: 10 } } });
    const budget = new TokenBudget(100);
    const client = new LlmClient(settings(), { budget });
    await ask(client);
    expect(budget.used).toBe(70);
    await ask(client);
    const err = await ask(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceeded);
    expect(server.log()).toHaveLength(2);
  });

  it('takes the per-run budget from the settings, and never exports the key', async () => {
    server.setScript({ fallback: { content: 'x', usage: { prompt_tokens: 60, completion_tokens: 10 } } });
    const client = new LlmClient(settings({ tokenBudgetPerRun: 50, apiKey: { key: 'sk-x', origin: server.url } }));
    await ask(client);
    expect(client.tokensSpent).toBe(70);
    await expect(ask(client)).rejects.toBeInstanceOf(BudgetExceeded);
    expect(JSON.stringify(settingsWithoutKey(client.settings))).not.toContain('sk-x');
  });

  it('replays a session offline from its cassette with the same answers, usage and call ids', async () => {
    server.setScript({ rules: [{ match: { contains: 'alpha' }, content: 'A' }, { match: { contains: 'beta' }, content: 'B' }] });
    const recorder = new CallRecorder();
    const live = new LlmClient(settings(), { recorder });
    const first = [await ask(live, 'alpha'), await ask(live, 'beta'), await ask(live, 'alpha')];
    const emb = await live.embed(['cats and dogs']);
    await server.close();
    try {
      const replayRecorder = new CallRecorder();
      const offline = new LlmClient(settings(), { cassette: new Cassette(recorder.records), recorder: replayRecorder });
      const again = [await ask(offline, 'alpha'), await ask(offline, 'beta'), await ask(offline, 'alpha')];
      expect(again.map((r) => r.text)).toEqual(first.map((r) => r.text));
      expect(again.map((r) => r.record.id)).toEqual(first.map((r) => r.record.id));
      expect(again.every((r) => r.replayed)).toBe(true);
      expect((await offline.embed(['cats and dogs'])).vectors).toEqual(emb.vectors);
      await expect(ask(offline, 'gamma')).rejects.toBeInstanceOf(CassetteMiss);
      expect(replayRecorder.records.map((r) => r.id)).toEqual(recorder.records.map((r) => r.id));
    } finally {
      server = await startTestServer();
    }
  });

  it('embeds deterministically: the same text gives the same vector, related texts are closer', async () => {
    const client = new LlmClient(settings());
    const { vectors } = await client.embed(['the cat sat on the mat', 'the cat sat on a mat', 'quarterly tax filing']);
    const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
    expect(dot(vectors[0], vectors[1])).toBeGreaterThan(dot(vectors[0], vectors[2]));
    const again = await client.embed(['the cat sat on the mat']);
    expect(again.vectors[0]).toEqual(vectors[0]);
  });
});

describe('test server', () => {
  it('answers CORS preflight, lists models, and is scriptable over its admin API', async () => {
    const pre = await fetch(`${server.baseUrl}/chat/completions`, { method: 'OPTIONS' });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    const models = (await (await fetch(`${server.baseUrl}/models`)).json()) as { data: { id: string }[] };
    expect(models.data[0].id).toBe('test-model');
    await fetch(`${server.url}/__script`, { method: 'POST', body: JSON.stringify({ queue: [{ content: 'scripted' }] }) });
    expect((await ask(new LlmClient(settings()))).text).toBe('scripted');
    const log = (await (await fetch(`${server.url}/__log`)).json()) as { entries: { path: string }[] };
    expect(log.entries.map((e) => e.path)).toEqual(['/v1/models', '/v1/chat/completions']);
    await fetch(`${server.url}/__reset`, { method: 'POST' });
    expect(server.log()).toHaveLength(0);
  });
});
