// Adaptive-filter parameters per benchmark (SupervisorAgent, Table 5): data the settings store holds too, so they
// live in src/model/engine-params.ts; re-exported here for the engine's own modules.
export { DEFAULT_PRESET, isPresetName, PRESET_NAMES, PRESETS, type FilterThresholds, type PresetName } from '../../model/engine-params.ts';
