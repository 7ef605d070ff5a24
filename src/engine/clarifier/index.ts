// Public surface of the edge clarifier (AgentAsk, SPEC §5.3).
// One edge (e.g. from a live runner, per handoff):
//   const c = await clarifyEdge(state, { client });        // client undefined = offline heuristic flagger
//   c.type, c.toAgent, c.question, c.reply, c.revisedMessage, c.tokens, c.latencyMs, c.resolved
// A recorded run: `clarifyRun(run, { client, previous, signal, onProgress, onItem })` → interventions
// (engine 'clarifier', one per handoff) and `summary` (asked per type, one-shot rate, extra cost in % of the run).
export { ERROR_TYPES, CLARIFIER_TYPES, TYPE_INFO, PAPER_STATS, isClarifierType, type ErrorType, type ClarifierType, type Addressee, type TypeInfo } from './taxonomy.ts';
export { edgeStates, edgeStateList, edgeStatesSlices, knownEdgeStates, EdgeStateList, DEFAULT_WINDOW, type EdgeState, type EdgeAgent, type HistoryEntry } from './edges.ts';
export { clarifierMessages, clarifierSystemPrompt, addresseeMessages, reviseMessage } from './prompts.ts';
export { parseClarifierAnswer, type ClarifierDecision, type ParsedClarifier } from './parse.ts';
export { flagEdge, type HeuristicFlag } from './heuristic.ts';
export { clarifyEdge, llmAnswerer, ClarificationFailed, type EdgeClarification, type ClarifyEdgeOptions, type Answerer } from './clarify-edge.ts';
export {
  clarifyRun,
  clarifyRunSteps,
  summarize,
  toIntervention,
  clarificationOf,
  clarificationsByHandoff,
  clarifierInterventionId,
  type ClarifyResult,
  type ClarifySummary,
  type ClarifyProgress,
  type ClarifyFailure,
  type ClarifyEvent,
  type ClarifyRunOptions,
  clarifierCost,
} from './pass.ts';
export {
  EDGE_GATE_MODES,
  DEFAULT_EDGE_GATE,
  DEFAULT_SAMPLE_RATE,
  parseEdgeGate,
  edgeGateLabel,
  routeEdge,
  sampleValue,
  type EdgeGate,
  type EdgeGateMode,
  type EdgeRoute,
} from './edge-gate.ts';
export { estimateClarifierCost, DECISION_ANSWER_TOKENS, REPLY_TOKENS, type ClarifierEstimateOptions } from './estimate.ts';
export {
  AGENTASK_TAXONOMY,
  mapDatasetLabel,
  datasetLabels,
  humanLabels,
  withHumanLabel,
  labelsBySource,
  agreement,
  humanLabelId,
  LABEL_SOURCES,
  type LabelSource,
  type DatasetLabel,
  type Agreement,
  type Mapping,
} from './labels.ts';
export { clarifierGate, gateEdgeState, type ClarifierGateOptions } from './gate.ts';
