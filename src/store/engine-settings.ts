// Engine preferences (SPEC §6 endpoint, §5.1 supervisor parameters). Preferences live in localStorage; the API key
// is held in memory only, unless the user ticks "remember on this device", and is never part of the stored settings
// object (so nothing that copies or exports the settings can carry it).
import { create } from 'zustand';
import { DEFAULT_LLM_SETTINGS, type LlmRole, type LlmSettings } from '../llm/settings.ts';
import { DEFAULT_PRESET, isPresetName, PRESETS, type PresetName } from '../engine/supervisor/presets.ts';

export const SETTINGS_KEY = 'mas-replay:engine-settings';
export const API_KEY_KEY = 'mas-replay:api-key';

export type EngineMode = 'offline' | 'endpoint';

/** Everything but the key: safe to store and to show. */
export interface EndpointPreferences {
  mode: EngineMode;
  baseUrl: string;
  models: Partial<Record<LlmRole, string>>;
  temperature: number;
  maxTokens: number;
  timeoutMs: number;
  concurrency: number;
  retries: number;
  /** 0 means no budget. */
  tokenBudgetPerRun: number;
  jsonMode: boolean;
}

export interface SupervisorPreferences {
  /** 'custom' once a threshold differs from the chosen preset. */
  preset: PresetName | 'custom';
  tauStep: number;
  tauLoop: number;
  tauLen: number;
  /** Substrings of error messages or types the agents handle themselves (SPEC §5.1 rule 2). */
  nonCriticalErrors: string[];
}

export interface StoredPreferences {
  version: 1;
  endpoint: EndpointPreferences;
  supervisor: SupervisorPreferences;
  rememberKey: boolean;
}

export const DEFAULT_PREFERENCES: StoredPreferences = {
  version: 1,
  endpoint: {
    // No endpoint until the user sets one: the LLM-free heuristics are the default.
    mode: 'offline',
    baseUrl: '',
    models: {},
    temperature: DEFAULT_LLM_SETTINGS.temperature,
    maxTokens: DEFAULT_LLM_SETTINGS.maxTokens ?? 2048,
    timeoutMs: DEFAULT_LLM_SETTINGS.timeoutMs,
    concurrency: DEFAULT_LLM_SETTINGS.concurrency,
    retries: DEFAULT_LLM_SETTINGS.retries,
    tokenBudgetPerRun: 0,
    jsonMode: DEFAULT_LLM_SETTINGS.jsonMode,
  },
  supervisor: { preset: DEFAULT_PRESET, ...PRESETS[DEFAULT_PRESET], nonCriticalErrors: [] },
  rememberKey: false,
};

type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const finite = (v: unknown, fallback: number, min: number, max = Infinity): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : fallback;
const whole = (v: unknown, fallback: number, min: number, max = Infinity): number => Math.round(finite(v, fallback, min, max));

/** Read stored preferences, field by field: whatever is missing or malformed takes its default. */
export function parsePreferences(text: string | null): StoredPreferences {
  const d = DEFAULT_PREFERENCES;
  let raw: Record<string, unknown> = {};
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
  } catch {
    // A corrupt entry falls back to the defaults rather than breaking the panel.
  }
  const e = (raw.endpoint && typeof raw.endpoint === 'object' ? raw.endpoint : {}) as Record<string, unknown>;
  const s = (raw.supervisor && typeof raw.supervisor === 'object' ? raw.supervisor : {}) as Record<string, unknown>;
  const models: Partial<Record<LlmRole, string>> = {};
  if (e.models && typeof e.models === 'object') {
    for (const role of ['supervisor', 'rectifier', 'clarifier', 'embeddings', 'agents'] as const) {
      const m = (e.models as Record<string, unknown>)[role];
      if (typeof m === 'string' && m.trim() !== '') models[role] = m;
    }
  }
  const preset = typeof s.preset === 'string' && (s.preset === 'custom' || isPresetName(s.preset)) ? s.preset : d.supervisor.preset;
  return {
    version: 1,
    endpoint: {
      mode: e.mode === 'endpoint' ? 'endpoint' : 'offline',
      baseUrl: typeof e.baseUrl === 'string' ? e.baseUrl : d.endpoint.baseUrl,
      models,
      temperature: finite(e.temperature, d.endpoint.temperature, 0, 2),
      maxTokens: whole(e.maxTokens, d.endpoint.maxTokens, 1),
      timeoutMs: whole(e.timeoutMs, d.endpoint.timeoutMs, 1000),
      concurrency: whole(e.concurrency, d.endpoint.concurrency, 1, 64),
      retries: whole(e.retries, d.endpoint.retries, 0, 20),
      tokenBudgetPerRun: whole(e.tokenBudgetPerRun, d.endpoint.tokenBudgetPerRun, 0),
      jsonMode: typeof e.jsonMode === 'boolean' ? e.jsonMode : d.endpoint.jsonMode,
    },
    supervisor: {
      preset,
      tauStep: whole(s.tauStep, d.supervisor.tauStep, 1),
      tauLoop: whole(s.tauLoop, d.supervisor.tauLoop, 1),
      tauLen: whole(s.tauLen, d.supervisor.tauLen, 1),
      nonCriticalErrors: Array.isArray(s.nonCriticalErrors) ? s.nonCriticalErrors.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [],
    },
    rememberKey: raw.rememberKey === true,
  };
}

/** Write preferences, and the key only when the user opted in (otherwise any stored key is removed). */
export function savePreferences(storage: StorageLike, prefs: StoredPreferences, apiKey: string): void {
  const stored: StoredPreferences = { version: 1, endpoint: prefs.endpoint, supervisor: prefs.supervisor, rememberKey: prefs.rememberKey };
  storage.setItem(SETTINGS_KEY, JSON.stringify(stored));
  if (prefs.rememberKey && apiKey !== '') storage.setItem(API_KEY_KEY, apiKey);
  else storage.removeItem(API_KEY_KEY);
}

export function loadPreferences(storage: StorageLike | undefined): { prefs: StoredPreferences; apiKey: string } {
  if (!storage) return { prefs: DEFAULT_PREFERENCES, apiKey: '' };
  const prefs = parsePreferences(storage.getItem(SETTINGS_KEY));
  const apiKey = prefs.rememberKey ? (storage.getItem(API_KEY_KEY) ?? '') : '';
  return { prefs, apiKey };
}

/** Why the endpoint cannot be used yet, or undefined when it can. */
export function endpointProblem(e: EndpointPreferences): string | undefined {
  const url = e.baseUrl.trim();
  if (url === '') return 'set a base URL';
  if (!/^https?:\/\/[^\s/]+/.test(url)) return 'the base URL must start with http:// or https://';
  if (!e.models.supervisor?.trim()) return 'set the supervisor model';
  return undefined;
}

/** Offline unless the endpoint mode is chosen and usable: the heuristics are the default when no endpoint is set. */
export function effectiveMode(e: EndpointPreferences): EngineMode {
  return e.mode === 'endpoint' && endpointProblem(e) === undefined ? 'endpoint' : 'offline';
}

/** Settings for LlmClient; the key goes in here and nowhere else. */
export function toLlmSettings(e: EndpointPreferences, apiKey: string): LlmSettings {
  const settings: LlmSettings = {
    ...DEFAULT_LLM_SETTINGS,
    baseUrl: e.baseUrl.trim(),
    models: { ...e.models },
    temperature: e.temperature,
    maxTokens: e.maxTokens,
    timeoutMs: e.timeoutMs,
    concurrency: e.concurrency,
    retries: e.retries,
    jsonMode: e.jsonMode,
  };
  if (e.tokenBudgetPerRun > 0) settings.tokenBudgetPerRun = e.tokenBudgetPerRun;
  if (apiKey !== '') settings.apiKey = apiKey;
  return settings;
}

export interface EngineSettingsState extends StoredPreferences {
  /** In memory; stored only with rememberKey. */
  apiKey: string;
  setEndpoint(patch: Partial<EndpointPreferences>): void;
  setModel(role: LlmRole, model: string): void;
  setApiKey(key: string): void;
  setRememberKey(remember: boolean): void;
  choosePreset(preset: PresetName): void;
  setThreshold(name: 'tauStep' | 'tauLoop' | 'tauLen', value: number): void;
  setNonCriticalErrors(list: string[]): void;
  /** Take endpoint and supervisor preferences from a saved settings object (an exported library). */
  applyPreferences(raw: unknown): void;
}

/** The preferences as an export carries them: everything but the key (and not whether to remember one). */
export function exportablePreferences(s: StoredPreferences): Record<string, unknown> {
  return { version: s.version, endpoint: s.endpoint, supervisor: s.supervisor };
}

function browserStorage(): StorageLike | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}

/** A store bound to `storage` (localStorage in the app; a fake in tests). */
export function createEngineSettings(storage: StorageLike | undefined) {
  const { prefs, apiKey } = loadPreferences(storage);
  const store = create<EngineSettingsState>((set, get) => ({
    ...prefs,
    apiKey,
    setEndpoint: (patch) => set({ endpoint: { ...get().endpoint, ...patch } }),
    setModel: (role, model) => {
      const models = { ...get().endpoint.models };
      if (model.trim() === '') delete models[role];
      else models[role] = model;
      set({ endpoint: { ...get().endpoint, models } });
    },
    setApiKey: (key) => set({ apiKey: key }),
    setRememberKey: (remember) => set({ rememberKey: remember }),
    choosePreset: (preset) => set({ supervisor: { ...get().supervisor, preset, ...PRESETS[preset] } }),
    setThreshold: (name, value) => {
      const next = { ...get().supervisor, [name]: value };
      const p = next.preset !== 'custom' ? PRESETS[next.preset] : undefined;
      if (p && (p.tauStep !== next.tauStep || p.tauLoop !== next.tauLoop || p.tauLen !== next.tauLen)) next.preset = 'custom';
      set({ supervisor: next });
    },
    setNonCriticalErrors: (list) => set({ supervisor: { ...get().supervisor, nonCriticalErrors: list } }),
    applyPreferences: (raw) => {
      // Field by field, like stored preferences; the key in memory stays as it is (a file never carries one).
      const prefs = parsePreferences(JSON.stringify(raw));
      set({ endpoint: prefs.endpoint, supervisor: prefs.supervisor });
    },
  }));
  if (storage) {
    store.subscribe((s) => {
      try {
        savePreferences(storage, s, s.apiKey);
      } catch {
        // Storage full or refused: the settings still hold for this session.
      }
    });
  }
  return store;
}

export const useEngineSettings = createEngineSettings(browserStorage());
