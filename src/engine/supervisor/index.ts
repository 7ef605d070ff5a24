// Public surface of the runtime supervisor engine (SPEC §5.1). Typical use from the studio or a worker:
//   const client = settings ? new LlmClient(settings, { recorder }).forRun() : undefined;   // undefined = offline heuristics
//   const result = await shadowReplay(run, { params: filterParams(PRESETS.gaia), client, signal, previous,
//                                            onProgress, onItem });
//   result.interventions, result.tokens (estimates, labelled), result.status / result.failure; recorder.records → session.llmCalls.
export { AdaptiveFilter, filterParams, filterSteps, describeSignature, SUMMARY_MARKER, type FilterParams, type SupervisorContext, type Trigger, type FilterRule } from './filter.ts';
export { PRESETS, PRESET_NAMES, DEFAULT_PRESET, isPresetName, type PresetName, type FilterThresholds } from './presets.ts';
export { ALLOWED_ACTIONS, type SupervisorAction, type Decision } from './actions.ts';
export { buildContextWindow, type ContextWindow } from './context-window.ts';
export { parseDecision } from './decision.ts';
export { purifyObservation, heuristicDecision } from './heuristics.ts';
export { superviseTrigger, triggerReason, SupervisionFailed } from './supervisor.ts';
export {
  shadowReplay,
  shadowReplaySteps,
  accountTokens,
  counterfactualSavings,
  type CounterfactualSavings,
  type ShadowOptions,
  type ShadowResult,
  type ShadowEvent,
  type ShadowProgress,
  type ShadowFailure,
  type TokenSummary,
} from './shadow.ts';
export { supervisorCost } from './shadow.ts';
export { estimateSupervisorCost, DECISION_ANSWER_TOKENS, PURIFIED_SHARE, type SupervisorEstimateOptions } from './estimate.ts';
export { shadowRunId, isShadowRun, deriveShadowRun, shadowSupervisedRun, shadowArms, methodOf, type DeriveOptions } from './shadow-run.ts';
