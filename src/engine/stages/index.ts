// Public surface of the stage engine (SPEC §5.4, EvoMAS). Typical use from the studio or a worker:
//   const offline = deriveOfflineStages(run);               // heuristic, no model: offline.stages, offline.note
//   const result = await stagePass(run, { client, signal, previous: run.stages, onItem, onProgress });
//   result.stages (derivedBy 'llm'), result.status / result.failure; recorder.records → session.llmCalls.
//   const placed = placeStages(run.stages, positionOf, length); stageIndexAt(placed, position) for the playhead.
export { findManager, segmentRun, turnsOf, type Segment, type Segmentation, type SegmentMode, type Turn } from './segment.ts';
export { deriveOfflineStages, delegatedTask, observedLayers, planOf, workItemOf, stageId, subtaskId, CLOSING_STAGE_ID, type StageDerivation, type WorkItem } from './offline.ts';
export { digestSegment, DEFAULT_DIGEST_LIMITS, type DigestLimits } from './digest.ts';
export { parseTaskState, parseEvaluation, normaliseStatus, type TaskStateAnswer, type EvaluationAnswer, type Verdict } from './parse.ts';
export { plannerMessages, evaluatorMessages, updaterMessages, ROLE_MARKERS } from './prompts.ts';
export { stagePass, stagePassSteps, type StagePassOptions, type StagePassResult, type StagePassProgress, type StagePassFailure, type StagePassEvent } from './pass.ts';
export { placeStages, stageIndexAt, boardChanges, selectionMatrix, type PlacedStages, type SubtaskChange, type SelectionMatrix } from './lookup.ts';
export { estimateStagesCost, TASK_STATE_TOKENS, EVALUATION_TOKENS, type StagesEstimateOptions } from './estimate.ts';
