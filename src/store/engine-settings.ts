// The one settings store (SPEC §2, §6): the endpoint and every engine's parameters — supervisor thresholds (§5.1),
// rectifier parameters (§5.2), the clarifier's history window (§5.3), which engines live runs switch on (§5.5) — kept
// as one record in localStorage and exported with the native session. The API key is held in memory only, unless the
// user ticks "remember on this device", and is never part of the stored settings object (so nothing that copies or
// exports the settings can carry it). Settings kept under older keys are read once and moved into the record. The key is bound to the origin of the base URL
// it was typed for (SPEC §9): whatever changes that origin (typing, settings from a file, stored settings) clears it
// and says why.
import { create } from 'zustand';
import { EDGE_GATE_MODES, type EdgeGateMode } from '../model/engine-params.ts';
import { DEFAULT_LLM_SETTINGS, originOf, type BoundApiKey, type LlmRole, type LlmSettings } from '../llm/settings.ts';
import {
  DEFAULT_PRESET,
  DEFAULT_RECTIFY_PARAMS,
  DEFAULT_WINDOW,
  DOMAINS,
  isPresetName,
  PRESETS,
  type PresetName,
  type RectifyParams,
} from '../model/engine-params.ts';

export const SETTINGS_KEY = 'mas-replay:engine-settings';
export const API_KEY_KEY = 'mas-replay:api-key';
/** Where the rectifier's parameters were kept before this store held them: read once, then removed. */
export const OLD_RECTIFIER_KEY = 'mas-replay:rectifier-params';

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

/** Which edges of a recorded run go to the clarifier model: the engine's own list (model/engine-params.ts). */
export const CLARIFIER_GATES = EDGE_GATE_MODES;
export type ClarifierGate = EdgeGateMode;

export interface ClarifierPreferences {
  /** History window H: how many earlier handoffs of the sender or receiver the clarifier sees (a link's `h` wins). */
  window: number;
  /** all edges, only those the LLM-free flagger flags, or those plus a seeded sample of the rest. */
  gate: ClarifierGate;
  /** Share of the unflagged edges sampled with `flagged+sample` (0..1). */
  sampleRate: number;
}

/** Which engines live runs (runner, batch, fork) switch on. */
export interface LivePreferences {
  supervisor: boolean;
  /** Decide with the LLM-free heuristics even when an endpoint is set. */
  supervisorHeuristic: boolean;
  /** Rectify-or-reject; only with an endpoint (offline nothing can be audited). */
  rectifier: boolean;
  clarifier: boolean;
  /** Flag with the clarifier's LLM-free rules (asks nobody) even when an endpoint is set. */
  clarifierHeuristic: boolean;
}

export interface StoredPreferences {
  version: 1;
  endpoint: EndpointPreferences;
  supervisor: SupervisorPreferences;
  rectifier: RectifyParams;
  clarifier: ClarifierPreferences;
  live: LivePreferences;
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
  rectifier: DEFAULT_RECTIFY_PARAMS,
  clarifier: { window: DEFAULT_WINDOW, gate: 'all', sampleRate: 0.1 },
  live: { supervisor: false, supervisorHeuristic: false, rectifier: false, clarifier: false, clarifierHeuristic: false },
  rememberKey: false,
};

type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const finite = (v: unknown, fallback: number, min: number, max = Infinity): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : fallback;
const whole = (v: unknown, fallback: number, min: number, max = Infinity): number => Math.round(finite(v, fallback, min, max));

/** A JSON object, or an empty one for anything else (corrupt text, an array, a number). */
function objectIn(text: string | null): Record<string, unknown> {
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // A corrupt entry falls back to the defaults rather than breaking the panel.
  }
  return {};
}

const section = (raw: Record<string, unknown>, name: string) => (raw[name] && typeof raw[name] === 'object' && !Array.isArray(raw[name]) ? raw[name] : {}) as Record<string, unknown>;

/** The rectifier's parameters, field by field (a stored record, or the old separate key). */
export function parseRectifierParams(raw: Record<string, unknown>): RectifyParams {
  const d = DEFAULT_RECTIFY_PARAMS;
  // Whole numbers only (a fraction is not rounded into a different setting).
  const integer = (v: unknown, fallback: number, min: number, max: number) => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : fallback);
  return {
    k: integer(raw.k, d.k, 1, 50),
    tMax: integer(raw.tMax, d.tMax, 1, 10),
    gamma: integer(raw.gamma, d.gamma, 0, 1000),
    domain: typeof raw.domain === 'string' && (DOMAINS as readonly string[]).includes(raw.domain) ? (raw.domain as RectifyParams['domain']) : d.domain,
    zeroShot: raw.zeroShot === true,
    auditRetries: integer(raw.auditRetries, d.auditRetries, 0, 5),
  };
}

/** Read stored preferences, field by field: whatever is missing or malformed takes its default. */
export function parsePreferences(text: string | null): StoredPreferences {
  const d = DEFAULT_PREFERENCES;
  const raw = objectIn(text);
  const e = section(raw, 'endpoint');
  const s = section(raw, 'supervisor');
  const c = section(raw, 'clarifier');
  const l = section(raw, 'live');
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
    rectifier: parseRectifierParams(section(raw, 'rectifier')),
    clarifier: {
      window: whole(c.window, d.clarifier.window, 0, 10),
      gate: typeof c.gate === 'string' && (CLARIFIER_GATES as readonly string[]).includes(c.gate) ? (c.gate as ClarifierGate) : d.clarifier.gate,
      sampleRate: finite(c.sampleRate, d.clarifier.sampleRate, 0, 1),
    },
    live: {
      supervisor: l.supervisor === true,
      supervisorHeuristic: l.supervisorHeuristic === true,
      rectifier: l.rectifier === true,
      clarifier: l.clarifier === true,
      clarifierHeuristic: l.clarifierHeuristic === true,
    },
    rememberKey: raw.rememberKey === true,
  };
}

/** Write preferences, and the key (with its origin) only when the user opted in; otherwise any stored key is removed. */
export function savePreferences(storage: StorageLike, prefs: StoredPreferences, apiKey: BoundApiKey | undefined): void {
  const stored: StoredPreferences = { ...storedSections(prefs), rememberKey: prefs.rememberKey };
  storage.setItem(SETTINGS_KEY, JSON.stringify(stored));
  storage.removeItem(OLD_RECTIFIER_KEY);
  if (prefs.rememberKey && apiKey) storage.setItem(API_KEY_KEY, JSON.stringify({ key: apiKey.key, origin: apiKey.origin }));
  else storage.removeItem(API_KEY_KEY);
}

const describeOrigin = (origin: string | undefined) => origin || 'no endpoint';

/**
 * The key after the base URL becomes `baseUrl`: kept while the origin is the one it was typed for, else cleared with
 * the reason to show.
 */
export function keyAfterEndpointChange(apiKey: BoundApiKey | undefined, baseUrl: string): { apiKey: BoundApiKey | undefined; notice?: string } {
  const origin = originOf(baseUrl);
  if (!apiKey || apiKey.origin === origin) return { apiKey };
  const to = describeOrigin(origin);
  const again = origin ? `enter it again for ${to}` : 'enter it again once the base URL is set';
  return { apiKey: undefined, notice: `The API key was cleared because the endpoint changed from ${describeOrigin(apiKey.origin)} to ${to}; ${again}.` };
}

/** A remembered key as stored: `{key, origin}`; anything else (an older bare string, a corrupt entry) is no key. */
function parseStoredKey(text: string | null): BoundApiKey | undefined {
  try {
    const raw: unknown = text ? JSON.parse(text) : undefined;
    if (raw && typeof raw === 'object') {
      const { key, origin } = raw as Record<string, unknown>;
      if (typeof key === 'string' && key !== '' && typeof origin === 'string') return { key, origin };
    }
  } catch {
    // A bare key from before keys were bound to an origin: not trusted for any.
  }
  return undefined;
}

export function loadPreferences(storage: StorageLike | undefined): { prefs: StoredPreferences; apiKey: BoundApiKey | undefined; keyNotice?: string } {
  if (!storage) return { prefs: DEFAULT_PREFERENCES, apiKey: undefined };
  const settingsText = storage.getItem(SETTINGS_KEY);
  const prefs = parsePreferences(settingsText);
  // Migration: parameters kept under an older key, unless the record already has its own.
  const old = storage.getItem(OLD_RECTIFIER_KEY);
  if (old !== null && !('rectifier' in objectIn(settingsText))) prefs.rectifier = parseRectifierParams(objectIn(old));
  const text = prefs.rememberKey ? storage.getItem(API_KEY_KEY) : null;
  if (text === null || text === '') return { prefs, apiKey: undefined };
  const stored = parseStoredKey(text);
  if (!stored) {
    storage.removeItem(API_KEY_KEY);
    const target = describeOrigin(originOf(prefs.endpoint.baseUrl));
    return { prefs, apiKey: undefined, keyNotice: `The remembered API key was cleared because it was stored without the endpoint it belongs to; enter it again for ${target}.` };
  }
  const { apiKey, notice } = keyAfterEndpointChange(stored, prefs.endpoint.baseUrl);
  if (!apiKey) storage.removeItem(API_KEY_KEY);
  return notice ? { prefs, apiKey, keyNotice: notice } : { prefs, apiKey };
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

/** Settings for LlmClient; the key goes in here and nowhere else, still bound to its origin (the client checks it). */
export function toLlmSettings(e: EndpointPreferences, apiKey: BoundApiKey | undefined): LlmSettings {
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
  if (apiKey && apiKey.key !== '') settings.apiKey = { key: apiKey.key, origin: apiKey.origin };
  return settings;
}

export interface EngineSettingsState extends StoredPreferences {
  /** In memory; stored only with rememberKey. Bound to the origin of the base URL it was typed for. */
  apiKey: BoundApiKey | undefined;
  /** Why the key was cleared (the endpoint's origin changed), until a key is entered again. */
  keyNotice: string | undefined;
  setEndpoint(patch: Partial<EndpointPreferences>): void;
  setModel(role: LlmRole, model: string): void;
  /** The key as typed, bound to the current base URL's origin; '' forgets it. */
  setApiKey(key: string): void;
  setRememberKey(remember: boolean): void;
  choosePreset(preset: PresetName): void;
  setThreshold(name: 'tauStep' | 'tauLoop' | 'tauLen', value: number): void;
  setNonCriticalErrors(list: string[]): void;
  setRectifier(patch: Partial<RectifyParams>): void;
  setClarifier(patch: Partial<ClarifierPreferences>): void;
  setLive(patch: Partial<LivePreferences>): void;
  /** Take every engine's preferences from a saved settings object (an exported library). */
  applyPreferences(raw: unknown): void;
}

/** Every section of the settings, without the key or whether to remember one. */
function storedSections(s: StoredPreferences): Omit<StoredPreferences, 'rememberKey'> {
  return { version: 1, endpoint: s.endpoint, supervisor: s.supervisor, rectifier: s.rectifier, clarifier: s.clarifier, live: s.live };
}

/** The preferences as an export carries them: everything but the key (and not whether to remember one). */
export function exportablePreferences(s: StoredPreferences): Record<string, unknown> {
  return { ...storedSections(s) };
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
  const { prefs, apiKey, keyNotice } = loadPreferences(storage);
  const store = create<EngineSettingsState>((set, get) => {
    /** Every change of the endpoint goes through here, so no path can move the base URL away from the key's origin. */
    const setEndpointTo = (endpoint: EndpointPreferences, extra: Partial<StoredPreferences> = {}) => {
      const { apiKey, notice } = keyAfterEndpointChange(get().apiKey, endpoint.baseUrl);
      set(notice ? { ...extra, endpoint, apiKey, keyNotice: notice } : { ...extra, endpoint });
    };
    return {
      ...prefs,
      apiKey,
      keyNotice,
      setEndpoint: (patch) => setEndpointTo({ ...get().endpoint, ...patch }),
      setModel: (role, model) => {
        const models = { ...get().endpoint.models };
        if (model.trim() === '') delete models[role];
        else models[role] = model;
        setEndpointTo({ ...get().endpoint, models });
      },
      setApiKey: (key) =>
        set(key === '' ? { apiKey: undefined } : { apiKey: { key, origin: originOf(get().endpoint.baseUrl) ?? '' }, keyNotice: undefined }),
      setRememberKey: (remember) => set({ rememberKey: remember }),
      choosePreset: (preset) => set({ supervisor: { ...get().supervisor, preset, ...PRESETS[preset] } }),
      setThreshold: (name, value) => {
        const next = { ...get().supervisor, [name]: value };
        const p = next.preset !== 'custom' ? PRESETS[next.preset] : undefined;
        if (p && (p.tauStep !== next.tauStep || p.tauLoop !== next.tauLoop || p.tauLen !== next.tauLen)) next.preset = 'custom';
        set({ supervisor: next });
      },
      setNonCriticalErrors: (list) => set({ supervisor: { ...get().supervisor, nonCriticalErrors: list } }),
      setRectifier: (patch) => set({ rectifier: parseRectifierParams({ ...get().rectifier, ...patch }) }),
      setClarifier: (patch) => set({ clarifier: { ...get().clarifier, ...patch } }),
      setLive: (patch) => set({ live: { ...get().live, ...patch } }),
      applyPreferences: (raw) => {
        // Field by field, like stored preferences. A file never carries a key; the one in memory stays only while the
        // file's base URL keeps its origin. A file saved before a section existed leaves that section as it is.
        const given = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
        const prefs = parsePreferences(JSON.stringify(given));
        const extra: Partial<StoredPreferences> = { supervisor: prefs.supervisor };
        if ('rectifier' in given) extra.rectifier = prefs.rectifier;
        if ('clarifier' in given) extra.clarifier = prefs.clarifier;
        if ('live' in given) extra.live = prefs.live;
        setEndpointTo(prefs.endpoint, extra);
      },
    };
  });
  if (storage) {
    try {
      // Settings found under an older key are now in the record: write it once, which removes the old key.
      if (storage.getItem(OLD_RECTIFIER_KEY) !== null) savePreferences(storage, prefs, apiKey);
    } catch {
      // refused: read again from the old key next time
    }
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
