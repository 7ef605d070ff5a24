import { describe, expect, it } from 'vitest';
import { PRESETS } from '../engine/supervisor/presets.ts';
import {
  API_KEY_KEY,
  createEngineSettings,
  DEFAULT_PREFERENCES,
  effectiveMode,
  endpointProblem,
  parsePreferences,
  SETTINGS_KEY,
  toLlmSettings,
} from './engine-settings.ts';

class MemoryStorage {
  readonly map = new Map<string, string>();
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, v);
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
  /** Every stored value, joined: a secret must not appear anywhere in it. */
  dump() {
    return [...this.map.entries()].map(([k, v]) => `${k}=${v}`).join('\n');
  }
}

describe('engine settings persistence', () => {
  it('keeps the API key in memory only unless "remember" is ticked', () => {
    const storage = new MemoryStorage();
    const store = createEngineSettings(storage);
    store.getState().setEndpoint({ mode: 'endpoint', baseUrl: 'http://127.0.0.1:9/v1' });
    store.getState().setApiKey('sk-secret-123');
    expect(store.getState().apiKey).toBe('sk-secret-123');
    expect(storage.dump()).not.toContain('sk-secret-123');
    expect(JSON.parse(storage.getItem(SETTINGS_KEY)!).endpoint.baseUrl).toBe('http://127.0.0.1:9/v1');

    // A new page load: settings come back, the key does not.
    const reloaded = createEngineSettings(storage);
    expect(reloaded.getState().endpoint.baseUrl).toBe('http://127.0.0.1:9/v1');
    expect(reloaded.getState().apiKey).toBe('');
  });

  it('stores the key apart from the settings when opted in, and forgets it when opted out', () => {
    const storage = new MemoryStorage();
    const store = createEngineSettings(storage);
    store.getState().setApiKey('sk-remember-me');
    store.getState().setRememberKey(true);
    expect(storage.getItem(API_KEY_KEY)).toBe('sk-remember-me');
    expect(storage.getItem(SETTINGS_KEY)).not.toContain('sk-remember-me');
    expect(createEngineSettings(storage).getState().apiKey).toBe('sk-remember-me');

    store.getState().setRememberKey(false);
    expect(storage.getItem(API_KEY_KEY)).toBeNull();
    expect(storage.dump()).not.toContain('sk-remember-me');
    expect(createEngineSettings(storage).getState().apiKey).toBe('');
  });

  it('reads corrupt or partial stored settings as defaults field by field', () => {
    expect(parsePreferences('{not json')).toEqual(DEFAULT_PREFERENCES);
    expect(parsePreferences(null)).toEqual(DEFAULT_PREFERENCES);
    const p = parsePreferences(JSON.stringify({ endpoint: { mode: 'endpoint', concurrency: -3, temperature: 'hot', models: { supervisor: 'm', bogus: 'x' } }, supervisor: { preset: 'nope', tauStep: 2.6, nonCriticalErrors: ['Timeout', 3, ''] } }));
    expect(p.endpoint.mode).toBe('endpoint');
    expect(p.endpoint.concurrency).toBe(DEFAULT_PREFERENCES.endpoint.concurrency);
    expect(p.endpoint.temperature).toBe(DEFAULT_PREFERENCES.endpoint.temperature);
    expect(p.endpoint.models).toEqual({ supervisor: 'm' });
    expect(p.supervisor.preset).toBe(DEFAULT_PREFERENCES.supervisor.preset);
    expect(p.supervisor.tauStep).toBe(3);
    expect(p.supervisor.nonCriticalErrors).toEqual(['Timeout']);
    expect(p.rememberKey).toBe(false);
  });
});

describe('supervisor parameters', () => {
  it('a preset sets all three thresholds; changing one makes the set custom', () => {
    const store = createEngineSettings(new MemoryStorage());
    store.getState().choosePreset('oagents');
    expect(store.getState().supervisor).toMatchObject({ preset: 'oagents', ...PRESETS.oagents });
    store.getState().setThreshold('tauLen', PRESETS.oagents.tauLen);
    expect(store.getState().supervisor.preset).toBe('oagents');
    store.getState().setThreshold('tauLoop', 9);
    expect(store.getState().supervisor).toMatchObject({ preset: 'custom', tauStep: 6, tauLoop: 9, tauLen: 10000 });
  });
});

describe('endpoint use', () => {
  it('is offline by default and until a base URL and a supervisor model are set', () => {
    const e = { ...DEFAULT_PREFERENCES.endpoint };
    expect(effectiveMode(e)).toBe('offline');
    e.mode = 'endpoint';
    expect(endpointProblem(e)).toBe('set a base URL');
    e.baseUrl = 'localhost:8000';
    expect(endpointProblem(e)).toMatch(/http/);
    e.baseUrl = 'http://localhost:8000/v1';
    expect(effectiveMode(e)).toBe('offline');
    e.models = { supervisor: 'qwen' };
    expect(effectiveMode(e)).toBe('endpoint');
  });

  it('puts the key only into the client settings, and a zero budget means none', () => {
    const e = { ...DEFAULT_PREFERENCES.endpoint, baseUrl: ' http://h/v1 ', models: { supervisor: 'm' } };
    const s = toLlmSettings(e, '');
    expect(s.apiKey).toBeUndefined();
    expect(s.tokenBudgetPerRun).toBeUndefined();
    expect(s.baseUrl).toBe('http://h/v1');
    const k = toLlmSettings({ ...e, tokenBudgetPerRun: 5000 }, 'sk-x');
    expect(k.apiKey).toBe('sk-x');
    expect(k.tokenBudgetPerRun).toBe(5000);
  });
});
