// The studio as an OTLP/HTTP destination (issue 19): `POST /v1/traces` on the server `npm start` runs (and on `vite`),
// so an exporter pointed at OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:5173 sends its spans here. Both OTLP/HTTP
// encodings are accepted (application/x-protobuf, decoded by protobufjs with our schema in ./otlp-schema.ts, and
// application/json), gzip or not; answers follow the OTLP/HTTP spec: 200 with an ExportTraceServiceResponse (a
// partialSuccess when some spans had no usable ids), 400 with a Status on bad input, 413 over the size limit, 429
// with Retry-After when an open page cannot keep up, 503 with Retry-After when no page reads and the ring already
// holds as many unread exports as it keeps (taking more would drop some). Requests another site's page makes get 403
// (as ./llm-proxy.ts); with MAS_REPLAY_OTLP_TOKEN set, every request (the exports and the event stream) must carry
// `Authorization: Bearer <token>`.
//
// Received spans go to open pages over Server-Sent Events (`GET /v1/live/events`), one event per export, each with an
// id; a bounded ring keeps the latest exports so a page that reconnects (Last-Event-ID) or reloads (`?after=`) gets
// what it missed. The page merges them into runs with the same importer as files (src/features/otlp-live).
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Connect, Plugin } from 'vite';
import { formatMb, GunzipError, GunzipStream } from '../src/import/gunzip.ts';
import { normaliseId } from '../src/import/formats/otlp.ts';
import { fromStudioOrigin } from './llm-proxy.ts';
import { otlpTraceTypes } from './otlp-schema.ts';

export const OTLP_TRACES_PATH = '/v1/traces';
export const LIVE_EVENTS_PATH = '/v1/live/events';

export interface OtlpReceiverOptions {
  /** A request must carry `Authorization: Bearer <token>` when set (MAS_REPLAY_OTLP_TOKEN). */
  token?: string;
  /** Bytes of a request body as sent (compressed or not); more gets 413. */
  maxBodyBytes?: number;
  /** Bytes of a body after gzip decoding; more gets 413. */
  maxDecodedBytes?: number;
  /** Exports the ring keeps for pages that reconnect or reload, at most this many… */
  ringEvents?: number;
  /** …and at most this many bytes of event data. */
  ringBytes?: number;
  /** A page whose unsent events pass this many bytes makes new exports wait (429 with Retry-After). */
  maxClientBacklogBytes?: number;
  /** Seconds an exporter is asked to wait: while a page is behind (429), while no page reads and the ring is full (503). */
  retryAfterBusySeconds?: number;
  retryAfterUnavailableSeconds?: number;
  /** Seconds between keep-alive comments on the event stream. */
  heartbeatSeconds?: number;
}

const DEFAULTS = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxDecodedBytes: 64 * 1024 * 1024,
  ringEvents: 50_000,
  ringBytes: 128 * 1024 * 1024,
  maxClientBacklogBytes: 16 * 1024 * 1024,
  retryAfterBusySeconds: 2,
  retryAfterUnavailableSeconds: 10,
  heartbeatSeconds: 15,
};

// --- protobuf ----------------------------------------------------------------------------------------------------

/** An ExportTraceServiceRequest in protobuf to its OTLP/JSON shape (ids still base64; normalised by `accept`). */
export function decodeProtobufRequest(bytes: Uint8Array): unknown {
  const { request } = otlpTraceTypes();
  return request.toObject(request.decode(bytes), { longs: String, bytes: String, enums: Number });
}

// --- the ring of received exports --------------------------------------------------------------------------------

export interface LiveEvent {
  /** `<boot>-<n>`: the boot part tells a page that the server restarted (its ids start again). */
  id: string;
  seq: number;
  data: string;
  spans: number;
}

export class LiveRing {
  readonly boot = Date.now().toString(36);
  private events: LiveEvent[] = [];
  private head = 0;
  private bytes = 0;
  private seq = 0;
  evicted = 0;

  constructor(
    private readonly maxEvents: number,
    private readonly maxBytes: number,
  ) {}

  push(data: string, spans: number): LiveEvent {
    const seq = ++this.seq;
    const event: LiveEvent = { id: `${this.boot}-${seq}`, seq, data, spans };
    this.events.push(event);
    this.bytes += data.length;
    while (this.events.length - this.head > this.maxEvents || (this.bytes > this.maxBytes && this.events.length - this.head > 1)) {
      this.bytes -= this.events[this.head].data.length;
      this.head++;
      this.evicted++;
    }
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
    return event;
  }

  /** Events after `lastId` (all kept ones when it is missing or from another boot). */
  since(lastId: string | undefined): LiveEvent[] {
    let after = 0;
    if (lastId) {
      const dash = lastId.lastIndexOf('-');
      if (dash > 0 && lastId.slice(0, dash) === this.boot) after = Number(lastId.slice(dash + 1)) || 0;
    }
    // Sequence numbers are consecutive, so the first event after `after` is found by arithmetic, not a scan.
    const first = this.events.length > this.head ? this.events[this.head].seq : this.seq + 1;
    const from = this.head + Math.max(0, after + 1 - first);
    return this.events.slice(Math.min(from, this.events.length));
  }

  get size(): number {
    return this.events.length - this.head;
  }

  /** Whether keeping `bytes` more would push out an event with a sequence number above `delivered`. */
  wouldEvict(bytes: number, delivered: number): boolean {
    const size = this.size;
    if (size === 0) return false;
    const full = size + 1 > this.maxEvents || this.bytes + bytes > this.maxBytes;
    return full && this.events[this.head].seq > delivered;
  }
}

// --- accepting an export -----------------------------------------------------------------------------------------

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function field(o: Record<string, unknown>, camel: string, snake: string): unknown {
  return o[camel] !== undefined ? o[camel] : o[snake];
}

class BadRequest extends Error {}

const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;

export interface Accepted {
  /** `{resourceSpans}` with every kept span's ids as lowercase hex, snake_case containers renamed. */
  doc: { resourceSpans: unknown[] };
  spans: number;
  rejected: number;
  why?: string;
}

/** Check an export's shape and keep the spans with usable ids; BadRequest when it is not an export at all. */
export function accept(value: unknown): Accepted {
  if (!isObject(value)) throw new BadRequest('the body is not an ExportTraceServiceRequest (expected an object with resourceSpans)');
  const list = field(value, 'resourceSpans', 'resource_spans') ?? [];
  if (!Array.isArray(list)) throw new BadRequest('resourceSpans is not an array');
  let spans = 0;
  let rejected = 0;
  let why: string | undefined;
  const resourceSpans: unknown[] = [];
  list.forEach((rs, i) => {
    if (!isObject(rs)) throw new BadRequest(`resourceSpans[${i}] is not an object`);
    const scopes = field(rs, 'scopeSpans', 'scope_spans') ?? [];
    if (!Array.isArray(scopes)) throw new BadRequest(`resourceSpans[${i}].scopeSpans is not an array`);
    const scopeSpans: unknown[] = [];
    scopes.forEach((ss, j) => {
      if (!isObject(ss)) throw new BadRequest(`resourceSpans[${i}].scopeSpans[${j}] is not an object`);
      const raw = ss.spans ?? [];
      if (!Array.isArray(raw)) throw new BadRequest(`resourceSpans[${i}].scopeSpans[${j}].spans is not an array`);
      const kept: unknown[] = [];
      raw.forEach((span, k) => {
        if (!isObject(span)) throw new BadRequest(`resourceSpans[${i}].scopeSpans[${j}].spans[${k}] is not an object`);
        const traceRaw = field(span, 'traceId', 'trace_id');
        const spanRaw = field(span, 'spanId', 'span_id');
        const parentRaw = field(span, 'parentSpanId', 'parent_span_id');
        const traceId = typeof traceRaw === 'string' ? normaliseId(traceRaw, 16) : '';
        const spanId = typeof spanRaw === 'string' ? normaliseId(spanRaw, 8) : '';
        if (!HEX_TRACE.test(traceId) || /^0+$/.test(traceId) || !HEX_SPAN.test(spanId) || /^0+$/.test(spanId)) {
          rejected++;
          why ??= `span ${k} of scopeSpans[${j}] in resourceSpans[${i}] has no valid traceId (16 bytes) and spanId (8 bytes)`;
          return;
        }
        const out: Record<string, unknown> = { ...span, traceId, spanId };
        delete out.trace_id;
        delete out.span_id;
        delete out.parent_span_id;
        const parent = typeof parentRaw === 'string' && parentRaw !== '' ? normaliseId(parentRaw, 8) : '';
        if (HEX_SPAN.test(parent) && !/^0+$/.test(parent)) out.parentSpanId = parent;
        else delete out.parentSpanId;
        kept.push(out);
        spans++;
      });
      if (kept.length > 0) scopeSpans.push({ scope: ss.scope, spans: kept });
    });
    if (scopeSpans.length > 0) resourceSpans.push({ resource: rs.resource, scopeSpans });
  });
  return { doc: { resourceSpans }, spans, rejected, why };
}

// --- HTTP --------------------------------------------------------------------------------------------------------

type Encoding = 'json' | 'protobuf';

function mediaType(req: IncomingMessage): Encoding | undefined {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  return undefined;
}

function sendStatus(res: ServerResponse, http: number, encoding: Encoding, message: string, headers: Record<string, string> = {}): void {
  // google.rpc.Status codes: 3 INVALID_ARGUMENT, 8 RESOURCE_EXHAUSTED, 14 UNAVAILABLE, 16 UNAUTHENTICATED, 7 PERMISSION_DENIED.
  const code = http === 400 || http === 413 || http === 415 ? 3 : http === 429 ? 8 : http === 401 ? 16 : http === 403 ? 7 : 14;
  let body: Uint8Array | string;
  if (encoding === 'protobuf') {
    const { status } = otlpTraceTypes();
    body = status.encode(status.create({ code, message })).finish();
  } else body = JSON.stringify({ code, message });
  res.writeHead(http, { 'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json', ...headers });
  res.end(body);
}

function sendExportResponse(res: ServerResponse, encoding: Encoding, accepted: Accepted): void {
  const partial = accepted.rejected > 0 ? { rejectedSpans: accepted.rejected, errorMessage: accepted.why ?? '' } : undefined;
  if (encoding === 'protobuf') {
    const { response } = otlpTraceTypes();
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end(response.encode(response.create(partial ? { partialSuccess: partial } : {})).finish());
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(partial ? { partialSuccess: partial } : {}));
  }
}

class TooLarge extends Error {}

/** The request body, gzip-decoded when Content-Encoding says so, within both limits. */
function readBody(req: IncomingMessage, maxBody: number, maxDecoded: number): Promise<Uint8Array> {
  const contentEncoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (contentEncoding !== 'gzip' && contentEncoding !== 'identity') return Promise.reject(new BadRequest(`unsupported Content-Encoding ${contentEncoding}`));
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBody) return Promise.reject(new TooLarge(`the body is over the ${formatMb(maxBody)} limit`));
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    let raw = 0;
    let decoded = 0;
    const gunzip = contentEncoding === 'gzip' ? new GunzipStream({ maxBytes: maxDecoded, onData: (c) => (parts.push(c.slice()), (decoded += c.length)) }) : undefined;
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      if (e instanceof GunzipError) reject(e.kind === 'limit' ? new TooLarge(e.message) : new BadRequest(`gzip: ${e.message}`));
      else reject(e);
    };
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      raw += chunk.length;
      if (raw > maxBody) return fail(new TooLarge(`the body is over the ${formatMb(maxBody)} limit`));
      try {
        if (gunzip) gunzip.push(chunk);
        else parts.push(chunk);
      } catch (e) {
        fail(e);
      }
    });
    req.on('error', fail);
    req.on('end', () => {
      if (failed) return;
      try {
        gunzip?.finish();
      } catch (e) {
        return fail(e);
      }
      const total = gunzip ? decoded : raw;
      const out = new Uint8Array(total);
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      resolve(out);
    });
  });
}

function tokenMatches(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1].trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

export interface OtlpReceiver {
  handle: Connect.NextHandleFunction;
  ring: LiveRing;
  /** Received spans and exports since start (for the load test and the log). */
  stats: { exports: number; spans: number; rejected: number; throttled: number; unavailable: number };
  /** Pages reading the event stream now. */
  readers(): number;
  close(): void;
}

export function createOtlpReceiver(options: OtlpReceiverOptions = {}): OtlpReceiver {
  const o = { ...DEFAULTS, ...options };
  const ring = new LiveRing(o.ringEvents, o.ringBytes);
  const clients = new Set<ServerResponse>();
  const stats = { exports: 0, spans: 0, rejected: 0, throttled: 0, unavailable: 0 };
  const heartbeat = setInterval(() => {
    for (const c of clients) c.write(': keep-alive\n\n');
  }, o.heartbeatSeconds * 1000);
  heartbeat.unref();

  /** The newest event some page has been sent: older ones may leave the ring, newer ones not while no page reads. */
  let delivered = 0;
  const writeEvent = (res: ServerResponse, e: LiveEvent) => {
    if (e.seq > delivered) delivered = e.seq;
    return res.write(`id: ${e.id}\nevent: spans\ndata: ${e.data}\n\n`);
  };

  async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const encoding = mediaType(req) ?? 'json';
    if (req.method !== 'POST') return sendStatus(res, 405, encoding, 'use POST', { allow: 'POST' });
    if (!fromStudioOrigin(req)) return sendStatus(res, 403, encoding, 'the OTLP receiver does not accept requests from other sites’ pages');
    if (o.token && !tokenMatches(req, o.token)) return sendStatus(res, 401, encoding, 'a bearer token is required (MAS_REPLAY_OTLP_TOKEN)', { 'www-authenticate': 'Bearer' });
    if (!mediaType(req)) return sendStatus(res, 415, 'json', 'Content-Type must be application/x-protobuf or application/json');
    for (const c of clients) {
      if (c.writableLength > o.maxClientBacklogBytes) {
        stats.throttled++;
        req.resume();
        return sendStatus(res, 429, encoding, 'an open studio page is behind; retry later', { 'retry-after': String(o.retryAfterBusySeconds) });
      }
    }
    let body: Uint8Array;
    try {
      body = await readBody(req, o.maxBodyBytes, o.maxDecodedBytes);
    } catch (e) {
      req.resume();
      if (e instanceof TooLarge) return sendStatus(res, 413, encoding, e.message, { connection: 'close' });
      if (e instanceof BadRequest) return sendStatus(res, 400, encoding, e.message);
      throw e;
    }
    let accepted: Accepted;
    try {
      let value: unknown;
      if (encoding === 'protobuf') {
        try {
          value = decodeProtobufRequest(body);
        } catch (e) {
          throw new BadRequest(`not an ExportTraceServiceRequest in protobuf: ${e instanceof Error ? e.message : String(e)}`);
        }
      } else {
        try {
          value = body.length === 0 ? {} : JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
        } catch (e) {
          throw new BadRequest(`not JSON: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      accepted = accept(value);
    } catch (e) {
      if (e instanceof BadRequest) return sendStatus(res, 400, encoding, e.message);
      throw e;
    }
    const data = accepted.spans > 0 ? JSON.stringify(accepted.doc) : '';
    if (accepted.spans > 0 && clients.size === 0 && ring.wouldEvict(data.length, delivered)) {
      // No page is reading and the ring is full of exports no page has seen: keeping this one would drop one of them.
      stats.unavailable++;
      return sendStatus(res, 503, encoding, 'no studio page is reading and the studio holds as many unread exports as it keeps; retry later', {
        'retry-after': String(o.retryAfterUnavailableSeconds),
      });
    }
    stats.exports++;
    stats.spans += accepted.spans;
    stats.rejected += accepted.rejected;
    if (accepted.spans > 0) {
      const event = ring.push(data, accepted.spans);
      for (const c of clients) writeEvent(c, event);
    }
    sendExportResponse(res, encoding, accepted);
  }

  function stream(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    if (!fromStudioOrigin(req)) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end('The live stream answers only the studio’s own page.\n');
      return;
    }
    if (o.token && !tokenMatches(req, o.token)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' }).end('The live stream needs the bearer token (MAS_REPLAY_OTLP_TOKEN): open the link npm start printed.\n');
      return;
    }
    const last = (req.headers['last-event-id'] as string | undefined) ?? url.searchParams.get('after') ?? undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ boot: ring.boot, evicted: ring.evicted })}\n\n`);
    for (const e of ring.since(last || undefined)) writeEvent(res, e);
    clients.add(res);
    const drop = () => clients.delete(res);
    req.on('close', drop);
    res.on('error', drop);
  }

  const handle: Connect.NextHandleFunction = (req, res, next) => {
    const url = new URL(req.url ?? '/', 'http://studio');
    if (url.pathname === OTLP_TRACES_PATH) {
      receive(req, res).catch((e) => {
        if (!res.headersSent) sendStatus(res, 500, 'json', e instanceof Error ? e.message : String(e));
        else res.end();
      });
      return;
    }
    if (url.pathname === LIVE_EVENTS_PATH) return stream(req, res, url);
    next();
  };

  return {
    handle,
    ring,
    stats,
    readers: () => clients.size,
    close() {
      clearInterval(heartbeat);
      for (const c of clients) c.end();
      clients.clear();
    },
  };
}

/** The receiver on both of the studio's servers (`vite` and `vite preview`, which `npm start` runs). */
export function otlpReceiver(options: OtlpReceiverOptions = { token: process.env.MAS_REPLAY_OTLP_TOKEN || undefined }): Plugin {
  let receiver: OtlpReceiver | undefined;
  const get = () => (receiver ??= createOtlpReceiver(options));
  return {
    name: 'mas-replay-otlp-receiver',
    configureServer: (server) => {
      server.middlewares.use(get().handle);
      server.httpServer?.on('close', () => receiver?.close());
    },
    configurePreviewServer: (server) => {
      server.middlewares.use(get().handle);
      server.httpServer?.on('close', () => receiver?.close());
    },
  };
}
