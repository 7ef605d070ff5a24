// Endpoint settings (SPEC §6). One object for every engine; each engine asks for its own role's model.
import { KeyOriginMismatch } from './errors.ts';

export type LlmRole = 'supervisor' | 'rectifier' | 'clarifier' | 'embeddings' | 'agents';

export interface LlmSettings {
  /** e.g. `http://127.0.0.1:11434/v1`; requests go to `{baseUrl}/chat/completions` and `{baseUrl}/embeddings`. */
  baseUrl: string;
  /** Model per role; a role without one falls back to `supervisor`, then to any model given. */
  models: Partial<Record<LlmRole, string>>;
  /** Sent only as `Authorization: Bearer …`, and only to its own origin; never recorded or exported. */
  apiKey?: BoundApiKey;
  temperature: number;
  maxTokens?: number;
  timeoutMs: number;
  concurrency: number;
  /** Extra attempts after the first on 429 / 5xx / network errors / timeouts / malformed bodies. */
  retries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Tokens (input + output) the engine may spend on one run; calls past it are refused. */
  tokenBudgetPerRun?: number;
  /** Ask for `response_format: {type: 'json_object'}`; dropped automatically when the server rejects it. */
  jsonMode: boolean;
}

/**
 * An API key and the origin (scheme, host and port) of the base URL it was entered for (SPEC §9): a key belongs to
 * that origin and is never sent to another, whatever the settings say later.
 */
export interface BoundApiKey {
  key: string;
  origin: string;
}

/** `scheme://host:port` of an http(s) URL, or undefined for anything else (empty, half-typed, another scheme). */
export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Authorization header for a request to `url`: empty without a key, and a refusal (KeyOriginMismatch) when the key
 * was entered for another origin. Every request that may carry the key builds its headers here.
 */
export function authorizationFor(apiKey: BoundApiKey | undefined, url: string): Record<string, string> {
  if (!apiKey || apiKey.key === '') return {};
  const target = originOf(url);
  if (target === undefined || target !== apiKey.origin) throw new KeyOriginMismatch(apiKey.origin, target ?? url);
  return { authorization: `Bearer ${apiKey.key}` };
}

export const DEFAULT_LLM_SETTINGS: LlmSettings = {
  baseUrl: 'http://127.0.0.1:11434/v1',
  models: {},
  temperature: 0,
  maxTokens: 2048,
  timeoutMs: 120_000,
  concurrency: 2,
  retries: 4,
  retryBaseMs: 1000,
  retryMaxMs: 60_000,
  jsonMode: true,
};

export function withDefaults(partial: Partial<LlmSettings> & { baseUrl: string }): LlmSettings {
  return { ...DEFAULT_LLM_SETTINGS, ...partial, models: { ...partial.models } };
}

export function modelFor(settings: LlmSettings, role: LlmRole): string {
  const m = settings.models[role] ?? settings.models.supervisor ?? Object.values(settings.models).find(Boolean);
  if (!m) throw new Error(`no model configured for the ${role} role`);
  return m;
}

/** The base URL without a trailing slash, so `{base}/chat/completions` never has `//`. */
export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Settings as they may be stored in a session or exported: everything but the API key (SPEC §6). */
export function settingsWithoutKey(settings: LlmSettings): Omit<LlmSettings, 'apiKey'> {
  const { apiKey: _omitted, ...rest } = settings;
  void _omitted;
  return rest;
}
