// The endpoint check behind "Test connection" (SPEC §6): ask the endpoint for its models (`GET {base}/models`); a
// server without that route is tried with a one-word chat call instead. The key goes only to the origin it was entered
// for, as everywhere else.
import { LlmClient } from './client.ts';
import { authorizationFor, normalizeBaseUrl, type LlmSettings } from './settings.ts';

export type ConnectionResult =
  | { ok: true; via: 'models' | 'chat'; models: string[]; detail: string; latencyMs: number }
  | { ok: false; problem: string; hint?: string };

const CORS_HINT =
  'The browser could not reach the server. Either it is not running at this address, or it refuses requests from ' +
  'this page (CORS): see “Local servers and CORS” below.';

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function testConnection(settings: LlmSettings, fetchImpl: typeof fetch = fetch, timeoutMs = 10_000): Promise<ConnectionResult> {
  const base = normalizeBaseUrl(settings.baseUrl.trim());
  if (!/^https?:\/\//.test(base)) return { ok: false, problem: 'The base URL must start with http:// or https://.' };
  let headers: Record<string, string>;
  try {
    headers = authorizationFor(settings.apiKey, `${base}/models`);
  } catch (e) {
    return { ok: false, problem: describe(e) };
  }
  const started = Date.now();
  let res: Response;
  try {
    res = await fetchImpl(`${base}/models`, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    if (e instanceof DOMException && (e.name === 'TimeoutError' || e.name === 'AbortError')) {
      return { ok: false, problem: `No answer from ${base}/models within ${timeoutMs / 1000} s.` };
    }
    return { ok: false, problem: `Request to ${base}/models failed: ${describe(e)}`, hint: CORS_HINT };
  }
  const text = await res.text().catch(() => '');
  if (res.ok) {
    let models: string[] = [];
    try {
      const body = JSON.parse(text) as { data?: { id?: unknown }[] };
      models = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
    } catch {
      return { ok: false, problem: `${base}/models answered, but not with JSON: ${text.slice(0, 120)}` };
    }
    const chosen = settings.models.supervisor;
    const detail =
      models.length === 0
        ? 'The server answered but listed no models.'
        : `${models.length} model${models.length === 1 ? '' : 's'}: ${models.slice(0, 8).join(', ')}${models.length > 8 ? ', …' : ''}` +
          (chosen && !models.includes(chosen) ? ` — the supervisor model “${chosen}” is not among them.` : '');
    return { ok: true, via: 'models', models, detail, latencyMs: Date.now() - started };
  }
  if (res.status === 401 || res.status === 403) {
    return { ok: false, problem: `${base}/models refused the request (HTTP ${res.status}): check the API key.` };
  }
  if (res.status !== 404 && res.status !== 405) {
    return { ok: false, problem: `${base}/models answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}` };
  }
  // No model list on this server: one tiny chat call with the supervisor model tells as much.
  if (!settings.models.supervisor) return { ok: false, problem: `${base}/models does not exist here (HTTP ${res.status}); set the supervisor model to test with a chat call.` };
  try {
    const client = new LlmClient({ ...settings, retries: 0, timeoutMs, maxTokens: 5 });
    const r = await client.chat({ role: 'supervisor', messages: [{ role: 'user', content: 'Reply with the word OK.' }] });
    return {
      ok: true,
      via: 'chat',
      models: [settings.models.supervisor],
      detail: `chat call to “${settings.models.supervisor}” answered “${r.text.trim().slice(0, 60)}” (${r.usage.total} tokens)`,
      latencyMs: Date.now() - started,
    };
  } catch (e) {
    return { ok: false, problem: `No /models route, and a test chat call failed: ${describe(e)}` };
  }
}
