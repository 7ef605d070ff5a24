// OpenAI-compatible endpoint client (SPEC §6): chat completions and embeddings over fetch, so it runs in the
// browser, in workers and under Node. Retries with backoff, a concurrency limit, a per-run budget, and a record of
// every call; in cassette mode it answers from recorded calls instead of the network.
import { hashText } from '../model/hash.ts';
import type { ChatMessage, LlmCallRecord, TokenUsage } from '../model/types.ts';
import { TokenBudget } from './budget.ts';
import {
  Cancelled,
  CassetteMiss,
  HttpError,
  LlmError,
  MalformedResponse,
  NetworkError,
  TimeoutError,
} from './errors.ts';
import { ConcurrencyLimiter } from './limiter.ts';
import { CallRecorder, type Cassette } from './recorder.ts';
import { authorizationFor, modelFor, normalizeBaseUrl, type LlmRole, type LlmSettings } from './settings.ts';
import { estimateUsage, usageFromResponse } from './usage.ts';

export interface ChatRequest {
  role: LlmRole;
  messages: Pick<ChatMessage, 'role' | 'content'>[];
  /** Ask for a JSON object (when the settings allow JSON mode). */
  json?: boolean;
  temperature?: number;
  maxTokens?: number;
}

export interface ChatResult {
  text: string;
  usage: TokenUsage;
  record: LlmCallRecord;
  /** Answered from the cassette, not the network. */
  replayed: boolean;
}

export interface EmbedResult {
  vectors: number[][];
  usage: TokenUsage;
  record: LlmCallRecord;
  replayed: boolean;
}

export interface LlmClientOptions {
  recorder?: CallRecorder;
  /** Answer from these recorded calls; a request that was never recorded fails with CassetteMiss. */
  cassette?: Cassette;
  budget?: TokenBudget;
  /** Share one limiter between the clients of several runs so `concurrency` holds across all of them. */
  limiter?: ConcurrencyLimiter;
  /** Injected for tests that need a fake clock; defaults to real timers. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** Keys sorted at every level, so the hash does not depend on property order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Cancelled());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `Retry-After` is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const roughTokens = (text: string) => Math.ceil(text.length / 4);

export class LlmClient {
  readonly settings: LlmSettings;
  readonly recorder: CallRecorder;
  private readonly limiter: ConcurrencyLimiter;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly budget: TokenBudget | undefined;
  /** Set once a server refused `response_format`, so later calls do not pay for the refusal again. */
  private jsonModeRejected = false;

  constructor(
    settings: LlmSettings,
    private readonly options: LlmClientOptions = {},
  ) {
    this.settings = { ...settings, baseUrl: normalizeBaseUrl(settings.baseUrl) };
    this.recorder = options.recorder ?? new CallRecorder();
    this.limiter = options.limiter ?? new ConcurrencyLimiter(settings.concurrency);
    this.sleep = options.sleep ?? sleepFor;
    this.random = options.random ?? Math.random;
    // One client per run: the budget in the settings is a per-run limit.
    this.budget = options.budget ?? (settings.tokenBudgetPerRun !== undefined ? new TokenBudget(settings.tokenBudgetPerRun) : undefined);
  }

  /**
   * A client for another run: same settings, recorder, cassette and concurrency limit, its own token budget (from the
   * settings unless one is given).
   */
  forRun(budget?: TokenBudget): LlmClient {
    const limit = this.settings.tokenBudgetPerRun;
    return new LlmClient(this.settings, {
      ...this.options,
      recorder: this.recorder,
      limiter: this.limiter,
      budget: budget ?? (limit !== undefined ? new TokenBudget(limit) : undefined),
    });
  }

  /** Tokens spent through this client against its budget (0 when it has none). */
  get tokensSpent(): number {
    return this.budget?.used ?? 0;
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const model = modelFor(this.settings, req.role);
    const body: Record<string, unknown> = {
      model,
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
      temperature: req.temperature ?? this.settings.temperature,
    };
    const maxTokens = req.maxTokens ?? this.settings.maxTokens;
    if (maxTokens !== undefined) body.max_tokens = maxTokens;
    // The hash covers the logical request (JSON wanted or not), not whether the server accepted JSON mode.
    const requestHash = hashText(canonicalJson({ endpoint: 'chat/completions', ...body, json: !!req.json }));
    const promptText = req.messages.map((m) => m.content).join('\n');
    const { response, record, replayed } = await this.call(
      'chat/completions',
      requestHash,
      model,
      body,
      roughTokens(promptText),
      signal,
      req.json === true,
      chatText,
    );
    const text = chatText(response);
    const usage = usageFromResponse(response) ?? (await estimateUsage(promptText, text));
    if (!replayed) {
      record.usage = usage;
      this.recorder.add(record);
    }
    this.budget?.spend(usage.total);
    return { text, usage, record, replayed };
  }

  async embed(input: string[], signal?: AbortSignal): Promise<EmbedResult> {
    const model = modelFor(this.settings, 'embeddings');
    const body = { model, input };
    const requestHash = hashText(canonicalJson({ endpoint: 'embeddings', ...body }));
    const text = input.join('\n');
    const checkCount = (response: unknown) => {
      const n = embeddingVectors(response).length;
      if (n !== input.length) throw new MalformedResponse(`expected ${input.length} embeddings, got ${n}`, '');
    };
    const { response, record, replayed } = await this.call('embeddings', requestHash, model, body, roughTokens(text), signal, false, checkCount);
    const vectors = embeddingVectors(response);
    const usage = usageFromResponse(response) ?? (await estimateUsage(text, ''));
    if (!replayed) {
      record.usage = usage;
      this.recorder.add(record);
    }
    this.budget?.spend(usage.total);
    return { vectors, usage, record, replayed };
  }

  /** Budget, cassette, limiter and retries around one logical request. Failed calls are recorded too. */
  private async call(
    path: string,
    requestHash: string,
    model: string,
    body: Record<string, unknown>,
    roughInput: number,
    signal: AbortSignal | undefined,
    wantJson: boolean,
    /** Throws MalformedResponse when the body lacks what the caller needs, so that too is retried. */
    validate: (response: unknown) => unknown,
  ): Promise<{ response: unknown; record: LlmCallRecord; replayed: boolean }> {
    if (signal?.aborted) throw new Cancelled();
    this.budget?.check(roughInput);
    if (this.options.cassette) {
      const hit = this.options.cassette.take(requestHash);
      if (!hit) throw new CassetteMiss(requestHash);
      this.recorder.add(hit);
      return { response: hit.response, record: hit, replayed: true };
    }
    const id = this.recorder.nextId(requestHash);
    const startedAt = Date.now();
    const release = await this.limiter.acquire(signal);
    try {
      const response = await this.withRetries(path, body, wantJson, signal, validate);
      const record: LlmCallRecord = {
        id,
        requestHash,
        model,
        request: body,
        response,
        latencyMs: Date.now() - startedAt,
        startedAt,
      };
      return { response, record, replayed: false };
    } catch (e) {
      if (!(e instanceof Cancelled)) {
        this.recorder.add({
          id,
          requestHash,
          model,
          request: body,
          latencyMs: Date.now() - startedAt,
          startedAt,
          error: e instanceof Error ? e.message : String(e),
        });
      }
      throw e;
    } finally {
      release();
    }
  }

  private async withRetries(
    path: string,
    body: Record<string, unknown>,
    wantJson: boolean,
    signal: AbortSignal | undefined,
    validate: (response: unknown) => unknown,
  ): Promise<unknown> {
    let attempt = 0;
    for (;;) {
      const sendJson = wantJson && this.settings.jsonMode && !this.jsonModeRejected;
      const sent = sendJson ? { ...body, response_format: { type: 'json_object' } } : body;
      try {
        const response = await this.once(path, sent, signal);
        validate(response);
        return response;
      } catch (e) {
        if (e instanceof HttpError && sendJson && (e.status === 400 || e.status === 422)) {
          // Many local servers reject response_format; the prompt asks for JSON anyway, so go on without it.
          this.jsonModeRejected = true;
          continue;
        }
        if (!(e instanceof LlmError) || !e.retryable || attempt >= this.settings.retries) throw e;
        const backoff = Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** attempt);
        const jittered = backoff / 2 + this.random() * (backoff / 2);
        const wait = e instanceof HttpError && e.retryAfterMs !== undefined ? Math.min(this.settings.retryMaxMs, e.retryAfterMs) : jittered;
        attempt++;
        await this.sleep(wait, signal);
      }
    }
  }

  private async once(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const url = `${this.settings.baseUrl}/${path}`;
    // Before anything else: a key bound to another origin stops the request here (not retried).
    const headers: Record<string, string> = { 'content-type': 'application/json', ...authorizationFor(this.settings.apiKey, url) };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.settings.timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const text = await res.text();
      if (!res.ok) throw new HttpError(res.status, text, parseRetryAfter(res.headers.get('retry-after')));
      try {
        return JSON.parse(text) as unknown;
      } catch (e) {
        throw new MalformedResponse(e instanceof Error ? e.message : String(e), text.slice(0, 500));
      }
    } catch (e) {
      if (signal?.aborted) throw new Cancelled();
      if (timedOut) throw new TimeoutError(this.settings.timeoutMs);
      if (e instanceof LlmError) throw e;
      const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : '';
      throw new NetworkError(`${e instanceof Error ? e.message : String(e)}${cause}`);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

function chatText(response: unknown): string {
  const choice = (response as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0];
  const content = choice?.message?.content;
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) {
    if (choice?.message) return '';
    throw new MalformedResponse('no choices[0].message in the answer', JSON.stringify(response)?.slice(0, 500) ?? '');
  }
  throw new MalformedResponse('choices[0].message.content is not text', JSON.stringify(response)?.slice(0, 500) ?? '');
}

function embeddingVectors(response: unknown): number[][] {
  const data = (response as { data?: { embedding?: unknown; index?: number }[] } | null)?.data;
  if (!Array.isArray(data)) throw new MalformedResponse('no data[] in the embeddings answer', '');
  const sorted = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  return sorted.map((d, i) => {
    if (!Array.isArray(d.embedding) || !d.embedding.every((x) => typeof x === 'number')) {
      throw new MalformedResponse(`data[${i}].embedding is not a list of numbers`, '');
    }
    return d.embedding as number[];
  });
}
