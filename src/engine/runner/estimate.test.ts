import { describe, expect, it } from 'vitest';
import { estimateBatchCost, AGENT_ANSWER_TOKENS } from './estimate.ts';
import { defaultTeam } from './runner.ts';
import { DECISION_ANSWER_TOKENS } from '../supervisor/estimate.ts';
import { DEFAULT_RECTIFY_PARAMS } from '../rectifier/gate.ts';
import { triggerText } from '../rectifier/indicators.ts';
import { embeddingKey, MemoryEmbeddingCache } from '../rectifier/retrieval.ts';

/** One token per word: the figures can be checked by hand. */
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('a batch estimate', () => {
  it('counts each arm apart: the agents’ turns and the decision agent per task, prompts growing with the conversation', async () => {
    const team = { ...defaultTeam('math'), maxTurns: 2 };
    const tasks = [
      { id: 'a', question: 'What is two plus two?', domain: 'math' as const },
      { id: 'b', question: 'What is three times five?', domain: 'math' as const },
    ];
    const e = await estimateBatchCost({ tasks, arms: ['baseline', 'supervised'], team }, { countTokens: words });
    const turns = Math.min(2, team.roles.length) + 1;
    expect(e.perArm?.map((a) => [a.arm, a.calls])).toEqual([
      ['baseline', 2 * turns],
      ['supervised', 2 * turns],
    ]);
    expect(e.perArm![0].tokens.output).toBe(2 * turns * AGENT_ANSWER_TOKENS);
    expect(e.runs.map((r) => r.runId)).toEqual(['a:baseline', 'b:baseline', 'a:supervised', 'b:supervised']);
    expect(e.calls).toBe(4 * turns);
    expect(e.tokens.total).toBe(e.perArm!.reduce((n, a) => n + a.tokens.total, 0));
    // Later turns see the earlier answers: the last prompt of a task is the largest.
    const one = await estimateBatchCost({ tasks: [tasks[0]], arms: ['baseline'], team: { ...team, maxTurns: 1 } }, { countTokens: words });
    expect(e.runs[0].tokens.input).toBeGreaterThan(2 * one.runs[0].tokens.input);
    // maxTokens caps the assumed answers.
    const capped = await estimateBatchCost({ tasks, arms: ['baseline'], team }, { countTokens: words, maxTokens: 50 });
    expect(capped.tokens.output).toBe(2 * turns * 50);
  });

  it('adds the engine arm’s own calls: the supervisor where its filter fires, an audit and a check per message', async () => {
    const tasks = [{ id: 'a', question: 'What is two plus two?', domain: 'math' as const }];
    const team = { ...defaultTeam('math', 'group-chat'), maxTurns: 8 };
    const supervisor = { tauStep: 2, tauLoop: 5, tauLen: 100_000 };
    const base = await estimateBatchCost({ tasks, arms: ['baseline', 'supervised'], team, supervisor }, { countTokens: words });
    const [baseline, supervised] = base.perArm!;
    expect(baseline.calls).toBe(9);
    // 8 turns over 3 roles: each role speaks 2 or 3 times, and its 2nd turn fires τ_step 2 (different stand-ins: no loop).
    expect(supervised.calls - baseline.calls).toBe(3);
    expect(supervised.tokens.output - baseline.tokens.output).toBe(3 * DECISION_ANSWER_TOKENS);
    // The filter's state is per run: two tasks cost twice the checks.
    const two = await estimateBatchCost({ tasks: [...tasks, { ...tasks[0], id: 'b' }], arms: ['supervised'], team, supervisor }, { countTokens: words });
    expect(two.calls).toBe(2 * supervised.calls);

    // Heuristic engines spend nothing; the zero-shot rectifier audits and the clarifier checks every role message once.
    const engines = { supervisor: { ...supervisor, heuristic: true }, clarifier: { heuristic: false }, rectifier: { params: { ...DEFAULT_RECTIFY_PARAMS, domain: 'math' as const } } };
    const all = await estimateBatchCost({ tasks, arms: ['baseline', 'supervised'], team, supervisor, engines }, { countTokens: words });
    expect(all.perArm![1].calls - all.perArm![0].calls).toBe(8 * 2);
    expect(all.assumptions.join(' ')).toMatch(/rectifier: every message passes/);
  });

  it('with an embeddings model, the rectifier’s pool embedding is the batch’s one-time cost (none when cached), apart from the arms', async () => {
    const indicator = (i: number) => ({ name: `I${i}`, detailed_definition: 'd', evaluator_prompt: { trigger_condition: `when the agent adds number ${i}`, risk_alert: 'r' } });
    const pool = { name: 'p', indicators: Array.from({ length: 300 }, (_, i) => indicator(i)) };
    const tasks = [{ id: 'a', question: 'What is two plus two?', domain: 'math' as const }];
    const team = { ...defaultTeam('math'), maxTurns: 1 };
    const engines = { rectifier: { params: { ...DEFAULT_RECTIFY_PARAMS, domain: 'math' as const }, pool } };
    const spec = { tasks, arms: ['baseline' as const, 'supervised' as const], team, engines };
    const bm25 = await estimateBatchCost(spec, { countTokens: words });
    expect(bm25.oneTime).toBeUndefined();
    const cache = new MemoryEmbeddingCache();
    const e = await estimateBatchCost(spec, { countTokens: words, embedModel: 'emb', cache });
    const poolWords = pool.indicators.reduce((n, i) => n + words(i.evaluator_prompt.trigger_condition), 0);
    expect(e.oneTime).toMatchObject({ calls: 2, tokens: { total: poolWords }, cached: false });
    // One query embedding per audited message; the arms leave the one-time cost out, the total has it.
    expect(e.perArm![1].calls - bm25.perArm![1].calls).toBe(1);
    expect(e.calls).toBe(e.perArm![0].calls + e.perArm![1].calls + 2);
    await cache.put(embeddingKey('trigger', pool.indicators.map(triggerText), 'emb'), pool.indicators.map(() => [1]));
    const cached = await estimateBatchCost(spec, { countTokens: words, embedModel: 'emb', cache });
    expect(cached.oneTime).toMatchObject({ calls: 0, tokens: { total: 0 }, cached: true });
    expect(cached.calls).toBe(e.calls - 2);
  });
});
