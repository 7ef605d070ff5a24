// Public surface of the live-run engine (SPEC §5.5): the built-in runner, fork-and-continue, batches, and the
// message gates through which engines (supervisor, rectifier, clarifier; ADR 0011) act on messages.
//   const { run } = await runTeam(task, defaultTeam('math'), { client, gates: [supervisorGate(filterParams(PRESETS.aime))] });
//   const fork = await forkRun(parent, { stepId, edit: { kind: 'replace', text }, client });   // fork.run.parentRunId === parent.id
//   const final = await runBatch(newBatch(spec), { runItem: (item, task, signal) => runBatchItem(item, task, signal, { spec, client }), save });
export { turnInput, callKey, toolKey, type VisibleTurn, type Speaker, type CallMessage } from './conversation.ts';
export { supervisorGate, asActionStep, enginesOn, ENGINE_AVAILABILITY, type EngineConfig, type MessageGate, type GateContext, type GateVerdict, type EngineName, type EngineAvailability } from './gates.ts';
export { RunBuilder, applyGates, type RunStatus, type TurnSource } from './run-builder.ts';
export { runTeam, defaultTeam, teamProblem, scoreOutcome, DECIDER_ID, type TeamConfig, type TeamRole, type TeamRunOptions, type TeamRunResult } from './runner.ts';
export { forkRun, forkProblem, defaultTreatment, editFromIntervention, speakerFor, type ForkEdit, type ForkOptions, type ForkResult, type ForkStats, type TurnTreatment } from './fork.ts';
export {
  newBatch,
  runBatch,
  runBatchItem,
  resumable,
  summarizeBatch,
  batchRunId,
  runTokens,
  type Arm,
  type BatchItem,
  type BatchSpec,
  type BatchState,
  type BatchStatus,
  type BatchSummary,
  type ItemResult,
} from './batch.ts';
export { parseTaskSet, TaskSetError, type LiveTask, type TaskDomain } from './tasks.ts';
export { extractMathAnswer, answersMatch, referenceAnswer, lastBoxed, lastNumber, extractCode } from './scoring.ts';
export { MATH_ROLES, CODE_ROLES, DECIDER_PROMPTS, SELECTOR_PROMPT, recordedAgentPrompt } from './prompts.ts';
