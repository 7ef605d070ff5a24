// A small OpenAI-compatible server for tests and e2e runs: scripted answers, faults on demand, deterministic
// embeddings and a request log. Loopback only and bounded (body size, log length, delays).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'malformed' | 'truncated' | 'drop' | 'status';

export interface ScriptedAnswer {
  /** Rules only: apply when every given condition holds. */
  match?: {
    /** Substring of the concatenated message contents (or embedding inputs). */
    contains?: string;
    model?: string;
    endpoint?: 'chat' | 'embeddings';
  };
  /** How often this rule may answer; queue entries answer once. Unlimited when absent. */
  times?: number;
  /** The assistant message's content. */
  content?: string;
  /** Answer with this share (0..1) of the last message's content instead, like a model asked to shorten a text. */
  echo?: number;
  /** HTTP status (with fault 'status' or any non-200). */
  status?: number;
  /** Seconds (number) or an HTTP date (string), sent as Retry-After. */
  retryAfter?: number | string;
  fault?: Fault;
  delayMs?: number;
  /** `null` leaves usage out of the answer; absent counts words. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Reject `response_format` with 400, like servers without JSON mode. */
  rejectJsonMode?: boolean;
}

export interface Script {
  queue?: ScriptedAnswer[];
  rules?: ScriptedAnswer[];
  /** Answer when neither the queue nor a rule applies. */
  fallback?: ScriptedAnswer;
  /** Refuse every request carrying `response_format`. */
  rejectJsonMode?: boolean;
  embeddingDim?: number;
  /**
   * How served usage is counted: `words` (default) counts words; `o200k` counts with gpt-tokenizer (o200k_base) over
   * the concatenated message contents (or embedding inputs) and the answer, as a real OpenAI-compatible server would.
   */
  tokens?: 'words' | 'o200k';
}

export interface LogEntry {
  seq: number;
  method: string;
  path: string;
  body: unknown;
  status: number;
  fault?: Fault;
  authorization?: string;
  /** The usage the answer carried (absent when it carried none or the request failed). */
  usage?: { prompt_tokens: number; completion_tokens: number };
}

export interface TestServer {
  url: string;
  /** `${url}/v1`, the base URL a client uses. */
  baseUrl: string;
  port: number;
  setScript(script: Script): void;
  reset(): void;
  log(): LogEntry[];
  /** Most requests ever handled at once (for concurrency-limit tests). */
  maxInFlight(): number;
  close(): Promise<void>;
}

const MAX_BODY = 8 * 1024 * 1024;
const MAX_LOG = 2000;
const MAX_DELAY_MS = 60_000;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** Hashed bag of words, L2-normalised: texts sharing words get similar vectors, and the same text the same vector. */
export function hashedEmbedding(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const w of words(text)) {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    v[(h >>> 0) % dim] += (h & 0x80000000) === 0 ? 1 : -1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

let o200k: Promise<(text: string) => number> | undefined;
const loadO200k = () => (o200k ??= import('gpt-tokenizer').then((m) => (text: string) => (text ? m.countTokens(text) : 0)));

function messagesText(body: Record<string, unknown>): string {
  const msgs = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
  return msgs.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''))).join('\n');
}

function isLoopback(addr: string | undefined): boolean {
  return addr === '127.0.0.1' || addr === '::1' || addr === '::ffff:127.0.0.1';
}

/** What the server served over these log entries: requests answered with usage, and the token sums. */
export function servedUsage(entries: readonly LogEntry[], endpoint?: 'chat' | 'embeddings'): { calls: number; input: number; output: number; total: number } {
  const out = { calls: 0, input: 0, output: 0, total: 0 };
  for (const e of entries) {
    if (!e.usage) continue;
    if (endpoint === 'chat' && e.path !== '/v1/chat/completions') continue;
    if (endpoint === 'embeddings' && e.path !== '/v1/embeddings') continue;
    out.calls++;
    out.input += e.usage.prompt_tokens;
    out.output += e.usage.completion_tokens;
  }
  out.total = out.input + out.output;
  return out;
}

export async function startTestServer(options: { port?: number; script?: Script } = {}): Promise<TestServer> {
  let script: Script = {};
  let queue: ScriptedAnswer[] = [];
  let ruleUses: number[] = [];
  let log: LogEntry[] = [];
  let seq = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  const setScript = (s: Script) => {
    script = s;
    queue = [...(s.queue ?? [])];
    ruleUses = (s.rules ?? []).map(() => 0);
  };
  const reset = () => {
    setScript({});
    log = [];
    seq = 0;
    maxInFlight = 0;
  };
  setScript(options.script ?? {});

  const pick = (endpoint: 'chat' | 'embeddings', body: Record<string, unknown>, text: string): ScriptedAnswer | undefined => {
    const qi = queue.findIndex((a) => !a.match?.endpoint || a.match.endpoint === endpoint);
    if (qi !== -1) return queue.splice(qi, 1)[0];
    const rules = script.rules ?? [];
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i];
      const m = r.match ?? {};
      if (m.endpoint && m.endpoint !== endpoint) continue;
      if (m.model && m.model !== body.model) continue;
      if (m.contains && !text.includes(m.contains)) continue;
      if (r.times !== undefined && ruleUses[i] >= r.times) continue;
      ruleUses[i]++;
      return r;
    }
    return script.fallback;
  };

  const send = (res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, entry: LogEntry, body: Record<string, unknown>) => {
    const path = entry.path;
    if (req.method === 'GET' && path === '/__log') return send(res, 200, { entries: log, maxInFlight });
    if (req.method === 'POST' && path === '/__script') {
      setScript(body as Script);
      return send(res, 200, { ok: true });
    }
    if (req.method === 'POST' && path === '/__reset') {
      reset();
      return send(res, 200, { ok: true });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return send(res, 200, { object: 'list', data: [{ id: 'test-model', object: 'model', owned_by: 'test-server' }] });
    }
    const endpoint = path === '/v1/chat/completions' ? 'chat' : path === '/v1/embeddings' ? 'embeddings' : undefined;
    if (req.method !== 'POST' || !endpoint) return send(res, 404, { error: { message: `no route ${req.method} ${path}` } });

    const inputs = endpoint === 'embeddings' ? (Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? '')]) : [];
    const text = endpoint === 'chat' ? messagesText(body) : inputs.join('\n');
    const answer = pick(endpoint, body, text) ?? {};
    if (answer.delayMs) {
      // A client that hangs up during the delay ends the wait, so abandoned requests do not count as in flight.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(MAX_DELAY_MS, answer.delayMs ?? 0));
        res.once('close', done);
        function done() {
          clearTimeout(timer);
          resolve();
        }
      });
    }
    if (req.socket.destroyed || res.writableEnded) return;

    if ((script.rejectJsonMode || answer.rejectJsonMode) && body.response_format !== undefined) {
      entry.status = 400;
      return send(res, 400, { error: { message: 'response_format is not supported by this server', type: 'invalid_request_error' } });
    }
    if (answer.fault === 'drop') {
      entry.fault = 'drop';
      req.socket.destroy();
      return;
    }
    const status = answer.status ?? (answer.fault === 'status' ? 500 : 200);
    if (status !== 200) {
      entry.status = status;
      const headers: Record<string, string> = {};
      if (answer.retryAfter !== undefined) headers['retry-after'] = String(answer.retryAfter);
      return send(res, status, { error: { message: `scripted ${status}` } }, headers);
    }
    const count = script.tokens === 'o200k' ? await loadO200k() : (t: string) => words(t).length;
    const promptTokens = count(text);
    let payload: Record<string, unknown>;
    if (endpoint === 'chat') {
      const msgs = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
      const last = msgs.length > 0 && typeof msgs[msgs.length - 1].content === 'string' ? (msgs[msgs.length - 1].content as string) : '';
      const content = answer.echo !== undefined ? last.slice(0, Math.round(last.length * Math.min(1, Math.max(0, answer.echo)))) : (answer.content ?? 'ok');
      payload = {
        id: `chatcmpl-${entry.seq}`,
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      };
      if (answer.usage !== null) {
        const u = answer.usage ?? { prompt_tokens: promptTokens, completion_tokens: count(content) };
        payload.usage = { ...u, total_tokens: u.prompt_tokens + u.completion_tokens };
        entry.usage = { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens };
      }
    } else {
      const dim = script.embeddingDim ?? 64;
      payload = {
        object: 'list',
        model: body.model,
        data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: hashedEmbedding(t, dim) })),
      };
      if (answer.usage !== null) {
        const u = answer.usage ?? { prompt_tokens: promptTokens, completion_tokens: 0 };
        payload.usage = { prompt_tokens: u.prompt_tokens, total_tokens: u.prompt_tokens + u.completion_tokens };
        entry.usage = { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens };
      }
    }
    const full = JSON.stringify(payload);
    if (answer.fault === 'malformed') {
      entry.fault = 'malformed';
      delete entry.usage;
      const broken = full.slice(0, Math.floor(full.length / 2));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(broken) });
      return res.end(broken);
    }
    if (answer.fault === 'truncated') {
      // Promise the full length, send half and hang up: the client sees the connection end mid-body.
      entry.fault = 'truncated';
      delete entry.usage;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(full) });
      res.write(full.slice(0, Math.floor(full.length / 2)));
      setTimeout(() => req.socket.destroy(), 10);
      return;
    }
    send(res, 200, payload);
  };

  const server: Server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', 'authorization, content-type');
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    res.setHeader('access-control-expose-headers', 'retry-after');
    if (!isLoopback(req.socket.remoteAddress)) {
      res.writeHead(403).end();
      return;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return;
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      let body: Record<string, unknown> = {};
      const entry: LogEntry = { seq: ++seq, method: req.method ?? '', path, body: raw, status: 200 };
      if (req.headers.authorization) entry.authorization = req.headers.authorization;
      try {
        if (raw) body = JSON.parse(raw) as Record<string, unknown>;
        entry.body = body;
      } catch {
        entry.status = 400;
        send(res, 400, { error: { message: 'request body is not JSON' } });
        return;
      }
      const logged = !path.startsWith('/__');
      if (logged) {
        log.push(entry);
        if (log.length > MAX_LOG) log.splice(0, log.length - MAX_LOG);
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      handle(req, res, entry, body)
        .catch((e: unknown) => {
          entry.status = 500;
          if (!res.headersSent) send(res, 500, { error: { message: e instanceof Error ? e.message : String(e) } });
        })
        .finally(() => {
          inFlight--;
        });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    setScript,
    reset,
    log: () => log,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
