// `rectify <file> --pool <file> [--offline | --endpoint URL --model M --embed-model E] [--k 5 --t-max 3 --gamma 1]
// [--domain math|code|generic] [--zero-shot] --json` (SPEC §7): replay rectify-or-reject pruning over every chat-style
// run in a trace file and report, per agent message, its attempts and final state.
import { existsSync, readFileSync } from 'node:fs';
import { CallRecorder, costJson, DEFAULT_LLM_SETTINGS, LlmClient, sumCosts, type EngineCost } from '../llm/index.ts';
import { printEstimate } from './cost.ts';
import {
  DEFAULT_RECTIFY_PARAMS,
  DOMAINS,
  parsePool,
  PoolFormatError,
  preparePool,
  poolCost,
  estimateRectifierCost,
  rectifyRun,
  type Attempt,
  type Domain,
  type IndicatorPool,
  type RectifyParams,
  type RectifyRunResult,
} from '../engine/rectifier/index.ts';
import type { Run } from '../model/types.ts';
import { CliError, numberFlag, parseArgs, printJson, readTraceFiles, stringFlag, type ParsedArgs, endpointFlags, endpointSettings } from './io.ts';
import { rectifierAudit } from '../engine/rectifier/details.ts';
import { printOut, printError } from './terminal.ts';

export const RECTIFY_USAGE =
  'rectify <file> --pool <file> [--offline | --endpoint URL --model M [--embed-model E]] [--k 5 --t-max 3 --gamma 1] ' +
  '[--domain math|code|generic] [--zero-shot] [--dry-run] [--json]   rectify-or-reject pruning per agent message (offline: retrieval only; --dry-run prints the calls and estimated tokens, the pool\'s one-time embeddings apart, and sends nothing)';

function whole(args: ParsedArgs, name: string, min: number): number | undefined {
  const n = numberFlag(args, name);
  if (n !== undefined && (!Number.isInteger(n) || n < min)) throw new CliError('usage', `--${name} must be a whole number ≥ ${min}, got ${n}`);
  return n;
}

function readPool(file: string): IndicatorPool {
  if (!existsSync(file)) throw new CliError(file, 'no such file');
  try {
    return parsePool(readFileSync(file, 'utf8'), file);
  } catch (e) {
    if (e instanceof PoolFormatError) throw new CliError(file, `indicator pool at ${e.message}`);
    throw e;
  }
}

const attemptReport = (a: Attempt) => ({
  attempt: a.attempt,
  retrieval: a.retrieval,
  retrieved: a.retrieved.map((r) => ({ name: r.name, score: Math.round(r.score * 10000) / 10000 })),
  flawed: a.audits.filter((x) => x.flawed).map((x) => x.indicator),
  dropped_audits: a.audits.filter((x) => x.dropped).map((x) => x.indicator),
});

function report(run: Run, r: RectifyRunResult) {
  const stepById = new Map(run.steps.map((s) => [s.id, s]));
  return {
    id: r.runId,
    status: r.status,
    mode: r.offline ? 'offline-retrieval-only' : 'endpoint',
    messages: r.interventions.map((iv) => {
      const d = rectifierAudit(iv);
      const attempts = d?.attempts ?? [];
      return {
        step: stepById.get(iv.stepId ?? '')?.number ?? null,
        step_id: iv.stepId,
        agent: d?.agent,
        attempts: r.offline ? 0 : attempts.length,
        final_state: iv.action,
        llm_calls: d?.calls ?? 0,
        detail: attempts.map(attemptReport),
      };
    }),
    fallback: r.fallback ? { triggered: true, reason: r.fallback.reason } : { triggered: false },
    tokens: { rectifier: r.overhead.total, estimated: r.overhead.estimated === true },
    cost: costJson({ oneTime: null, perRun: r.cost.perRun }),
    ...(r.failure ? { failure: r.failure } : {}),
  };
}

export async function rectifyCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, new Set(['json', 'offline', 'zero-shot', 'dry-run']), new Set(['pool', 'endpoint', 'model', 'embed-model', 'k', 't-max', 'gamma', 'domain']));
  if (args.positional.length !== 1) throw new CliError('usage', `rectify needs exactly one trace file, got ${args.positional.length}`);
  const poolFile = stringFlag(args, 'pool');
  const zeroShot = args.flags.has('zero-shot');
  if (poolFile === undefined && !zeroShot) throw new CliError('usage', 'rectify needs --pool <file> (or --zero-shot)');
  const flags = endpointFlags(args, ['embed-model']);
  const embedModel = stringFlag(args, 'embed-model');
  const domain = stringFlag(args, 'domain') ?? 'generic';
  if (!(DOMAINS as readonly string[]).includes(domain)) throw new CliError('usage', `unknown domain ${JSON.stringify(domain)}; known: ${DOMAINS.join(', ')}`);
  const params: RectifyParams = {
    ...DEFAULT_RECTIFY_PARAMS,
    k: whole(args, 'k', 1) ?? DEFAULT_RECTIFY_PARAMS.k,
    tMax: whole(args, 't-max', 1) ?? DEFAULT_RECTIFY_PARAMS.tMax,
    gamma: whole(args, 'gamma', 0) ?? DEFAULT_RECTIFY_PARAMS.gamma,
    domain: domain as Domain,
    zeroShot,
  };
  const pool = poolFile !== undefined ? readPool(poolFile) : { name: 'general', indicators: [] };
  const [file] = readTraceFiles(args.positional);

  if (args.flags.has('dry-run')) {
    // Offline, what a pass against an endpoint would cost: the pool would be embedded then too.
    const estimate = await estimateRectifierCost(file.runs, { pool, params, embedModel: zeroShot ? undefined : (embedModel ?? flags?.model ?? 'embeddings'), maxTokens: DEFAULT_LLM_SETTINGS.maxTokens });
    printEstimate(estimate, args.flags.has('json'), flags === undefined);
    return 0;
  }

  const client =
    flags && new LlmClient(endpointSettings(flags.endpoint, { rectifier: flags.model, agents: flags.model, embeddings: embedModel ?? flags.model }), { recorder: new CallRecorder() });
  let prepared;
  try {
    prepared = zeroShot ? await preparePool(pool) : await preparePool(pool, { client });
  } catch (e) {
    printError(poolFile ?? 'pool', `embedding the indicator pool failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  const runs: ReturnType<typeof report>[] = [];
  const costs: EngineCost[] = [];
  let failed: RectifyRunResult | undefined;
  for (const run of file.runs) {
    const result = await rectifyRun(run, { pool: prepared, params, client: client?.forRun() });
    runs.push(report(run, result));
    costs.push(result.cost);
    if (result.status !== 'complete') {
      failed = result;
      break;
    }
  }
  // The pool's embeddings are a one-time cost, apart from the per-run rectifier tokens (and 0 when served from cache).
  const oneTime = zeroShot ? null : poolCost(prepared);
  const out = {
    pool: {
      file: poolFile ?? null,
      size: pool.indicators.length,
      retrieval: zeroShot ? 'general' : prepared.retrieval,
      embedding_tokens: oneTime && !oneTime.cached ? oneTime.tokens.total : 0,
      embedding_calls: oneTime?.calls ?? 0,
      embedding_cached: oneTime?.cached ?? false,
      embedding_estimated: oneTime?.estimated ?? false,
    },
    runs,
    tokens: { rectifier: costs.reduce((n, c) => n + c.perRun.tokens.total, 0), pool_embedding: oneTime && !oneTime.cached ? oneTime.tokens.total : 0 },
    cost: costJson({ ...sumCosts(costs), oneTime }),
  };
  if (args.flags.has('json')) printJson(out);
  else {
    if (oneTime) printOut`pool: ${oneTime.what}: ${oneTime.cached ? 'served from cache, nothing sent' : `${oneTime.calls} requests, ${oneTime.tokens.total} tokens${oneTime.estimated ? ' (estimated)' : ''}`} (one-time)\n`;
    for (const r of runs) {
      printOut`${r.id}: ${r.messages.length} agent messages (${r.mode})${r.fallback.triggered ? '; global fallback: delivered as recorded' : ''}\n`;
      for (const m of r.messages) {
        const what =
          r.mode === 'endpoint'
            ? `${m.final_state} after ${m.attempts} attempt(s), ${m.llm_calls} LLM calls`
            : `not audited (offline); would audit ${m.detail[0]?.retrieved.map((x) => x.name).join(', ') || 'nothing'}`;
        printOut`  ${m.agent} step ${m.step ?? '?'}: ${what}\n`;
      }
    }
  }
  if (failed?.failure) {
    const f = failed.failure;
    printError(file.file, `run ${failed.runId}: rectifier call for ${f.agent} step ${f.stepNumber ?? '?'} failed: ${f.message}`);
    return 1;
  }
  return 0;
}
