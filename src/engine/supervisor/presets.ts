// Adaptive-filter parameters per benchmark (SupervisorAgent, Table 5).

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
