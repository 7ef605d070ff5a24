import { describe, expect, it } from 'vitest';
import { PRESETS } from '../engine/supervisor/presets.ts';
import {
  API_KEY_KEY,
  createEngineSettings,
  DEFAULT_PREFERENCES,
  effectiveMode,
  endpointProblem,
  exportablePreferences,
  OLD_RECTIFIER_KEY,
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

describe('one settings record for every engine', () => {
  it('rectifier parameters: defaults for missing or malformed fields', () => {
    const parse = (text: string | null) => parsePreferences(JSON.stringify({ rectifier: text === null ? undefined : JSON.parse(text) })).rectifier;
    expect(parse(null)).toEqual({ k: 5, tMax: 3, gamma: 1, domain: 'generic', zeroShot: false, auditRetries: 1 });
    expect(parse('{"k": 8, "tMax": 0, "gamma": 2, "domain": "code", "zeroShot": true}')).toEqual({ k: 8, tMax: 3, gamma: 2, domain: 'code', zeroShot: true, auditRetries: 1 });
    expect(parse('{"domain": "poetry", "k": 2.5}')).toMatchObject({ domain: 'generic', k: 5 });
    expect(parsePreferences('not json').rectifier.k).toBe(5);
  });

  it('keeps every engine in one persisted record (and nothing under other keys)', () => {
    const storage = new MemoryStorage();
    const store = createEngineSettings(storage);
    store.getState().setRectifier({ k: 7, zeroShot: true });
    store.getState().setClarifier({ window: 5 });
    store.getState().setLive({ supervisor: true, clarifierHeuristic: true });
    store.getState().choosePreset('oagents');
    expect([...storage.map.keys()]).toEqual([SETTINGS_KEY]);
    const reloaded = createEngineSettings(storage).getState();
    expect(reloaded.rectifier).toMatchObject({ k: 7, zeroShot: true });
    expect(reloaded.clarifier.window).toBe(5);
    expect(reloaded.live).toMatchObject({ supervisor: true, clarifierHeuristic: true, rectifier: false });
    expect(reloaded.supervisor.preset).toBe('oagents');
  });

  it('reads the rectifier parameters from their old key once, then keeps them in the record only', () => {
    const storage = new MemoryStorage();
    storage.setItem(SETTINGS_KEY, JSON.stringify({ version: 1, endpoint: { baseUrl: 'http://h/v1' } }));
    storage.setItem(OLD_RECTIFIER_KEY, JSON.stringify({ k: 9, tMax: 2, domain: 'math' }));
    const store = createEngineSettings(storage);
    expect(store.getState().rectifier).toMatchObject({ k: 9, tMax: 2, domain: 'math' });
    expect(store.getState().endpoint.baseUrl).toBe('http://h/v1');
    expect(storage.getItem(OLD_RECTIFIER_KEY)).toBeNull();
    expect(JSON.parse(storage.getItem(SETTINGS_KEY)!).rectifier).toMatchObject({ k: 9, tMax: 2, domain: 'math' });
    // A record that has its own parameters is not overwritten by a stale old key.
    storage.setItem(OLD_RECTIFIER_KEY, JSON.stringify({ k: 1 }));
    expect(createEngineSettings(storage).getState().rectifier.k).toBe(9);
  });

  it('exports every engine’s parameters and never the key; applying an export restores them', () => {
    const storage = new MemoryStorage();
    const store = createEngineSettings(storage);
    store.getState().setEndpoint({ mode: 'endpoint', baseUrl: 'http://h/v1' });
    store.getState().setApiKey('sk-never-exported');
    store.getState().setRememberKey(true);
    store.getState().setRectifier({ gamma: 4 });
    store.getState().setClarifier({ window: 1 });
    store.getState().setLive({ rectifier: true });
    const exported = exportablePreferences(store.getState());
    expect(Object.keys(exported).sort()).toEqual(['clarifier', 'endpoint', 'live', 'rectifier', 'supervisor', 'version']);
    expect(JSON.stringify(exported)).not.toContain('sk-never-exported');
    expect(exported).not.toHaveProperty('rememberKey');

    const other = createEngineSettings(new MemoryStorage());
    other.getState().applyPreferences(JSON.parse(JSON.stringify(exported)));
    expect(other.getState().rectifier.gamma).toBe(4);
    expect(other.getState().clarifier.window).toBe(1);
    expect(other.getState().live.rectifier).toBe(true);
    expect(other.getState().apiKey).toBe('');
    // A file saved before a section existed leaves that section alone.
    other.getState().applyPreferences({ endpoint: { baseUrl: 'http://x/v1' } });
    expect(other.getState().rectifier.gamma).toBe(4);
  });
});
