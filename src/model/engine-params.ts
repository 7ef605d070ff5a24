// The engines' parameters as data: what the settings store keeps, the session exports and the engines read (SPEC §2,
// §5.1-§5.3). Pure values and types, so the store can hold and check them without importing an engine; the engines
// re-export them from their own modules.

// ——— Supervisor: adaptive-filter thresholds per benchmark (SupervisorAgent, Table 5) ———

export interface FilterThresholds {
  /** Periodic check every τ_step action steps of an agent run. */
  tauStep: number;
  /** Loop when the last τ_loop action signatures are identical. */
  tauLoop: number;
  /** Excessive when the observation is longer than τ_len code points. */
  tauLen: number;
}

export const PRESETS = {
  gaia: { tauStep: 8, tauLoop: 5, tauLen: 3000 },
  humaneval: { tauStep: 6, tauLoop: 5, tauLen: 3000 },
  mbpp: { tauStep: 4, tauLoop: 3, tauLen: 3000 },
  aime: { tauStep: 4, tauLoop: 3, tauLen: 3000 },
  drop: { tauStep: 4, tauLoop: 3, tauLen: 3000 },
  'gsm-hard': { tauStep: 4, tauLoop: 3, tauLen: 3000 },
  oagents: { tauStep: 6, tauLoop: 3, tauLen: 10000 },
} as const satisfies Record<string, FilterThresholds>;

export type PresetName = keyof typeof PRESETS;

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/**
 * GAIA is the default: the recorded traces we ship and most smolagents traces people bring are GAIA-style
 * web-research runs, the setting the paper tuned these values on.
 */
export const DEFAULT_PRESET: PresetName = 'gaia';

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}

// ——— Rectifier: the indicator pool's format and the gate's parameters (SPEC §5.2) ———

/** One failure indicator in the published pool format (extra fields kept). */
export interface Indicator {
  name: string;
  detailed_definition: string;
  evaluator_prompt: { trigger_condition: string; risk_alert?: string; [k: string]: unknown };
  metadata?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface IndicatorPool {
  /** Shown in the studio and in reports (usually the file name). */
  name: string;
  indicators: Indicator[];
}

export type Domain = 'math' | 'code' | 'generic';
export const DOMAINS: readonly Domain[] = ['math', 'code', 'generic'];

export interface RectifyParams {
  /** K_act: indicators retrieved per attempt. */
  k: number;
  /** T_max: attempts before a message is rejected. */
  tMax: number;
  /** γ: fewer surviving messages than this restarts the run without auditing. */
  gamma: number;
  /** Which auditor prompt (and which general indicator in zero-shot mode). */
  domain: Domain;
  /** Audit every message against the domain's single general indicator instead of retrieving from the pool. */
  zeroShot: boolean;
  /** Extra tries of an audit whose answer cannot be read before it is dropped. */
  auditRetries: number;
}

export const DEFAULT_RECTIFY_PARAMS: RectifyParams = { k: 5, tMax: 3, gamma: 1, domain: 'generic', zeroShot: false, auditRetries: 1 };

// ——— Clarifier (SPEC §5.3) ———

/** History window H: earlier handoffs of the sender or receiver the clarifier sees by default. */
export const DEFAULT_WINDOW = 3;

/**
 * Which edges of a recorded run go to the clarifier model (issue 21): all, only those the LLM-free flagger flags, or
 * those plus a seeded sample of the rest. Kept here so the settings store and the clarifier share one list.
 */
export const EDGE_GATE_MODES = ['all', 'flagged', 'flagged+sample'] as const;
export type EdgeGateMode = (typeof EDGE_GATE_MODES)[number];
