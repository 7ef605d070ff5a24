// Failure-driven pool construction (SPEC §5.2 Mining; the paper's Algorithm 2): from failed runs that carry a
// reference answer, a teacher model proposes indicators per agent message; each candidate is embedded (definition ⊕
// trigger), compared with the K_dedup most similar indicators already in the pool, and a model decides whether it is new.
import type { ChatResult, EmbedResult, LlmClient } from '../../llm/client.ts';
import { modelFor } from '../../llm/settings.ts';
import { indexRun } from '../../model/run-index.ts';
import type { Run, TokenUsage } from '../../model/types.ts';
import { extractJsonObject } from '../../llm/json-answer.ts';
import { dedupText, readIndicator, type Domain, type Indicator, type IndicatorPool } from './indicators.ts';
import { noveltyMessages, teacherMessages } from './prompts.ts';
import { isAuditable, messageText } from './replay.ts';
import { embedTexts, topKByCosine, type EmbeddingCache } from './retrieval.ts';

export interface MiningOptions {
  client: LlmClient;
  domain: Domain;
  /** K_dedup: existing indicators shown to the novelty check (default 20). */
  kDedup?: number;
  cache?: EmbeddingCache;
  signal?: AbortSignal;
  onProgress?: (p: MiningProgress) => void;
}

export interface MiningProgress {
  messages: number;
  messagesDone: number;
  candidates: number;
  added: number;
}

export interface MinedCandidate {
  indicator: Indicator;
  runId: string;
  stepId: string;
  agent: string;
  added: boolean;
  /** The novelty check's reason, or why the candidate was not considered. */
  reason: string;
  duplicateOf?: string;
  similar: { name: string; score: number }[];
}

export interface MiningResult {
  pool: IndicatorPool;
  candidates: MinedCandidate[];
  /** Failed runs with a reference answer that were mined. */
  runsMined: string[];
  /** Runs skipped and why (not failed, no reference answer). */
  runsSkipped: { runId: string; why: string }[];
  /** Teacher answers that could not be read. */
  unreadable: { runId: string; stepId: string; problem: string }[];
  tokens: TokenUsage;
  llmCallIds: string[];
}

/** The teacher's answer: NO_ERROR, or a JSON list of indicator objects. */
export function parseTeacherAnswer(text: string): { indicators: Indicator[]; problem?: string } {
  const t = text.trim();
  if (/^`*\s*NO_ERROR\s*`*$/i.test(t)) return { indicators: [] };
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(t);
  const body = fenced ? fenced[1] : t;
  let value: unknown;
  const start = body.indexOf('[');
  const end = body.lastIndexOf(']');
  try {
    value = JSON.parse(start !== -1 && end > start ? body.slice(start, end + 1) : body);
  } catch {
    const obj = extractJsonObject(body);
    try {
      value = obj ? [JSON.parse(obj)] : undefined;
    } catch {
      value = undefined;
    }
  }
  if (!Array.isArray(value)) return { indicators: [], problem: 'neither NO_ERROR nor a JSON list' };
  const indicators: Indicator[] = [];
  const problems: string[] = [];
  value.forEach((v, i) => {
    try {
      indicators.push(readIndicator(v, `[${i}]`));
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
    }
  });
  return problems.length ? { indicators, problem: `skipped ${problems.length} malformed item(s): ${problems.join('; ')}` } : { indicators };
}

export async function mineIndicators(runs: readonly Run[], pool: IndicatorPool, options: MiningOptions): Promise<MiningResult> {
  const { client, signal } = options;
  const kDedup = options.kDedup ?? 20;
  const tokens: TokenUsage = { input: 0, output: 0, total: 0 };
  const llmCallIds: string[] = [];
  const spend = (r: ChatResult | EmbedResult) => {
    llmCallIds.push(r.record.id);
    tokens.input += r.usage.input;
    tokens.output += r.usage.output;
    tokens.total += r.usage.total;
    if (r.usage.estimated) tokens.estimated = true;
  };
  const runsMined: string[] = [];
  const runsSkipped: { runId: string; why: string }[] = [];
  const work: { run: Run; stepIndex: number; agent: string }[] = [];
  for (const run of runs) {
    if (run.outcome.status !== 'failure') runsSkipped.push({ runId: run.id, why: `outcome is ${run.outcome.status}, not failure` });
    else if (!run.outcome.referenceAnswer?.trim()) runsSkipped.push({ runId: run.id, why: 'no reference answer' });
    else {
      runsMined.push(run.id);
      const index = indexRun(run);
      run.steps.forEach((s, i) => {
        const agent = index.agentById.get(s.agentId);
        if (isAuditable(s, agent)) work.push({ run, stepIndex: i, agent: agent?.name ?? s.agentId });
      });
    }
  }

  const indicators = [...pool.indicators];
  const model = modelFor(client.settings, 'embeddings');
  const base = await embedTexts(indicators.map(dedupText), 'dedup', client, model, { cache: options.cache, signal });
  const vectors = [...base.vectors];
  tokens.input += base.usage.input;
  tokens.total += base.usage.total;

  const candidates: MinedCandidate[] = [];
  const unreadable: MiningResult['unreadable'] = [];
  const progress: MiningProgress = { messages: work.length, messagesDone: 0, candidates: 0, added: 0 };
  options.onProgress?.({ ...progress });
  for (const { run, stepIndex, agent } of work) {
    const step = run.steps[stepIndex];
    const r = await client.chat(
      {
        role: 'rectifier',
        messages: teacherMessages(options.domain, { task: run.task ?? run.title, reference: run.outcome.referenceAnswer ?? '', agent, output: messageText(step), finalAnswer: run.outcome.finalAnswer }),
      },
      signal,
    );
    spend(r);
    const parsed = parseTeacherAnswer(r.text);
    if (parsed.problem) unreadable.push({ runId: run.id, stepId: step.id, problem: parsed.problem });
    for (const raw of parsed.indicators) {
      const indicator: Indicator = {
        ...raw,
        metadata: { ...(raw.metadata ?? {}), source: 'mined', source_run: run.id, source_step: step.id, source_agent_role: agent, ...(typeof raw.domain_tag === 'string' ? { domain_tag: raw.domain_tag } : {}) },
      };
      progress.candidates++;
      const e = await client.embed([dedupText(indicator)], signal);
      spend(e);
      const similar = topKByCosine(e.vectors[0], vectors, kDedup).map((s) => ({ index: s.index, name: indicators[s.index].name, score: s.score }));
      let added = false;
      let reason: string;
      let duplicateOf: string | undefined;
      if (indicators.some((i) => i.name === indicator.name)) reason = `an indicator named ${indicator.name} is already in the pool`;
      else if (similar.length === 0) {
        added = true;
        reason = 'the pool was empty';
      } else {
        const n = await client.chat({ role: 'rectifier', messages: noveltyMessages(indicator, similar.map((s) => indicators[s.index])), json: true, temperature: 0 }, signal);
        spend(n);
        const obj = extractJsonObject(n.text);
        let verdict: Record<string, unknown> | undefined;
        try {
          verdict = obj ? (JSON.parse(obj) as Record<string, unknown>) : undefined;
        } catch {
          verdict = undefined;
        }
        const novel = verdict?.is_novel;
        if (typeof novel !== 'boolean') reason = 'the novelty check could not be read; not added';
        else {
          added = novel;
          reason = typeof verdict?.reason === 'string' ? verdict.reason : novel ? 'new' : 'duplicate';
          if (!novel && typeof verdict?.duplicate_of === 'string') duplicateOf = verdict.duplicate_of;
        }
      }
      if (added) {
        indicators.push(indicator);
        vectors.push(e.vectors[0]);
        progress.added++;
      }
      candidates.push({ indicator, runId: run.id, stepId: step.id, agent, added, reason, duplicateOf, similar: similar.map(({ name, score }) => ({ name, score })) });
    }
    progress.messagesDone++;
    options.onProgress?.({ ...progress });
  }
  return { pool: { name: pool.name, indicators }, candidates, runsMined, runsSkipped, unreadable, tokens, llmCallIds };
}
