import { describe, expect, it } from 'vitest';
import { estimateBatchCost, AGENT_ANSWER_TOKENS } from './estimate.ts';
import { defaultTeam } from './runner.ts';

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
});
