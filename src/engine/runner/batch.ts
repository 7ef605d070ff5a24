// Batches (SPEC §5.5): a task set × arms (baseline, supervised), with concurrency, a token budget, progress,
// pause/resume and scoring. The state is a plain object the caller persists after every change (IndexedDB in the
// studio), so a reload, a cancel or a failing endpoint never costs a finished task: resume runs only what is left.
import type { LlmClient } from '../../llm/client.ts';
import { LlmError } from '../../llm/errors.ts';
import { emptyRecord, sameFlatRecord } from '../../model/record.ts';
import type { Run } from '../../model/types.ts';
import { filterParams } from '../supervisor/filter.ts';
import { supervisorGate, type EngineConfig, type MessageGate } from './gates.ts';
import { runTeam, type TeamConfig } from './runner.ts';
import type { LiveTask } from './tasks.ts';

export type Arm = 'baseline' | 'supervised';

export interface BatchItem {
  key: string;
  taskId: string;
  arm: Arm;
  status: 'pending' | 'running' | 'done' | 'failed';
  runId?: string;
  /** 1 correct, 0 wrong; absent when the task has no reference the runner can check. */
  score?: number;
  finalAnswer?: string;
  tokens?: number;
  error?: string;
  attempts: number;
}

export interface BatchSpec {
  id: string;
  name: string;
  dataset: string;
  tasks: LiveTask[];
  arms: Arm[];
  team: TeamConfig;
  concurrency: number;
  /** Tokens the whole batch may spend (agents + supervisor); 0 = no limit. */
  tokenBudget: number;
  /** Supervisor thresholds for the supervised arm. */
  supervisor: { tauStep: number; tauLoop: number; tauLen: number };
  /**
   * The engines of the engine-on arm (`supervised`) and their settings. Absent (batches made before the rectifier
   * and clarifier were wired): the supervisor alone, with `supervisor`.
   */
  engines?: EngineConfig;
  createdAt: number;
}

export type BatchStatus = 'ready' | 'running' | 'paused' | 'stopped' | 'complete';

export interface BatchState {
  spec: BatchSpec;
  items: BatchItem[];
  status: BatchStatus;
  tokensUsed: number;
  /** Why the batch stopped (endpoint failure, budget), in words. */
  message?: string;
  updatedAt: number;
}

/** A stored value that has the shape of a batch state (read back from IndexedDB or a state file). */
export function isBatchState(v: unknown): v is BatchState {
  const s = v as BatchState | null;
  return !!s && typeof s === 'object' && !!s.spec && typeof s.spec.id === 'string' && Array.isArray(s.items) && Array.isArray(s.spec.tasks) && typeof s.status === 'string';
}

/** Field by field (items are flat records; states often arrive as copies, so identity says nothing). */
export const sameItem: (a: BatchItem | undefined, b: BatchItem) => boolean = sameFlatRecord;

export function newBatch(spec: BatchSpec): BatchState {
  const items: BatchItem[] = [];
  for (const task of spec.tasks) {
    for (const arm of spec.arms) items.push({ key: `${task.id}:${arm}`, taskId: task.id, arm, status: 'pending', attempts: 0 });
  }
  return { spec, items, status: 'ready', tokensUsed: 0, updatedAt: Date.now() };
}

export function batchRunId(batchId: string, item: Pick<BatchItem, 'taskId' | 'arm'>): string {
  return `${batchId}:${item.taskId}:${item.arm}`;
}

export interface BatchSummary {
  total: number;
  done: number;
  failed: number;
  pending: number;
  perArm: Record<string, { done: number; scored: number; correct: number; tokens: number }>;
}

export function summarizeBatch(state: BatchState): BatchSummary {
  const perArm: BatchSummary['perArm'] = emptyRecord(); // arm names come from the batch file or journal
  let done = 0;
  let failed = 0;
  for (const it of state.items) {
    const a = (perArm[it.arm] ??= { done: 0, scored: 0, correct: 0, tokens: 0 });
    if (it.status === 'done') {
      done++;
      a.done++;
      a.tokens += it.tokens ?? 0;
      if (it.score !== undefined) {
        a.scored++;
        a.correct += it.score;
      }
    } else if (it.status === 'failed') failed++;
  }
  return { total: state.items.length, done, failed, pending: state.items.length - done - failed, perArm };
}

export interface ItemResult {
  run: Run;
  /** Tokens spent on this item (agents + engines). */
  tokens: number;
  status: 'complete' | 'failed' | 'cancelled' | 'stopped';
  error?: string;
  /** The failure came from the endpoint (after the client's own retries): the batch stops instead of moving on. */
  endpointFailure?: boolean;
}

export interface BatchHooks {
  runItem(item: BatchItem, task: LiveTask, signal: AbortSignal): Promise<ItemResult>;
  /** Called after every change of the state (persist it here); awaited, so a state is stored before the next. */
  save(state: BatchState): Promise<void> | void;
  /** A finished item's run (add it to the library before its state says done). */
  onRun?(run: Run, item: BatchItem): Promise<void> | void;
  signal?: AbortSignal;
}

/** Items a resume would run: pending ones, and failed or interrupted ones again. */
export function resumable(state: BatchState): BatchState {
  return {
    ...state,
    status: 'ready',
    message: undefined,
    items: state.items.map((it) => (it.status === 'done' ? it : { ...it, status: 'pending', error: undefined })),
  };
}

/** Run every pending item; resolves with the final state (complete, paused by the signal, or stopped). */
export async function runBatch(initial: BatchState, hooks: BatchHooks): Promise<BatchState> {
  let state: BatchState = { ...resumable(initial), status: 'running' };
  const tasks = new Map(state.spec.tasks.map((t) => [t.id, t]));
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort();
  hooks.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (hooks.signal?.aborted) controller.abort();
  let stopMessage: string | undefined;
  // Saves are chained so a slow store never sees states out of order.
  let saving: Promise<void> = Promise.resolve();
  const commit = (next: BatchState) => {
    state = { ...next, updatedAt: Date.now() };
    const snapshot = state;
    saving = saving.then(() => hooks.save(snapshot));
    return saving;
  };
  const setItem = (key: string, patch: Partial<BatchItem>) =>
    commit({ ...state, items: state.items.map((it) => (it.key === key ? { ...it, ...patch } : it)) });

  await commit(state);
  const budget = state.spec.tokenBudget > 0 ? state.spec.tokenBudget : Infinity;
  const worker = async () => {
    for (;;) {
      if (controller.signal.aborted) return;
      if (state.tokensUsed >= budget) {
        stopMessage ??= `token budget reached: ${state.tokensUsed} of ${state.spec.tokenBudget} tokens spent`;
        controller.abort();
        return;
      }
      const item = state.items.find((it) => it.status === 'pending');
      if (!item) return;
      const task = tasks.get(item.taskId);
      if (!task) {
        await setItem(item.key, { status: 'failed', error: `task ${item.taskId} is not in the task set` });
        continue;
      }
      await setItem(item.key, { status: 'running', attempts: item.attempts + 1 });
      let result: ItemResult;
      // Each item gets its own signal, so listeners the client leaves on it go away with the item.
      const itemController = new AbortController();
      const relay = () => itemController.abort();
      controller.signal.addEventListener('abort', relay, { once: true });
      try {
        result = await hooks.runItem(item, task, itemController.signal);
      } catch (e) {
        result = {
          run: undefined as unknown as Run,
          tokens: 0,
          status: 'failed',
          error: e instanceof Error ? e.message : String(e),
          endpointFailure: e instanceof LlmError,
        };
      } finally {
        controller.signal.removeEventListener('abort', relay);
      }
      const spent = { ...state, tokensUsed: state.tokensUsed + result.tokens };
      state = spent;
      if (result.status === 'complete') {
        await hooks.onRun?.(result.run, item);
        await setItem(item.key, {
          status: 'done',
          runId: result.run.id,
          tokens: result.tokens,
          score: result.run.outcome.score,
          finalAnswer: result.run.outcome.finalAnswer,
          error: undefined,
        });
      } else if (result.status === 'cancelled' || controller.signal.aborted) {
        // Interrupted by a pause: nothing of it counts as done; a resume runs it again.
        await setItem(item.key, { status: 'pending' });
      } else {
        await setItem(item.key, { status: 'failed', error: result.error ?? 'failed' });
        if (result.endpointFailure) {
          stopMessage ??= `the endpoint failed on task ${item.taskId} (${item.arm}): ${result.error ?? 'failed'}; resume to run what is left`;
          controller.abort();
          return;
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, state.spec.concurrency) }, worker));
  } finally {
    hooks.signal?.removeEventListener('abort', onOuterAbort);
  }
  const left = state.items.some((it) => it.status !== 'done' && it.status !== 'failed');
  const status: BatchStatus = stopMessage ? 'stopped' : left ? 'paused' : 'complete';
  await commit({ ...state, status, message: stopMessage });
  return state;
}

/** Tokens a run spent: its model calls plus what its engines spent. */
export function runTokens(run: Run): number {
  let n = 0;
  for (const s of run.steps) n += s.usage?.total ?? 0;
  for (const iv of run.interventions) n += iv.tokens?.total ?? 0;
  return n;
}

export interface BatchItemOptions {
  spec: BatchSpec;
  /** A client for this item's run (its own budget); the caller records its calls. */
  client: LlmClient;
  /** Where the supervisor's calls go (the same endpoint, role `supervisor`); defaults to `client`. */
  supervisorClient?: LlmClient;
  /** Fresh gates for one run of the engine-on arm (from `spec.engines`); default: the supervisor with `spec.supervisor`. */
  gates?: () => MessageGate[];
}

/** One item of a batch: the team on the task, with the engines' gates in the engine-on (`supervised`) arm. */
export async function runBatchItem(item: BatchItem, task: LiveTask, signal: AbortSignal, options: BatchItemOptions): Promise<ItemResult> {
  const { spec, client } = options;
  const gates = item.arm !== 'supervised' ? [] : options.gates ? options.gates() : [supervisorGate(filterParams(spec.supervisor))];
  const tags: Record<string, string> = { dataset: spec.dataset, arm: item.arm, task: `${spec.dataset}:${task.id}`, batch: spec.id, domain: task.domain };
  if (task.level !== undefined) tags.level = task.level;
  const result = await runTeam(task, { ...spec.team, domain: task.domain }, {
    client,
    gateClient: options.supervisorClient,
    gates,
    signal,
    runId: batchRunId(spec.id, item),
    tags,
    title: `${spec.dataset} ${task.id} · ${item.arm}`,
  });
  return { run: result.run, tokens: runTokens(result.run), status: result.status, error: result.error, endpointFailure: result.endpointFailure };
}
