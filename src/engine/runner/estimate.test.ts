import { describe, expect, it } from 'vitest';
import { estimateBatchCost, AGENT_ANSWER_TOKENS } from './estimate.ts';
import { defaultTeam } from './runner.ts';
import { DECISION_ANSWER_TOKENS } from '../supervisor/estimate.ts';
import { DEFAULT_RECTIFY_PARAMS } from '../rectifier/gate.ts';

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
});
