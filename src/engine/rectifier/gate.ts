// Rectify-or-reject for ONE agent message (SPEC §5.2, the paper's Algorithm 1 lines 5-27): per attempt, retrieve
// indicators, audit the message against each, and pass, retry with feedback, or reject. The whole-run replay and the
// live runner both call `gateMessage`.
import type { ChatResult, EmbedResult, LlmClient } from '../../llm/client.ts';
import { Cancelled } from '../../llm/errors.ts';
import type { ChatMessage, TokenUsage } from '../../model/types.ts';
import { GENERAL_INDICATORS, triggerText, type Indicator, type IndicatorPool } from './indicators.ts';
import {
  AUDIT_REPAIR_NOTE,
  auditMessages,
  clip,
  composeFeedback,
  keywordMessages,
  regenerationMessages,
  retrievalQuery,
} from './prompts.ts';
import { Bm25Index, embedTexts, topKByCosine, type EmbeddingCache } from './retrieval.ts';
import { judge, parseAudit, type Verdict } from './verdict.ts';
import { modelFor } from '../../llm/settings.ts';
import type { OneTimeCost } from '../../llm/cost.ts';
import type { RectifyParams } from '../../model/engine-params.ts';

type Msg = Pick<ChatMessage, 'role' | 'content'>;

/** The gate's parameters are data the settings store holds too (src/model/engine-params.ts). */
export { DEFAULT_RECTIFY_PARAMS, type RectifyParams } from '../../model/engine-params.ts';

export type RetrievalKind = 'embedding' | 'bm25' | 'general';

/** A pool ready for retrieval: embeddings of its trigger conditions when an endpoint is used, else a BM25 index. */
export interface PreparedPool {
  name: string;
  indicators: Indicator[];
  retrieval: 'embedding' | 'bm25';
  vectors?: number[][];
  embedModel?: string;
  bm25?: Bm25Index;
  /** Embeddings came from the cache (no endpoint request). */
  fromCache?: boolean;
  usage?: TokenUsage;
  /** Embeddings requests made to prepare it (0 when the cache served them). */
  embedRequests?: number;
}

export async function preparePool(
  pool: IndicatorPool,
  options: { client?: LlmClient; cache?: EmbeddingCache; signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<PreparedPool> {
  const { client } = options;
  if (!client) return { name: pool.name, indicators: pool.indicators, retrieval: 'bm25', bm25: new Bm25Index(pool.indicators.map(triggerText)) };
  const model = modelFor(client.settings, 'embeddings');
  const r = await embedTexts(pool.indicators.map(triggerText), 'trigger', client, model, options);
  return { name: pool.name, indicators: pool.indicators, retrieval: 'embedding', vectors: r.vectors, embedModel: model, fromCache: r.fromCache, usage: r.usage, embedRequests: r.requests };
}

/**
 * A prepared pool used again: its embeddings are already held, so this use sent nothing and its one-time cost is
 * served from cache (reporting the first use's tokens again would count them twice).
 */
export function reusedPool(pool: PreparedPool): PreparedPool {
  if (pool.retrieval !== 'embedding') return pool;
  return { ...pool, fromCache: true, usage: { input: 0, output: 0, total: 0 }, embedRequests: 0 };
}

/** The pool's one-time cost: its trigger-condition embeddings (null offline: BM25 needs no request). */
export function poolCost(pool: PreparedPool): OneTimeCost | null {
  if (pool.retrieval !== 'embedding') return null;
  const u = pool.usage ?? { input: 0, output: 0, total: 0 };
  return {
    calls: pool.embedRequests ?? 0,
    tokens: { input: u.input, output: u.output, total: u.total },
    cached: pool.fromCache === true,
    estimated: u.estimated === true,
    what: `embeddings of the ${pool.indicators.length} trigger conditions of pool ${pool.name}${pool.fromCache ? ' (served from cache)' : ''}`,
  };
}

export interface MessageToGate {
  /** The global task. */
  task: string;
  agent: { name: string; role?: string };
  /** What the agent was given when it wrote the message (system prompt, the messages it could see), as chat messages. */
  input: Msg[];
  output: string;
}

export interface RetrievedIndicator {
  index: number;
  name: string;
  score: number;
}

export interface AuditRecord {
  indicator: string;
  /** Position in the pool; -1 for a general indicator. */
  index: number;
  tries: number;
  verdict?: Verdict;
  /** The three-part rule's result. */
  flawed: boolean;
  /** Why a verdict with is_flawed true did not count. */
  note?: string;
  repairs?: string[];
  /** The audit could not be read after its retries and was left out of the decision. */
  dropped?: string;
  rawAnswer?: string;
  llmCallIds: string[];
}

export interface Attempt {
  attempt: number;
  output: string;
  retrieval: RetrievalKind;
  keywords?: { scenario: string[]; action: string[] };
  /** Set when the keyword answer could not be read and the query was built from the texts themselves. */
  keywordProblem?: string;
  query?: string;
  retrieved: RetrievedIndicator[];
  audits: AuditRecord[];
  flawed: boolean;
  /** The feedback the agent got after this attempt (retry only). */
  feedback?: string;
}

export type GateState = 'pass' | 'rejected' | 'not-audited';

export interface GateResult {
  state: GateState;
  /** Attempt (1-based) that passed. */
  passedAt?: number;
  /** What the other agents receive: null when rejected. */
  finalOutput: string | null;
  attempts: Attempt[];
  /** Audits dropped as unreadable, over all attempts. */
  droppedAudits: number;
  tokens: TokenUsage;
  llmCallIds: string[];
  /** Endpoint requests made for this message (chat + embeddings), retries inside the client not counted. */
  calls: number;
  /** No endpoint: retrieval only, nothing audited. */
  offline: boolean;
}

export interface GateOptions {
  pool: PreparedPool;
  params: RectifyParams;
  /** Without a client only retrieval runs (BM25), labelled, and no verdict is made up. */
  client?: LlmClient;
  signal?: AbortSignal;
  onAttempt?: (attempt: Attempt) => void;
  /**
   * How the agent writes its message again after feedback (the live runner plays the agent itself); by default the
   * agent's recorded input plus its previous output and the feedback go to the endpoint as role `agents`.
   */
  regenerate?: (previousOutput: string, feedback: string) => Promise<{ text: string; usage?: TokenUsage; llmCallId?: string }>;
}

/** An endpoint call failed while gating; carries what was spent so far. */
export class GateFailed extends Error {
  constructor(
    readonly cause: unknown,
    readonly spent: TokenUsage,
    readonly llmCallIds: string[],
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'GateFailed';
  }
}

function parseKeywords(text: string): { scenario: string[]; action: string[] } | undefined {
  const parsed = parseLooseObject(text);
  if (!parsed) return undefined;
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : typeof v === 'string' && v.trim() ? v.split(/[,;]/).map((x) => x.trim()).filter(Boolean) : []);
  const scenario = list(parsed.scenario_keywords ?? parsed.scenario);
  const action = list(parsed.action_keywords ?? parsed.action);
  return scenario.length + action.length > 0 ? { scenario, action } : undefined;
}

function parseLooseObject(text: string): Record<string, unknown> | undefined {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return undefined;
  try {
    const v: unknown = JSON.parse(m[0]);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The messages an agent saw, as text for the auditor (the system prompt left out). */
export function seenText(input: readonly Msg[]): string {
  return input
    .filter((m) => m.role !== 'system')
    .map((m) => m.content)
    .join('\n\n');
}

export async function gateMessage(msg: MessageToGate, options: GateOptions): Promise<GateResult> {
  const { client, params, pool, signal } = options;
  const tokens: TokenUsage = { input: 0, output: 0, total: 0 };
  const callIds: string[] = [];
  let calls = 0;
  const count = (usage: TokenUsage | undefined, id: string | undefined) => {
    calls++;
    if (id) callIds.push(id);
    if (!usage) return;
    tokens.input += usage.input;
    tokens.output += usage.output;
    tokens.total += usage.total;
    if (usage.estimated) tokens.estimated = true;
  };
  const spend = (r: ChatResult | EmbedResult) => count(r.usage, r.record.id);
  const attempts: Attempt[] = [];
  let dropped = 0;

  if (!client) {
    // Offline: show what would be audited. BM25 over trigger conditions with the message itself as the query.
    const bm25 = pool.bm25 ?? new Bm25Index(pool.indicators.map(triggerText));
    const query = `${clip(msg.task, 400)}\n${clip(msg.output, 1200)}`;
    const retrieved = params.zeroShot
      ? [{ index: -1, name: GENERAL_INDICATORS[params.domain].name, score: 1 }]
      : bm25.search(query, params.k).map((s) => ({ index: s.index, name: pool.indicators[s.index].name, score: s.score }));
    const attempt: Attempt = { attempt: 1, output: msg.output, retrieval: params.zeroShot ? 'general' : 'bm25', query, retrieved, audits: [], flawed: false };
    attempts.push(attempt);
    options.onAttempt?.(attempt);
    return { state: 'not-audited', finalOutput: msg.output, attempts, droppedAudits: 0, tokens, llmCallIds: [], calls: 0, offline: true };
  }

  try {
    let output = msg.output;
    for (let t = 1; t <= params.tMax; t++) {
      if (signal?.aborted) throw new Cancelled();
      const attempt: Attempt = { attempt: t, output, retrieval: params.zeroShot ? 'general' : pool.retrieval, retrieved: [], audits: [], flawed: false };
      let active: { indicator: Indicator; index: number }[];
      if (params.zeroShot) {
        const general = GENERAL_INDICATORS[params.domain];
        active = [{ indicator: general, index: -1 }];
        attempt.retrieved = [{ index: -1, name: general.name, score: 1 }];
      } else {
        // (1) keywords, (2) query → top K_act.
        const kw = await client.chat({ role: 'rectifier', messages: keywordMessages(msg.task, msg.agent.name, output), json: true, temperature: 0 }, signal);
        spend(kw);
        const keywords = parseKeywords(kw.text);
        if (keywords) attempt.keywords = keywords;
        else attempt.keywordProblem = 'the keyword answer could not be read; the query uses the task and the message instead';
        const query = keywords ? retrievalQuery(keywords.scenario, keywords.action) : `Problem Scenario: ${clip(msg.task, 300)} Agent Action: ${clip(output, 300)}`;
        attempt.query = query;
        let ranked;
        if (pool.retrieval === 'embedding' && pool.vectors) {
          const q = await client.embed([query], signal);
          spend(q);
          ranked = topKByCosine(q.vectors[0], pool.vectors, params.k);
        } else {
          ranked = (pool.bm25 ?? new Bm25Index(pool.indicators.map(triggerText))).search(query, params.k);
        }
        attempt.retrieved = ranked.map((s) => ({ index: s.index, name: pool.indicators[s.index].name, score: s.score }));
        active = ranked.map((s) => ({ indicator: pool.indicators[s.index], index: s.index }));
      }

      // (3) one audit per indicator, temperature 0.
      const ctx = { task: msg.task, agent: msg.agent.name, role: msg.agent.role, seen: seenText(msg.input), output };
      attempt.audits = await Promise.all(
        active.map(async ({ indicator, index }) => {
          const base = auditMessages(params.domain, indicator, ctx);
          const rec: AuditRecord = { indicator: indicator.name, index, tries: 0, flawed: false, llmCallIds: [] };
          let answer = '';
          for (let k = 0; k <= params.auditRetries; k++) {
            const messages = k === 0 ? base : [...base, { role: 'assistant', content: answer }, { role: 'user', content: AUDIT_REPAIR_NOTE }];
            const r = await client.chat({ role: 'rectifier', messages, json: true, temperature: 0 }, signal);
            spend(r);
            rec.tries++;
            rec.llmCallIds.push(r.record.id);
            answer = r.text;
            const parsed = parseAudit(answer);
            if (parsed.ok) {
              const j = judge(parsed.verdict);
              rec.verdict = parsed.verdict;
              rec.flawed = j.flawed;
              if (j.note) rec.note = j.note;
              if (parsed.repairs.length) rec.repairs = parsed.repairs;
              delete rec.dropped;
              delete rec.rawAnswer;
              return rec;
            }
            rec.dropped = parsed.problem;
            rec.rawAnswer = answer.slice(0, 1000);
          }
          return rec;
        }),
      );
      dropped += attempt.audits.filter((a) => a.dropped).length;
      // (4) E = any flawed.
      attempt.flawed = attempt.audits.some((a) => a.flawed);
      attempts.push(attempt);

      if (!attempt.flawed) {
        options.onAttempt?.(attempt);
        return { state: 'pass', passedAt: t, finalOutput: output, attempts, droppedAudits: dropped, tokens, llmCallIds: callIds, calls, offline: false };
      }
      if (t === params.tMax) {
        options.onAttempt?.(attempt);
        break;
      }
      const flaws = attempt.audits.filter((a) => a.flawed && a.verdict).map((a) => ({ indicator: a.indicator, suggestion: a.verdict!.suggestion, analysis: a.verdict!.analysis }));
      attempt.feedback = composeFeedback(flaws);
      options.onAttempt?.(attempt);
      if (options.regenerate) {
        const regen = await options.regenerate(output, attempt.feedback);
        count(regen.usage, regen.llmCallId);
        output = regen.text;
      } else {
        const regen = await client.chat({ role: 'agents', messages: regenerationMessages(msg.input, output, attempt.feedback) }, signal);
        spend(regen);
        output = regen.text;
      }
    }
    return { state: 'rejected', finalOutput: null, attempts, droppedAudits: dropped, tokens, llmCallIds: callIds, calls, offline: false };
  } catch (e) {
    throw new GateFailed(e, tokens, callIds);
  }
}
