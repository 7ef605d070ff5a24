// The LLM stage pass (SPEC §5.4): over the stages of the offline segmentation, a Planner writes the first task state,
// then per stage an Evaluator judges the stage's outcome against its active subtask and an Updater rewrites the task
// state; a last Evaluator + Updater round gives the closing state. The workflow per stage stays the observed one (the
// recording shows which agents ran; no model can recover an adapter's probabilities).
// Cancellable, resumable from stages already derived, and a failed call stops the pass with everything before it kept.
// Unreadable answers are asked once more, then fall back to the offline rule for that part, marked heuristic.
import { recordOf } from '../../model/record.ts';
import type { Run, Stage, Subtask, TokenUsage } from '../../model/types.ts';
import { Cancelled } from '../../llm/errors.ts';
import { drivePass, type EnginePass, type PassCallbacks, type PassEvent } from '../pass.ts';
import type { ChatResult, LlmClient } from '../../llm/client.ts';
import { engineCost, type EngineCost } from '../../llm/cost.ts';
import { DEFAULT_DIGEST_LIMITS, digestSegment, type DigestLimits } from './digest.ts';
import { CLOSING_STAGE_ID, deriveOfflineStages, stageId } from './offline.ts';
import { parseEvaluation, parseTaskState, type EvaluationAnswer, type Parsed, type TaskStateAnswer, type Verdict } from './parse.ts';
import { evaluatorMessages, JSON_REMINDER, plannerMessages, updaterMessages, type PromptMessage } from './prompts.ts';
import { appendAll } from '../../model/large-arrays.ts';

export interface StagePassProgress {
  /** Stages (the closing state included) derived so far. */
  done: number;
  total: number;
  calls: number;
  tokens: number;
}

export interface StagePassFailure {
  /** 0-based stage index; `total - 1` is the closing state. */
  stage: number;
  role: 'planner' | 'evaluator' | 'updater';
  message: string;
}

export interface StagePassResult {
  runId: string;
  status: 'complete' | 'cancelled' | 'failed';
  /** In order; stages carried over from `previous` included. */
  stages: Stage[];
  failure?: StagePassFailure;
  /** LLM tokens this pass spent (carried-over stages not counted). */
  tokens: TokenUsage;
  /** Endpoint calls this pass made, and the stages a complete pass has (closing state included). */
  calls: number;
  total: number;
  /** `calls` and `tokens` in the engines' common cost shape (no one-time cost); always set by the pass. */
  cost?: EngineCost;
}

export type StagePassEvent = PassEvent<StagePassProgress, Stage>;

export interface StagePassOptions {
  client: LlmClient;
  signal?: AbortSignal;
  /** Stages from an earlier, interrupted pass over this run: those that still line up are kept, not asked again. */
  previous?: readonly Stage[];
  limits?: DigestLimits;
}

const VERDICT_LABEL: Record<Verdict, string> = { success: 'success', needs_refinement: 'needs refinement', failure: 'failure' };
const LABEL_VERDICT: Record<string, Verdict> = recordOf({ success: 'success', 'needs refinement': 'needs_refinement', failure: 'failure' });
const STATUS_OF: Record<Verdict, Subtask['status']> = { success: 'DONE', needs_refinement: 'NEED-REFINE', failure: 'FAILED' };

class RoleFailed extends Error {
  constructor(
    readonly role: StagePassFailure['role'],
    readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

function addUsage(sum: TokenUsage, u: TokenUsage): void {
  sum.input += u.input;
  sum.output += u.output;
  sum.total += u.total;
  if (u.estimated) sum.estimated = true;
}

export async function* stagePassSteps(run: Run, options: StagePassOptions): EnginePass<StagePassEvent, StagePassResult> {
  const { client, signal } = options;
  const limits = options.limits ?? DEFAULT_DIGEST_LIMITS;
  const offline = deriveOfflineStages(run);
  const seg = offline.segmentation;
  const n = seg.segments.length;
  const total = n === 0 ? 0 : n + 1;
  const task = run.task ?? run.title;
  const digests = new Map<number, string>();
  const digest = (i: number) => {
    let d = digests.get(i);
    if (d === undefined) digests.set(i, (d = digestSegment(run, seg, seg.segments[i], limits)));
    return d;
  };
  const spent: TokenUsage = { input: 0, output: 0, total: 0 };
  let calls = 0;
  const stages: Stage[] = [];
  const progress = (): StagePassEvent => ({ type: 'progress', progress: { done: stages.length, total, calls, tokens: spent.total } });

  // Earlier stages are reused only as an unbroken prefix that still lines up with this segmentation.
  const previous = (options.previous ?? []).filter((s) => s.derivedBy === 'llm');
  let state: TaskStateAnswer = { subtasks: [] };
  for (let i = 0; i < total && i < previous.length; i++) {
    const kept = previous[i];
    const lines = i < n ? kept.id === stageId(i) && kept.startStepId === seg.steps[seg.segments[i].start].id : kept.id === CLOSING_STAGE_ID;
    if (!lines) break;
    stages.push(kept);
    state = { subtasks: kept.subtasks, nextSubtaskId: kept.nextSubtaskId, summary: kept.summary };
    yield { type: 'item', item: kept, resumed: true };
  }
  yield progress();

  let status: StagePassResult['status'] = 'complete';
  let failure: StagePassFailure | undefined;
  for (let i = stages.length; i < total; i++) {
    if (signal?.aborted) {
      status = 'cancelled';
      break;
    }
    const results: ChatResult[] = [];
    const notes: string[] = [];
    let heuristic = false;
    const ask = async <T,>(role: StagePassFailure['role'], messages: PromptMessage[], parse: (text: string) => Parsed<T>): Promise<Parsed<T>> => {
      try {
        const first = await client.chat({ role: 'supervisor', messages, json: true }, signal);
        results.push(first);
        const parsed = parse(first.text);
        if (parsed.value !== undefined) return parsed;
        const again = await client.chat(
          { role: 'supervisor', messages: [...messages, { role: 'assistant', content: first.text }, { role: 'user', content: JSON_REMINDER }], json: true },
          signal,
        );
        results.push(again);
        const second = parse(again.text);
        if (second.value !== undefined) second.repairs.unshift(`the first ${role} answer was unreadable (${parsed.problem}); asked again`);
        else second.problem = `${parsed.problem}; asked again: ${second.problem}`;
        return second;
      } catch (e) {
        throw new RoleFailed(role, e);
      }
    };
    const closing = i === n;
    let next: TaskStateAnswer;
    let evaluation: EvaluationAnswer | undefined;
    try {
      if (i === 0) {
        const planned = await ask('planner', plannerMessages(task, digest(0)), (t) => parseTaskState(t));
        appendAll(notes, planned.repairs.map((r) => `planner: ${r}`));
        if (planned.value) next = planned.value;
        else {
          heuristic = true;
          notes.push(`planner: ${planned.problem}; started from the offline work item`);
          next = { subtasks: [{ id: 's1', title: offline.stages[0].subtasks[0].title, status: 'TODO' }], nextSubtaskId: 's1' };
        }
        if (next.nextSubtaskId === undefined) next.nextSubtaskId = next.subtasks.find((s) => s.status === 'TODO')?.id;
      } else {
        const active = state.subtasks.find((s) => s.id === state.nextSubtaskId);
        const judged = await ask('evaluator', evaluatorMessages(task, active, digest(i - 1), i), parseEvaluation);
        appendAll(notes, judged.repairs.map((r) => `evaluator: ${r}`));
        if (judged.value) evaluation = judged.value;
        else {
          heuristic = true;
          const rule = offline.stages[i];
          evaluation = { verdict: LABEL_VERDICT[rule.verdict ?? ''] ?? 'needs_refinement', feedback: rule.feedback };
          notes.push(`evaluator: ${judged.problem}; used the offline rule's verdict`);
        }
        const verdictText = { ...evaluation, verdict: VERDICT_LABEL[evaluation.verdict] };
        const updated = await ask('updater', updaterMessages(task, state, verdictText, digest(i - 1), i, closing ? undefined : digest(i)), (t) => parseTaskState(t, state.subtasks));
        appendAll(notes, updated.repairs.map((r) => `updater: ${r}`));
        if (updated.value) next = updated.value;
        else {
          heuristic = true;
          notes.push(`updater: ${updated.problem}; kept the previous list, set the active subtask from the verdict`);
          next = fallbackUpdate(state, evaluation.verdict, closing ? undefined : offline.stages[i].subtasks[i]?.title);
        }
        // EvoMAS rule: DONE only on the evaluator's success.
        const was = state.nextSubtaskId;
        const marked = next.subtasks.find((s) => s.id === was);
        if (marked && marked.status === 'DONE' && evaluation.verdict !== 'success') {
          marked.status = STATUS_OF[evaluation.verdict];
          notes.push(`updater marked ${was} DONE although the evaluator said ${VERDICT_LABEL[evaluation.verdict]}; set it to ${marked.status}`);
        }
      }
    } catch (e) {
      const role = e instanceof RoleFailed ? e.role : 'planner';
      const cause = e instanceof RoleFailed ? e.cause : e;
      for (const r of results) addUsage(spent, r.usage);
      calls += results.length;
      if (cause instanceof Cancelled || signal?.aborted) status = 'cancelled';
      else {
        status = 'failed';
        failure = { stage: i, role, message: cause instanceof Error ? cause.message : String(cause) };
      }
      break;
    }

    const tokens: TokenUsage = { input: 0, output: 0, total: 0 };
    for (const r of results) addUsage(tokens, r.usage);
    addUsage(spent, tokens);
    calls += results.length;
    const base = offline.stages[i];
    const stage: Stage = {
      id: closing ? CLOSING_STAGE_ID : stageId(i),
      index: i,
      subtasks: next.subtasks,
      layers: base.layers,
      derivedBy: 'llm',
      heuristic,
    };
    if (!closing) {
      stage.startStepId = base.startStepId;
      stage.endStepId = base.endStepId;
    } else stage.closing = true;
    if (next.nextSubtaskId !== undefined) stage.nextSubtaskId = next.nextSubtaskId;
    if (next.summary !== undefined) stage.summary = next.summary;
    if (evaluation) {
      stage.verdict = VERDICT_LABEL[evaluation.verdict];
      if (evaluation.confidence !== undefined) stage.confidence = evaluation.confidence;
      if (evaluation.feedback !== undefined) stage.feedback = evaluation.feedback;
    }
    if (base.plan) stage.plan = base.plan;
    if (notes.length > 0) stage.notes = notes;
    if (results.length > 0) {
      stage.llmCallIds = results.filter((r) => !r.replayed).map((r) => r.record.id);
      stage.tokens = tokens;
    }
    stages.push(stage);
    state = next;
    yield { type: 'item', item: stage, resumed: false };
    yield progress();
  }
  const cost = engineCost({ calls, tokens: { input: spent.input, output: spent.output, total: spent.total }, estimated: spent.estimated === true });
  return { runId: run.id, status, stages, failure, tokens: spent, calls, total, cost };
}

/** When the Updater's answer cannot be read: the list as it was, the active subtask judged by the verdict, the stage's work item next. */
function fallbackUpdate(state: TaskStateAnswer, verdict: Verdict, nextTitle: string | undefined): TaskStateAnswer {
  const subtasks = state.subtasks.map((s) => (s.id === state.nextSubtaskId ? { ...s, status: STATUS_OF[verdict] } : { ...s }));
  let nextSubtaskId: string | undefined;
  if (nextTitle !== undefined) {
    const used = subtasks.reduce((m, s) => Math.max(m, Number(/^s(\d+)$/.exec(s.id)?.[1] ?? 0)), 0);
    nextSubtaskId = `s${used + 1}`;
    subtasks.push({ id: nextSubtaskId, title: nextTitle, status: 'TODO' });
  }
  return { subtasks, nextSubtaskId, summary: state.summary };
}

export function stagePass(run: Run, options: StagePassOptions & PassCallbacks<StagePassProgress, Stage>): Promise<StagePassResult> {
  return drivePass(stagePassSteps(run, options), options);
}
