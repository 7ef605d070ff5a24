// The OTLP/HTTP receiver over real HTTP: its middleware on a node http server on 127.0.0.1, spoken to with fetch.
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeProtobufRequest, LiveRing, type OtlpReceiver, type OtlpReceiverOptions } from './otlp-receiver.ts';
import { startReceiver, type RunningReceiver } from './otlp-test-receiver.ts';
import { otlpTraceTypes } from './otlp-schema.ts';

const TRACE = '5b8efff798038103d269b633813fc60c';

function span(spanId: string, extra: Record<string, unknown> = {}) {
  return { traceId: TRACE, spanId, name: `span ${spanId}`, startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000', ...extra };
}

function exportOf(spans: unknown[]) {
  return { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'test' } }] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] };
}

let running: RunningReceiver | undefined;
let receiver: OtlpReceiver | undefined;

async function start(options: OtlpReceiverOptions = {}): Promise<string> {
  running = await startReceiver(options);
  receiver = running.receiver;
  return running.origin;
}

afterEach(async () => {
  await running?.stop();
  running = undefined;
  receiver = undefined;
});

function post(origin: string, body: BodyInit, headers: Record<string, string> = {}) {
  return fetch(`${origin}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

describe('POST /v1/traces', () => {
  it('accepts OTLP/JSON and puts the spans in the ring with hex ids', async () => {
    const origin = await start();
    const res = await post(origin, JSON.stringify(exportOf([span('eee19b7ec3c1b174'), span('eee19b7ec3c1b173', { parentSpanId: 'eee19b7ec3c1b174' })])));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({});
    expect(receiver!.stats.spans).toBe(2);
    const [event] = receiver!.ring.since(undefined);
    const doc = JSON.parse(event.data);
    const spans = doc.resourceSpans[0].scopeSpans[0].spans;
    expect(spans.map((s: { spanId: string }) => s.spanId)).toEqual(['eee19b7ec3c1b174', 'eee19b7ec3c1b173']);
    expect(spans[1].parentSpanId).toBe('eee19b7ec3c1b174');
  });

  it('accepts OTLP/protobuf, gzip or not, and answers in protobuf', async () => {
    const origin = await start();
    const T = otlpTraceTypes().request;
    const message = T.fromObject({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from('0102030405060708', 'hex'), name: 'agent run', startTimeUnixNano: '1700000000000000000', attributes: [{ key: 'n', value: { intValue: 7 } }] }] }] }],
    });
    const bytes = T.encode(message).finish();
    for (const [body, headers] of [
      [bytes, {}],
      [gzipSync(bytes), { 'content-encoding': 'gzip' }],
    ] as const) {
      const res = await post(origin, body as Uint8Array<ArrayBuffer>, { 'content-type': 'application/x-protobuf', ...headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/x-protobuf');
      expect((await res.arrayBuffer()).byteLength).toBe(0); // an empty ExportTraceServiceResponse: full success
    }
    const events = receiver!.ring.since(undefined);
    expect(events).toHaveLength(2);
    const s = JSON.parse(events[1].data).resourceSpans[0].scopeSpans[0].spans[0];
    expect(s).toMatchObject({ traceId: TRACE, spanId: '0102030405060708', name: 'agent run', attributes: [{ key: 'n', value: { intValue: '7' } }] });
    expect(decodeProtobufRequest(bytes)).toMatchObject({ resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'agent run' }] }] }] });
  });

  it('answers partialSuccess for spans without usable ids', async () => {
    const origin = await start();
    const res = await post(origin, JSON.stringify(exportOf([span('eee19b7ec3c1b174'), { name: 'no ids' }])));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.partialSuccess.rejectedSpans).toBe(1);
    expect(body.partialSuccess.errorMessage).toMatch(/traceId/);
  });

  it('answers 400 with a Status on bad input, in the request’s encoding', async () => {
    const origin = await start();
    for (const body of ['{not json', '[1,2]', JSON.stringify({ resourceSpans: 3 })]) {
      const res = await post(origin, body);
      expect(res.status).toBe(400);
      const status = await res.json();
      expect(status.code).toBe(3);
      expect(status.message.length).toBeGreaterThan(0);
    }
    const res = await post(origin, new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f]), { 'content-type': 'application/x-protobuf' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const gz = await post(origin, new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0]), { 'content-encoding': 'gzip' });
    expect(gz.status).toBe(400);
    expect((await gz.json()).message).toMatch(/gzip/);
    expect(receiver!.ring.size).toBe(0);
  });

  it('answers 413 over the body limit and over the decoded limit (a gzip bomb stops early)', async () => {
    const origin = await start({ maxBodyBytes: 16_384, maxDecodedBytes: 64 * 1024 });
    const big = JSON.stringify(exportOf([span('eee19b7ec3c1b174', { name: 'x'.repeat(20_000) })]));
    expect((await post(origin, big)).status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 32));
    expect(bomb.length).toBeLessThan(16_384);
    const res = await post(origin, bomb, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect((await res.json()).message).toMatch(/limit/);
  });

  it('answers 429 with Retry-After while an open page cannot keep up', async () => {
    const origin = await start({ maxClientBacklogBytes: -1 });
    const controller = new AbortController();
    const stream = await fetch(`${origin}/v1/live/events`, { signal: controller.signal });
    expect(stream.status).toBe(200);
    const res = await post(origin, JSON.stringify(exportOf([span('eee19b7ec3c1b174')])));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect((await res.json()).code).toBe(8);
    controller.abort();
  });

  it('answers 503 with Retry-After while no page reads and the ring is full of unread exports, and takes them again once a page has read', async () => {
    const origin = await start({ ringEvents: 2, retryAfterUnavailableSeconds: 7 });
    const body = (id: string) => JSON.stringify(exportOf([span(id)]));
    expect((await post(origin, body('eee19b7ec3c1b171'))).status).toBe(200);
    expect((await post(origin, body('eee19b7ec3c1b172'))).status).toBe(200);
    const refused = await post(origin, body('eee19b7ec3c1b173'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect((await refused.json()).code).toBe(14);
    expect(receiver!.ring.since(undefined).map((e) => JSON.parse(e.data).resourceSpans[0].scopeSpans[0].spans[0].spanId)).toEqual(['eee19b7ec3c1b171', 'eee19b7ec3c1b172']);
    // A page reads both; the exporter's retry is taken (the oldest, already read, leaves the ring).
    expect(await readEvents(await fetch(`${origin}/v1/live/events`), 2)).toHaveLength(2);
    await expect.poll(() => receiver!.readers()).toBe(0);
    expect((await post(origin, body('eee19b7ec3c1b173'))).status).toBe(200);
    expect(receiver!.stats).toMatchObject({ unavailable: 1, spans: 3 });
    // The page has gone: one more fits (the last export it read leaves), the next would push out an unread one.
    expect((await post(origin, body('eee19b7ec3c1b175'))).status).toBe(200);
    // Protobuf exporters get the Status in protobuf.
    const proto = await post(origin, otlpTraceTypes().request.encode(otlpTraceTypes().request.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from('0102030405060708', 'hex'), name: 'x' }] }] }] })).finish() as Uint8Array<ArrayBuffer>, { 'content-type': 'application/x-protobuf' });
    expect(proto.status).toBe(503);
    expect(otlpTraceTypes().status.decode(new Uint8Array(await proto.arrayBuffer()))).toMatchObject({ code: 14 });
  });

  it('event stream: needs the bearer token when one is set, and answers only the studio’s own pages', async () => {
    const origin = await start({ token: 's3cret' });
    expect((await post(origin, JSON.stringify(exportOf([span('eee19b7ec3c1b174')])), { authorization: 'Bearer s3cret' })).status).toBe(200);
    const without = await fetch(`${origin}/v1/live/events`);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${origin}/v1/live/events`, { headers: { authorization: 'Bearer wrong!' } })).status).toBe(401);
    expect((await fetch(`${origin}/v1/live/events`, { headers: { authorization: 'Bearer s3cret', origin: 'https://evil.example' } })).status).toBe(403);
    expect((await fetch(`${origin}/v1/live/events`, { headers: { authorization: 'Bearer s3cret', 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    const ok = await fetch(`${origin}/v1/live/events`, { headers: { authorization: 'Bearer s3cret', origin } });
    expect(ok.status).toBe(200);
    expect(await readEvents(ok, 1)).toHaveLength(1);
  });

  it('requires the bearer token when one is set', async () => {
    const origin = await start({ token: 's3cret' });
    const body = JSON.stringify(exportOf([span('eee19b7ec3c1b174')]));
    expect((await post(origin, body)).status).toBe(401);
    expect((await post(origin, body, { authorization: 'Bearer wrong!' })).status).toBe(401);
    expect((await post(origin, body, { authorization: 'Bearer s3cret' })).status).toBe(200);
  });

  it('refuses requests another site’s page makes, and other media types', async () => {
    const origin = await start();
    const body = JSON.stringify(exportOf([span('eee19b7ec3c1b174')]));
    expect((await post(origin, body, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(origin, body, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(origin, body, { origin })).status).toBe(200);
    expect((await post(origin, body, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await fetch(`${origin}/v1/live/events`, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect(receiver!.ring.size).toBe(1);
  });
});

/** Read SSE events from a stream until `count` `spans` events have arrived. */
async function readEvents(res: Response, count: number): Promise<Array<{ id: string; data: string }>> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const out: Array<{ id: string; data: string }> = [];
  while (out.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const lines = new Map(block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)] as const));
      if (lines.get('event') === 'spans') out.push({ id: lines.get('id')!, data: lines.get('data')! });
    }
  }
  await reader.cancel();
  return out;
}

describe('GET /v1/live/events', () => {
  it('streams exports with ids and resumes after Last-Event-ID or ?after=', async () => {
    const origin = await start();
    for (const id of ['eee19b7ec3c1b171', 'eee19b7ec3c1b172', 'eee19b7ec3c1b173']) await post(origin, JSON.stringify(exportOf([span(id)])));
    const all = await readEvents(await fetch(`${origin}/v1/live/events`), 3);
    expect(all).toHaveLength(3);
    const resumed = await readEvents(await fetch(`${origin}/v1/live/events`, { headers: { 'last-event-id': all[0].id } }), 2);
    expect(resumed.map((e) => e.id)).toEqual([all[1].id, all[2].id]);
    const live = fetch(`${origin}/v1/live/events?after=${encodeURIComponent(all[2].id)}`).then((r) => readEvents(r, 1));
    await new Promise((r) => setTimeout(r, 50));
    await post(origin, JSON.stringify(exportOf([span('eee19b7ec3c1b175')])));
    const [next] = await live;
    expect(JSON.parse(next.data).resourceSpans[0].scopeSpans[0].spans[0].spanId).toBe('eee19b7ec3c1b175');
  });
});

describe('LiveRing', () => {
  it('keeps the newest events within its bounds and ignores ids from another boot', () => {
    const ring = new LiveRing(3, 1_000_000);
    for (let i = 1; i <= 5; i++) ring.push(`{"n":${i}}`, 1);
    expect(ring.size).toBe(3);
    expect(ring.since(undefined).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(ring.since(`${ring.boot}-4`).map((e) => e.seq)).toEqual([5]);
    expect(ring.since(`${ring.boot}-1`).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(ring.since('older-4').map((e) => e.seq)).toEqual([3, 4, 5]);
    const small = new LiveRing(100, 20);
    for (let i = 0; i < 5; i++) small.push('0123456789', 1);
    expect(small.size).toBe(2);
  });
});
