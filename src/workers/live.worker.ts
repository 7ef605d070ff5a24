// Live runs off the main thread (SPEC §5.5): the built-in runner, forks and batches. Every recorded endpoint call,
// finished run and batch state is reported as soon as it exists, and the batch waits until the page has stored each
// state, so a pause, a failure or a closed tab never loses a finished task.
import * as Comlink from 'comlink';
import type { Intervention, LlmCallRecord, Run } from '../model/types.ts';
import { idbEmbeddingCache } from '../llm/embedding-cache.ts';
import { CallRecorder, LlmClient, type LlmSettings } from '../llm/index.ts';
import { prepareGates } from '../engine/live-engines/index.ts';
import {
  forkRun,
  runBatch,
  runBatchItem,
  runTeam,
  type BatchState,
  type EngineConfig,
  type ForkEdit,
  type ForkResult,
  type LiveTask,
  type TeamConfig,
  type TeamRunResult,
  type TurnTreatment,
} from '../engine/runner/index.ts';
import { ferryHostApi, runOf } from './run-ferry-host.ts';
import type { FerriedRun } from './run-ferry.ts';
import { RunningJobs } from './running-jobs.ts';
import { estimateBatchCost } from '../engine/runner/estimate.ts';
import type { CostEstimate } from '../llm/cost.ts';
import type { BatchSpec } from '../engine/runner/batch.ts';

/** Which engines are on (supervisor, rectify-or-reject, clarifier) and their settings; see `EngineConfig`. */
export type EngineSwitches = EngineConfig;

export interface TeamJob {
  task: LiveTask;
  team: TeamConfig;
  llm: LlmSettings;
  engines: EngineSwitches;
  runId: string;
  tags: Record<string, string>;
}

export interface ForkJob {
  parent: Run;
  stepId: string;
  edit: ForkEdit;
  fromIntervention?: Intervention;
  /** How each agent's turns are treated (model / tool / scripted), where the person changed the default. */
  treatments?: Record<string, TurnTreatment>;
  /** Absent: replay only; the fork stops at the first call whose input changed. */
  llm?: LlmSettings;
  engines: EngineSwitches;
}

export interface LiveEvents {
  onCall(record: LlmCallRecord): void;
  onTurn(text: string): void;
}

export interface BatchEvents {
  onCall(record: LlmCallRecord): void;
  /** Awaited: the batch goes on once the page has stored the state. */
  onState(state: BatchState): Promise<void>;
  onRun(run: Run): Promise<void>;
}

const jobs = new RunningJobs();

/**
 * Gates for the switched-on engines. The rectifier's pool is embedded once per job through its own client (those
 * calls belong to no run; cached in IndexedDB, as on the Rectify page); offline it is searched with BM25.
 */
async function gatesFor(engines: EngineSwitches | undefined, llm: LlmSettings | undefined, signal: AbortSignal) {
  const client = llm && engines?.rectifier?.pool ? new LlmClient(llm, { recorder: new CallRecorder() }) : undefined;
  return prepareGates(engines, { client, cache: client ? idbEmbeddingCache : undefined, signal });
}

const api = {
  ...ferryHostApi,

  /** What a batch will cost per arm before it runs (issue 21), tokenized here, not on the page. */
  estimateBatch(spec: Pick<BatchSpec, 'tasks' | 'arms' | 'team' | 'engines' | 'supervisor'>, maxTokens?: number, embedModel?: string): Promise<CostEstimate> {
    // With an endpoint the pool is embedded (cached in IndexedDB, as gatesFor does): the estimate checks that cache.
    return estimateBatchCost(spec, { maxTokens, embedModel, cache: embedModel ? idbEmbeddingCache : undefined });
  },

  runTeam(jobId: number, job: TeamJob, events: LiveEvents): Promise<TeamRunResult> {
    return jobs.run(jobId, async (signal) => {
      const client = new LlmClient(job.llm, { recorder: new CallRecorder((r) => void events.onCall(r)) });
      const gates = await gatesFor(job.engines, job.llm, signal);
      return runTeam(job.task, job.team, {
        client,
        gates: gates(),
        signal,
        runId: job.runId,
        tags: job.tags,
        onEvent: (e) => void events.onTurn(`turn ${e.step + 1}: ${e.agent}`),
      });
    });
  },

  fork(jobId: number, ferried: Omit<ForkJob, 'parent'> & { parent: FerriedRun }, events: LiveEvents): Promise<ForkResult> {
    const job: ForkJob = { ...ferried, parent: runOf(ferried.parent) };
    return jobs.run(jobId, async (signal) => {
      const client = job.llm ? new LlmClient(job.llm, { recorder: new CallRecorder((r) => void events.onCall(r)) }) : undefined;
      const gates = await gatesFor(job.engines, job.llm, signal);
      return forkRun(job.parent, {
        stepId: job.stepId,
        edit: job.edit,
        fromIntervention: job.fromIntervention,
        treatments: job.treatments,
        client,
        gates: gates(),
        signal,
        onTurn: (p, total, origin) => void events.onTurn(`step ${p + 1} of ${total}: ${origin}`),
      });
    });
  },

  runBatch(jobId: number, state: BatchState, llm: LlmSettings, events: BatchEvents): Promise<BatchState> {
    return jobs.run(jobId, async (signal) => {
      const base = new LlmClient(llm, { recorder: new CallRecorder((r) => void events.onCall(r)) });
      // Batches made before the engine choice existed carry no `engines`: the supervisor alone, as then.
      const gates = state.spec.engines ? await gatesFor(state.spec.engines, llm, signal) : undefined;
      return runBatch(state, {
        signal,
        runItem: (item, task, itemSignal) => runBatchItem(item, task, itemSignal, { spec: state.spec, client: base.forRun(), gates }),
        save: (s) => events.onState(s),
        onRun: (run) => events.onRun(run),
      });
    });
  },

  /** Stop a job after the call in flight (which is aborted); its partial result comes back from the job's call. */
  stop(jobId: number): void {
    jobs.stop(jobId);
  },
};

export type LiveWorkerApi = typeof api;

Comlink.expose(api);
