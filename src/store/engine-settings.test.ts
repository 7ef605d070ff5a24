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
import { MemoryStorage } from '../testing/memory-storage.ts';


describe('engine settings persistence', () => {
  it('keeps the API key in memory only unless "remember" is ticked', () => {
    const storage = new MemoryStorage();
    const store = createEngineSettings(storage);
    store.getState().setEndpoint({ mode: 'endpoint', baseUrl: 'http://127.0.0.1:9/v1' });
    store.getState().setApiKey('sk-secret-123');
    expect(store.getState().apiKey).toEqual({ key: 'sk-secret-123', origin: 'http://127.0.0.1:9' });
    expect(storage.dump()).not.toContain('sk-secret-123');
    expect(JSON.parse(storage.getItem(SETTINGS_KEY)!).endpoint.baseUrl).toBe('http://127.0.0.1:9/v1');

    // A new page load: settings come back, the key does not.
    const reloaded = createEngineSettings(storage);
    expect(reloaded.getState().endpoint.baseUrl).toBe('http://127.0.0.1:9/v1');
    expect(reloaded.getState().apiKey).toBeUndefined();
  });

  it('stores the key apart from the settings when opted in, and forgets it when opted out', () => {
    const storage = new MemoryStorage();
    const store = createEngineSettings(storage);
    store.getState().setEndpoint({ baseUrl: 'https://api.example.test/v1' });
    store.getState().setApiKey('sk-remember-me');
    store.getState().setRememberKey(true);
    expect(JSON.parse(storage.getItem(API_KEY_KEY)!)).toEqual({ key: 'sk-remember-me', origin: 'https://api.example.test' });
    expect(storage.getItem(SETTINGS_KEY)).not.toContain('sk-remember-me');
    expect(createEngineSettings(storage).getState().apiKey).toEqual({ key: 'sk-remember-me', origin: 'https://api.example.test' });

    store.getState().setRememberKey(false);
    expect(storage.getItem(API_KEY_KEY)).toBeNull();
    expect(storage.dump()).not.toContain('sk-remember-me');
    expect(createEngineSettings(storage).getState().apiKey).toBeUndefined();
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
    const s = toLlmSettings(e, undefined);
    expect(s.apiKey).toBeUndefined();
    expect(toLlmSettings(e, { key: '', origin: 'http://h' }).apiKey).toBeUndefined();
    expect(s.tokenBudgetPerRun).toBeUndefined();
    expect(s.baseUrl).toBe('http://h/v1');
    const k = toLlmSettings({ ...e, tokenBudgetPerRun: 5000 }, { key: 'sk-x', origin: 'http://h' });
    expect(k.apiKey).toEqual({ key: 'sk-x', origin: 'http://h' });
    expect(k.tokenBudgetPerRun).toBe(5000);
  });
});

describe('the API key belongs to the origin it was entered for (SPEC §9)', () => {
  const A = 'http://127.0.0.1:8001/v1';
  const keyedStore = (storage = new MemoryStorage()) => {
    const store = createEngineSettings(storage);
    store.getState().setEndpoint({ mode: 'endpoint', baseUrl: A, models: { supervisor: 'm' } });
    store.getState().setApiKey('sk-for-a');
    return store;
  };

  it('binds the key to scheme, host and port of the base URL; a path change on that origin keeps it', () => {
    const store = keyedStore();
    expect(store.getState().apiKey).toEqual({ key: 'sk-for-a', origin: 'http://127.0.0.1:8001' });
    store.getState().setEndpoint({ baseUrl: 'http://127.0.0.1:8001/other/v2/' });
    store.getState().setModel('agents', 'a');
    store.getState().setEndpoint({ temperature: 1 });
    expect(store.getState().apiKey?.key).toBe('sk-for-a');
    expect(store.getState().keyNotice).toBeUndefined();
    expect(toLlmSettings(store.getState().endpoint, store.getState().apiKey).apiKey).toEqual({ key: 'sk-for-a', origin: 'http://127.0.0.1:8001' });
  });

  it.each([
    ['another host', 'http://evil.example/v1', 'http://evil.example'],
    ['another port', 'http://127.0.0.1:8002/v1', 'http://127.0.0.1:8002'],
    ['another scheme', 'https://127.0.0.1:8001/v1', 'https://127.0.0.1:8001'],
  ])('typing a base URL on %s clears the key and says why', (_, url, origin) => {
    const store = keyedStore();
    store.getState().setEndpoint({ baseUrl: url });
    expect(store.getState().apiKey).toBeUndefined();
    expect(toLlmSettings(store.getState().endpoint, store.getState().apiKey).apiKey).toBeUndefined();
    expect(store.getState().keyNotice).toBe(
      `The API key was cleared because the endpoint changed from http://127.0.0.1:8001 to ${origin}; enter it again for ${origin}.`,
    );
    // Going back does not bring the key back; typing it again binds it to the new origin and clears the notice.
    store.getState().setEndpoint({ baseUrl: A });
    expect(store.getState().apiKey).toBeUndefined();
    store.getState().setEndpoint({ baseUrl: url });
    store.getState().setApiKey('sk-new');
    expect(store.getState().apiKey).toEqual({ key: 'sk-new', origin });
    expect(store.getState().keyNotice).toBeUndefined();
  });

  it('settings applied from a file with another base URL clear the key; the same origin keeps it', () => {
    const store = keyedStore();
    const fromFile = (baseUrl: string) => ({ version: 1, endpoint: { mode: 'endpoint', baseUrl, models: { supervisor: 'x' } }, supervisor: {} });
    store.getState().applyPreferences(fromFile('http://127.0.0.1:8001/v1/'));
    expect(store.getState().apiKey?.key).toBe('sk-for-a');
    store.getState().applyPreferences(fromFile('http://attacker.example:9999/v1'));
    expect(store.getState().endpoint.baseUrl).toBe('http://attacker.example:9999/v1');
    expect(store.getState().apiKey).toBeUndefined();
    expect(store.getState().keyNotice).toContain('from http://127.0.0.1:8001 to http://attacker.example:9999');
    // A file with no endpoint at all also moves the key's origin away.
    const again = keyedStore();
    again.getState().applyPreferences({ endpoint: { mode: 'offline', baseUrl: '' } });
    expect(again.getState().apiKey).toBeUndefined();
    expect(again.getState().keyNotice).toBe('The API key was cleared because the endpoint changed from http://127.0.0.1:8001 to no endpoint; enter it again once the base URL is set.');
  });

  it('a remembered key comes back only for the origin it was stored with', () => {
    const storage = new MemoryStorage();
    const store = keyedStore(storage);
    store.getState().setRememberKey(true);
    expect(createEngineSettings(storage).getState().apiKey?.key).toBe('sk-for-a');

    // The stored settings now name another endpoint (another tab, or a hand edit): the key is dropped, from storage too.
    const prefs = JSON.parse(storage.getItem(SETTINGS_KEY)!);
    prefs.endpoint.baseUrl = 'http://elsewhere.example/v1';
    storage.setItem(SETTINGS_KEY, JSON.stringify(prefs));
    const reloaded = createEngineSettings(storage).getState();
    expect(reloaded.apiKey).toBeUndefined();
    expect(reloaded.keyNotice).toContain('from http://127.0.0.1:8001 to http://elsewhere.example');
    expect(storage.dump()).not.toContain('sk-for-a');

    // A bare key from before keys were bound is not trusted for any origin.
    storage.setItem(API_KEY_KEY, 'sk-legacy');
    const legacy = createEngineSettings(storage).getState();
    expect(legacy.apiKey).toBeUndefined();
    expect(legacy.keyNotice).toContain('stored without the endpoint it belongs to');
    expect(storage.dump()).not.toContain('sk-legacy');
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

  it('keeps the clarifier gate in the clarifier section, and refuses an unknown gate or rate', () => {
    const storage = new MemoryStorage();
    createEngineSettings(storage).getState().setClarifier({ gate: 'flagged+sample', sampleRate: 0.25 });
    expect(createEngineSettings(storage).getState().clarifier).toMatchObject({ gate: 'flagged+sample', sampleRate: 0.25 });
    expect(parsePreferences('{"clarifier": {"gate": "everything", "sampleRate": 3}}').clarifier).toMatchObject({ gate: 'all', sampleRate: 0.1 });
    expect(parsePreferences('{}').clarifier).toMatchObject({ gate: 'all', sampleRate: 0.1 });
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
    expect(other.getState().apiKey).toBeUndefined();
    // A file saved before a section existed leaves that section alone.
    other.getState().applyPreferences({ endpoint: { baseUrl: 'http://x/v1' } });
    expect(other.getState().rectifier.gamma).toBe(4);
  });
});
