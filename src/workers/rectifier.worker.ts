// Rectify-or-reject off the main thread (SPEC §5.2): embedding the pool (cached in IndexedDB), replaying a run
// message by message, corpus statistics and mining. Each intervention and each endpoint call of a replay is reported
// as soon as it exists, so the page persists it before the next one.
import * as Comlink from 'comlink';
import type { Intervention, Run } from '../model/types.ts';
import { CallRecorder, LlmClient, modelFor, type LlmSettings } from '../llm/index.ts';
import {
  embeddingKey,
  estimateRectifierCost,
  mineIndicators,
  preparePool,
  reusedPool,
  rectifierStatistics,
  rectifyRunSteps,
  triggerText,
  type Domain,
  type IndicatorPool,
  type MessageSummary,
  type MiningProgress,
  type MiningResult,
  type PreparedPool,
  type RectifierStatistics,
  type RectifyParams,
  type RectifyProgress,
  type RectifyRunResult,
} from '../engine/rectifier/index.ts';
import type { CostEstimate } from '../llm/cost.ts';
import { idbEmbeddingCache } from '../llm/embedding-cache.ts';
import { jobResult, pumpPass, type JobResult, type PassEvents, type PassJob } from './pump.ts';
import { ferryHostApi, runOf, valueOf } from './run-ferry-host.ts';
import type { Ferried, FerriedJob, FerriedRun } from './run-ferry.ts';
import { RunningJobs } from './running-jobs.ts';

export interface RectifyJob extends PassJob<Intervention> {
  run: Run;
  pool: IndicatorPool;
  params: RectifyParams;
}

/** A rectify job as it crosses to the worker: its run and its pool through the ferry (ADR 0057, 0108). */
export type FerriedRectifyJob = Omit<FerriedJob<RectifyJob>, 'pool'> & { pool: Ferried<IndicatorPool> };

const poolOf = (f: Ferried<IndicatorPool>): IndicatorPool => valueOf(f, `pool ${f.head.name}`);

export interface RectifyJobEvents extends PassEvents<RectifyProgress, Intervention> {
  onPoolProgress(done: number, total: number): void;
}

export interface PoolEmbeddingStatus {
  count: number;
  model: string;
  fromCache: boolean;
  tokens: number;
}

const jobs = new RunningJobs();
/** The last prepared pool, so consecutive replays with the same pool and model do not even read the cache again. */
let lastPrepared: { key: string; pool: PreparedPool } | undefined;

async function prepared(pool: IndicatorPool, llm: LlmSettings | undefined, signal: AbortSignal | undefined, onProgress?: (d: number, t: number) => void): Promise<PreparedPool> {
  if (!llm) return preparePool(pool);
  // Pool embeddings are not part of any run's record: they are shared by every run and cached apart.
  const client = new LlmClient(llm, { recorder: new CallRecorder() });
  const key = embeddingKey('trigger', pool.indicators.map(triggerText), modelFor(llm, 'embeddings'));
  if (lastPrepared?.key === key && lastPrepared.pool.name === pool.name) return reusedPool(lastPrepared.pool);
  const p = await preparePool(pool, { client, cache: idbEmbeddingCache, signal, onProgress });
  lastPrepared = { key, pool: p };
  return p;
}

const api = {
  ...ferryHostApi,

  async embedPool(jobId: number, pool: Ferried<IndicatorPool>, llm: LlmSettings, onProgress: (done: number, total: number) => void): Promise<PoolEmbeddingStatus> {
    return jobs.run(jobId, async (signal) => {
      const p = await prepared(poolOf(pool), llm, signal, (d, t) => void onProgress(d, t));
      return { count: p.vectors?.length ?? 0, model: p.embedModel ?? '', fromCache: p.fromCache === true, tokens: p.usage?.total ?? 0 };
    });
  },

  /** The pass's result without its interventions: the page has each from `onItem` (JobResult). */
  async start(jobId: number, ferried: FerriedRectifyJob, events: RectifyJobEvents): Promise<JobResult<RectifyRunResult>> {
    const job = { ...ferried, run: runOf(ferried.run), pool: poolOf(ferried.pool) };
    return jobResult(
      await pumpPass(jobs, jobId, job, events, async (client, signal) => {
        const pool = await prepared(job.pool, job.params.zeroShot ? undefined : job.llm, signal, (d, t) => void events.onPoolProgress(d, t));
        return rectifyRunSteps(job.run, { pool, params: job.params, client, signal, previous: job.previous });
      }),
    );
  },

  /**
   * What a replay of these runs would cost before any request (issue 21): with `llm` (no key needed) the pool's
   * one-time embedding, marked cached when the IndexedDB embeddings cache holds it.
   */
  async estimate(runs: FerriedRun[], pool: Ferried<IndicatorPool>, params: RectifyParams, llm: LlmSettings | undefined): Promise<CostEstimate> {
    const embedModel = llm && !params.zeroShot ? modelFor(llm, 'embeddings') : undefined;
    return estimateRectifierCost(runs.map(runOf), { pool: poolOf(pool), params, embedModel, cache: idbEmbeddingCache, maxTokens: llm?.maxTokens });
  },

  stop(jobId: number): void {
    jobs.stop(jobId);
  },

  statistics(messages: MessageSummary[]): RectifierStatistics {
    return rectifierStatistics(messages);
  },

  async mine(jobId: number, ferried: FerriedRun[], pool: Ferried<IndicatorPool>, llm: LlmSettings, domain: Domain, kDedup: number, onProgress: (p: MiningProgress) => void): Promise<MiningResult> {
    return jobs.run(jobId, async (signal) => {
      const client = new LlmClient(llm, { recorder: new CallRecorder() });
      return await mineIndicators(ferried.map(runOf), poolOf(pool), { client, domain, kDedup, cache: idbEmbeddingCache, signal, onProgress: (p) => void onProgress(p) });
    });
  },
};

export type RectifierWorkerApi = typeof api;

Comlink.expose(api);
