// The engines a live run switches on, turned into the runner's message gates (ADR 0011). This module sits above the
// runner and the engines it composes (supervisor, rectify-or-reject, edge clarifier); nothing below imports it. Used
// by the live worker (Runner, Batch, Fork) and the CLI's `batch`.
//   const make = await prepareGates(config, { client, cache });   // the pool embedded once (cached)
//   const { run } = await runTeam(task, team, { client, gates: make() }); // fresh gates per run (the filter has state)
import type { LlmClient } from '../../llm/client.ts';
import { clarifierGate } from '../clarifier/gate.ts';
import { preparePool, rectifierGate, type EmbeddingCache, type IndicatorPool, type PreparedPool } from '../rectifier/index.ts';
import { enginesOn, supervisorGate, type EngineConfig, type MessageGate } from '../runner/gates.ts';
import { filterParams } from '../supervisor/filter.ts';

export interface PrepareOptions {
  /** For the pool's embeddings (not part of any run's record); absent: BM25 retrieval. */
  client?: LlmClient;
  cache?: EmbeddingCache;
  signal?: AbortSignal;
}

function asPool(pool: { name: string; indicators: unknown[] }): IndicatorPool {
  const ok = pool.indicators.every((i) => {
    const x = i as { name?: unknown; evaluator_prompt?: { trigger_condition?: unknown } } | null;
    return !!x && typeof x.name === 'string' && typeof x.evaluator_prompt?.trigger_condition === 'string';
  });
  if (!ok) throw new Error(`indicator pool ${pool.name}: an indicator lacks a name or a trigger condition`);
  return pool as IndicatorPool;
}

/**
 * Prepare what the gates share (the rectifier's pool, embedded once) and return a factory of fresh gates for one run,
 * in the order rectifier → clarifier → supervisor: a message's content is audited first, the edge it travels on is
 * clarified next, and the supervisor sees what would be delivered.
 */
export async function prepareGates(config: EngineConfig | undefined, options: PrepareOptions = {}): Promise<() => MessageGate[]> {
  let pool: PreparedPool | undefined;
  const r = config?.rectifier;
  if (r && r.pool && r.pool.indicators.length > 0 && !r.params.zeroShot) {
    pool = await preparePool(asPool(r.pool), { client: options.client, cache: options.cache, signal: options.signal });
  }
  const on = enginesOn(config);
  return () =>
    on.map((engine): MessageGate => {
      if (engine === 'rectifier') return rectifierGate({ params: config!.rectifier!.params, pool });
      if (engine === 'clarifier') return clarifierGate({ heuristic: config!.clarifier!.heuristic, window: config!.clarifier!.window });
      const s = config!.supervisor!;
      return supervisorGate(filterParams(s), { heuristic: s.heuristic });
    });
}

export { enginesOn, type EngineConfig };
