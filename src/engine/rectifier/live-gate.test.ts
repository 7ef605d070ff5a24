// Rectify-or-reject as a gate of the live runner, against the project's test server over real HTTP: one message
// passes at its first audit, one is rewritten after feedback (the revision is what later agents see), one is pruned
// after T_max (nobody sees it, the decision agent included), and the global fallback restarts the team without
// auditing when every message is pruned. Every endpoint request is counted from the server's own log.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import { editFromIntervention } from '../runner/fork.ts';
import { clarifierGate } from '../clarifier/gate.ts';
import { DECIDER_ID, defaultTeam, runTeam } from '../runner/runner.ts';
import type { LiveTask } from '../runner/tasks.ts';
import { DEFAULT_RECTIFY_PARAMS, preparePool, type RectifyParams } from './gate.ts';
import type { Indicator } from './indicators.ts';
import { rectifierGate } from './live-gate.ts';
import { rectifierEffects } from './replay.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const task: LiveTask = { id: 't', question: 'What is 6 times 7?', answer: '42', domain: 'math' };
const client = () =>
  new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { agents: 'agent-model', rectifier: 'rect-model', clarifier: 'clar-model', embeddings: 'embed-model' }, retries: 0, retryBaseMs: 1, jsonMode: false }), {
    recorder: new CallRecorder(),
  });
const params = (p: Partial<RectifyParams> = {}): RectifyParams => ({ ...DEFAULT_RECTIFY_PARAMS, domain: 'math', ...p });
const verdict = (flawed: boolean) =>
  JSON.stringify(
    flawed
      ? { evidence_quote: '41', analysis: 'six sevens are 42, not 41', suggestion: 'Recompute 6 × 7', impact_assessment: 'YES, the answer changes', is_flawed: true }
      : { evidence_quote: 'N/A', analysis: 'N/A', suggestion: 'N/A', impact_assessment: 'NO, nothing to change', is_flawed: false },
  );
type Body = { model: string; messages: { role: string; content: string }[] };
const requests = () => server.log().filter((e) => e.path.startsWith('/v1/'));
const chats = () => requests().filter((e) => e.path === '/v1/chat/completions').map((e) => e.body as Body);
const text = (b: Body) => b.messages.map((m) => m.content).join('\n');
const FEEDBACK = 'A reviewer checked your last message';

describe('rectifierGate in the runner (zero-shot: the general math indicator)', () => {
  it('passes, rewrites after feedback, prunes after T_max; later agents see only what was delivered', async () => {
    server.setScript({
      rules: [
        { match: { model: 'rect-model', contains: 'Message to review:\nCHECKER-DRAFT' }, content: verdict(true) },
        { match: { model: 'rect-model', contains: 'Message to review:\nCRITIC-DRAFT' }, content: verdict(true) },
        { match: { model: 'rect-model' }, content: verdict(false) },
        { match: { model: 'agent-model', contains: 'CRITIC-DRAFT' }, content: 'CRITIC-DRAFT again, still 41' },
        { match: { model: 'agent-model', contains: 'CHECKER-DRAFT' }, content: 'CHECKER-FIXED: 6 × 7 = 42\nFINAL ANSWER: 42' },
        { match: { contains: 'You are the decision agent' }, content: 'FINAL ANSWER: 42' },
        { match: { contains: 'You are the Solver' }, content: 'SOLVER: 6 × 7 = 42\nFINAL ANSWER: 42' },
        { match: { contains: 'You are the Checker' }, content: 'CHECKER-DRAFT: 6 × 7 = 41\nFINAL ANSWER: 41' },
        { match: { contains: 'You are the Critic' }, content: 'CRITIC-DRAFT: roughly 41' },
      ],
    });
    const result = await runTeam(task, defaultTeam('math'), { client: client(), runId: 'rr', gates: [rectifierGate({ params: params({ tMax: 3, gamma: 1 }) })] });
    expect(result.status).toBe('complete');
    const run = result.run;
    // 3 role turns + decider; audits 1 (Solver) + 2 (Checker) + 3 (Critic); regenerations 1 (Checker) + 2 (Critic).
    expect(requests()).toHaveLength(4 + 6 + 3);
    expect(chats().filter((b) => b.model === 'rect-model')).toHaveLength(6);
    const [solver, checker, critic, decider] = run.steps;
    expect(decider.agentId).toBe(DECIDER_ID);
    expect(solver.output).toBe('SOLVER: 6 × 7 = 42\nFINAL ANSWER: 42');
    expect(checker.output).toBe('CHECKER-FIXED: 6 × 7 = 42\nFINAL ANSWER: 42');
    expect(checker.runner?.produced).toBe('CHECKER-DRAFT: 6 × 7 = 41\nFINAL ANSWER: 41');
    expect(critic.runner?.pruned).toBe(true);
    // The Critic saw the revision, not the draft; the decider never saw the Critic.
    const criticTurn = chats().find((b) => b.messages[0].content.startsWith('You are the Critic') && !text(b).includes(FEEDBACK))!;
    expect(text(criticTurn)).toContain('Checker: CHECKER-FIXED');
    expect(text(criticTurn)).not.toContain('CHECKER-DRAFT');
    const deciderTurn = chats().find((b) => b.messages[0].content.includes('You are the decision agent'))!;
    expect(text(deciderTurn)).not.toContain('CRITIC');
    expect(text(deciderTurn)).toContain('CHECKER-FIXED');
    // The second regeneration continues from the first retry (its previous attempt), with the composed feedback.
    const criticRegens = chats().filter((b) => b.model === 'agent-model' && text(b).includes(FEEDBACK) && b.messages[0].content.startsWith('You are the Critic'));
    expect(criticRegens).toHaveLength(2);
    expect(criticRegens[1].messages.at(-2)).toEqual({ role: 'assistant', content: 'CRITIC-DRAFT again, still 41' });
    expect(criticRegens[1].messages.at(-1)!.content).toContain('Recompute 6 × 7');

    const ivs = run.interventions.filter((i) => i.engine === 'rectifier');
    expect(ivs.map((i) => [i.stepId, i.action, i.details?.finalState])).toEqual([
      [solver.id, 'pass@1', 'pass@1'],
      [checker.id, 'pass@2', 'pass@2'],
      [critic.id, 'rejected', 'rejected'],
    ]);
    expect(ivs[1].details?.revisedMessage).toBe(checker.output);
    expect(ivs[0].details?.revisedMessage).toBeUndefined();
    expect(ivs.every((i) => i.details?.zeroShot === true && i.heuristic === false)).toBe(true);
    expect((ivs[0].details?.pool as { name: string }).name).toContain('zero-shot');
    // Checker: two audits and its regeneration, each with its recorded call.
    expect(ivs[1].llmCallIds).toHaveLength(3);
    expect(ivs[1].details?.calls).toBe(3);
    expect(ivs[2].details?.calls).toBe(5);
    expect(run.interventions.some((i) => i.action === 'global-restart')).toBe(false);
    // The run view's marks and a fork read these verdicts.
    const effects = rectifierEffects(run);
    expect([...effects.pruned]).toEqual([critic.id]);
    expect([...effects.rewritten]).toEqual([checker.id]);
    expect(editFromIntervention(ivs[2])).toEqual({ kind: 'prune' });
    expect(editFromIntervention(ivs[1])).toEqual({ kind: 'replace', text: checker.output });
  });

  it('global fallback: when every message is pruned (γ = 1) the team starts over without auditing', async () => {
    server.setScript({
      rules: [
        { match: { model: 'rect-model' }, content: verdict(true) },
        { match: { contains: FEEDBACK }, content: 'REDRAFT' },
        { match: { contains: 'You are the decision agent' }, content: 'FINAL ANSWER: 42' },
      ],
      fallback: { content: 'DRAFT: 41' },
    });
    const result = await runTeam(task, defaultTeam('math'), { client: client(), runId: 'fb', gates: [rectifierGate({ params: params({ tMax: 2, gamma: 1 }) })] });
    expect(result.status).toBe('complete');
    const run = result.run;
    // First pass: 3 turns, each 2 audits + 1 regeneration; restart: 3 turns unaudited; decider.
    expect(requests()).toHaveLength(3 + 3 * 3 + 3 + 1);
    expect(run.steps.map((s) => `${s.agentId}${s.runner?.pruned ? ':pruned' : ''}${s.runner?.superseded ? ':first' : ''}`)).toEqual([
      'Solver:pruned:first',
      'Checker:pruned:first',
      'Critic:pruned:first',
      'Solver',
      'Checker',
      'Critic',
      DECIDER_ID,
    ]);
    const restart = run.interventions.find((i) => i.action === 'global-restart')!;
    expect(restart).toMatchObject({ engine: 'rectifier', context: 'run', details: { valid: 0, gamma: 1, audited: 3, restartStep: 3 } });
    expect(restart.reason).toContain('0 of 3');
    // The restarted Checker saw only the restarted Solver; the decider saw the three restarted messages.
    const deciderTurn = chats().find((b) => b.messages[0].content.includes('You are the decision agent'))!;
    expect(text(deciderTurn).match(/DRAFT: 41/g)).toHaveLength(3);
    expect(text(deciderTurn)).not.toContain('REDRAFT');
    expect(run.interventions.filter((i) => i.engine === 'rectifier' && i.stepId)).toHaveLength(3);
    expect(run.outcome).toMatchObject({ status: 'success', finalAnswer: '42' });
  });

  it('with a pool: keywords, BM25 retrieval of K_act indicators, one audit each', async () => {
    const ind = (name: string, trigger: string): Indicator => ({ name, detailed_definition: `Mishandles ${trigger}.`, evaluator_prompt: { trigger_condition: trigger, risk_alert: `Check ${name}.` }, metadata: {} });
    const pool = await preparePool({ name: 'toy.json', indicators: [ind('MULTIPLY', 'When the agent multiplies numbers'), ind('UNITS', 'When units are converted'), ind('ROOTS', 'When roots of equations are found')] });
    server.setScript({
      rules: [
        { match: { contains: 'index agent messages' }, content: JSON.stringify({ scenario_keywords: ['multiplication'], action_keywords: ['multiplies numbers'] }) },
        { match: { model: 'rect-model' }, content: verdict(false) },
        { match: { contains: 'You are the decision agent' }, content: 'FINAL ANSWER: 42' },
      ],
      fallback: { content: '6 × 7 = 42' },
    });
    const result = await runTeam(task, { ...defaultTeam('math'), roles: defaultTeam('math').roles.slice(0, 1) }, { client: client(), gates: [rectifierGate({ params: params({ k: 2 }), pool })] });
    // Solver + decider; keywords + 2 audits.
    expect(requests()).toHaveLength(2 + 3);
    const iv = result.run.interventions.find((i) => i.engine === 'rectifier')!;
    expect(iv.details).toMatchObject({ finalState: 'pass@1', zeroShot: false, retrieval: 'bm25', pool: { name: 'toy.json', size: 3 } });
    const attempts = iv.details!.attempts as { retrieved: { name: string }[] }[];
    expect(attempts[0].retrieved[0].name).toBe('MULTIPLY');
  });

  it('with the clarifier after it: the rectifier’s revision is what the clarifier checks, its reply appended', async () => {
    server.setScript({
      rules: [
        { match: { model: 'rect-model' }, content: verdict(false) },
        { match: { model: 'clar-model' }, times: 1, content: '{"type":"SC","to_agent":"sender","question":"Is that 6 × 7 or 6 + 7?"}' },
        { match: { model: 'clar-model' }, content: '{"type":"NONE","to_agent":null,"question":""}' },
        { match: { contains: 'A clarifying question for you' }, content: '6 × 7.' },
        { match: { contains: 'You are the decision agent' }, content: 'FINAL ANSWER: 42' },
      ],
      fallback: { content: 'It is 42.' },
    });
    const result = await runTeam(task, { ...defaultTeam('math'), roles: defaultTeam('math').roles.slice(0, 2) }, { client: client(), gates: [rectifierGate({ params: params() }), clarifierGate()] });
    const [solver, checker] = result.run.steps;
    expect(solver.output).toContain('[Solver answered: 6 × 7.]');
    expect(checker.output).toBe('It is 42.');
    // 2 turns + decider; 2 audits; clarifier: ask + answer + second check on the Solver, one check on the Checker.
    expect(requests()).toHaveLength(3 + 2 + 4);
    expect(result.run.interventions.map((i) => `${i.engine}:${i.stepId === solver.id ? 'solver' : 'checker'}`)).toEqual(['rectifier:solver', 'clarifier:solver', 'rectifier:checker', 'clarifier:checker']);
  });

  it('an endpoint failure while auditing ends the run as an endpoint failure (a batch stops on it)', async () => {
    server.setScript({ rules: [{ match: { model: 'rect-model' }, status: 500, fault: 'status' }], fallback: { content: 'It is 42.' } });
    const result = await runTeam(task, defaultTeam('math'), { client: client(), gates: [rectifierGate({ params: params() })] });
    expect(result.status).toBe('failed');
    expect(result.endpointFailure).toBe(true);
    expect(result.error).toMatch(/500/);
    // The Solver's turn and one audit; nothing after.
    expect(requests()).toHaveLength(2);
  });
});
