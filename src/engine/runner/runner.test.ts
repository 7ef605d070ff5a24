// The built-in runner against the project's test server: chain and group chat, recorded inputs and calls, scoring,
// the LLM speaker selector, and the supervisor gate revising an over-long message.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import { filterParams } from '../supervisor/filter.ts';
import { callKey, turnInput } from './conversation.ts';
import { supervisorGate } from './gates.ts';
import { DECIDER_ID, defaultTeam, runTeam } from './runner.ts';
import type { LiveTask } from './tasks.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const client = (recorder = new CallRecorder()) =>
  new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { agents: 'agent-model', supervisor: 'sup-model' }, retries: 0, retryBaseMs: 1 }), { recorder });
const task: LiveTask = { id: '7', question: 'What is 6 times 7?', answer: '42', domain: 'math' };
const chatBodies = () => server.log().filter((e) => e.path === '/v1/chat/completions').map((e) => e.body as { model: string; messages: { role: string; content: string }[] });

describe('runTeam', () => {
  it('runs a chain: each role sees the conversation so far, the decider answers last, every call recorded and scored', async () => {
    server.setScript({ rules: [{ match: { contains: 'decision agent' }, content: 'They agree.\nFINAL ANSWER: 42' }], fallback: { content: '6 × 7 = 42\nFINAL ANSWER: 42' } });
    const recorder = new CallRecorder();
    const result = await runTeam(task, defaultTeam('math'), { client: client(recorder), runId: 'r1', tags: { dataset: 'toy' } });
    expect(result.status).toBe('complete');
    const run = result.run;
    expect(run.sourceFormat).toBe('runner');
    expect(run.steps.map((s) => `${s.kind}:${s.agentId}`)).toEqual(['message:Solver', 'message:Checker', 'message:Critic', `final:${DECIDER_ID}`]);
    expect(run.outcome).toMatchObject({ status: 'success', finalAnswer: '42', referenceAnswer: '42', score: 1 });
    expect(recorder.records).toHaveLength(4);
    const bodies = chatBodies();
    expect(bodies).toHaveLength(4);
    // The Checker saw the Solver's message, under the Solver's name; the recorded input is exactly what was sent.
    expect(bodies[1].messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(bodies[1].messages[1].content).toBe('Solver: 6 × 7 = 42\nFINAL ANSWER: 42');
    expect(run.steps[1].input).toEqual(bodies[1].messages);
    expect(run.steps[1].runner?.callKey).toBe(callKey('Checker', turnInput({ id: 'Checker', prompt: defaultTeam('math').roles[1].prompt }, task.question, [{ speaker: 'Solver', content: run.steps[0].output! }])));
    expect(bodies.every((b) => b.model === 'agent-model')).toBe(true);
    expect(run.steps[0].usage?.total).toBeGreaterThan(0);
    expect(run.handoffs[0]).toMatchObject({ from: 'Solver', kind: 'broadcast' });
  });

  it('scores a wrong answer as a failure', async () => {
    server.setScript({ fallback: { content: 'FINAL ANSWER: 41' } });
    const result = await runTeam(task, defaultTeam('math'), { client: client() });
    expect(result.run.outcome).toMatchObject({ status: 'failure', finalAnswer: '41', score: 0 });
  });

  it('group chat with the LLM selector: the named member speaks, an unusable answer falls back to round-robin and says so', async () => {
    server.setScript({
      rules: [
        { match: { contains: 'Who speaks next?' }, times: 1, content: 'Critic' },
        { match: { contains: 'Who speaks next?' }, content: 'nobody in particular' },
      ],
      fallback: { content: 'FINAL ANSWER: 42' },
    });
    const team = { ...defaultTeam('math', 'group-chat'), selector: 'llm' as const, maxTurns: 3 };
    const { run } = await runTeam(task, team, { client: client() });
    const top = run.steps.filter((s) => s.parentStepId === undefined);
    expect(top.map((s) => s.agentId)).toEqual(['Solver', 'Critic', 'Critic', DECIDER_ID]);
    expect(String(top[2].runner?.selector)).toMatch(/round-robin chose Critic/);
    expect(run.steps.filter((s) => s.kind === 'llm' && s.name === 'select speaker')).toHaveLength(2);
  });

  it('the supervisor gate purifies an over-long message before the others see it (heuristic), and records the intervention', async () => {
    const long = Array.from({ length: 300 }, (_, i) => `<span class="x${i}">step ${i}</span>`).join('\n') + '\nFINAL ANSWER: 42';
    server.setScript({ queue: [{ content: long }], fallback: { content: 'FINAL ANSWER: 42' } });
    const gate = supervisorGate(filterParams({ tauStep: 4, tauLoop: 3, tauLen: 3000 }), { heuristic: true });
    const { run } = await runTeam(task, defaultTeam('math'), { client: client(), gates: [gate] });
    expect(run.interventions).toHaveLength(1);
    expect(run.interventions[0]).toMatchObject({ engine: 'supervisor', context: 'excessive', action: 'correct_observation', heuristic: true, stepId: run.steps[0].id });
    expect(run.steps[0].runner?.produced).toBe(long);
    expect(run.steps[0].output).not.toBe(long);
    expect(run.steps[0].output!.length).toBeLessThan(long.length);
    // The Checker saw the purified message, not the raw one.
    expect(chatBodies()[1].messages[1].content).toBe(`Solver: ${run.steps[0].output}`);
  });

  it('the supervisor gate asks the endpoint (supervisor role) when it fires on a loop, and appends its guidance', async () => {
    server.setScript({
      rules: [{ match: { model: 'sup-model' }, content: JSON.stringify({ analysis: 'the team repeats itself', action: 'provide_guidance', parameters: { guidance: 'check the product with a second method' } }) }],
      fallback: { content: 'I think it is 42.' },
    });
    const gate = supervisorGate(filterParams({ tauStep: 99, tauLoop: 2, tauLen: 3000 }));
    const team = { ...defaultTeam('math', 'group-chat'), roles: defaultTeam('math').roles.slice(0, 1), maxTurns: 2 };
    const { run } = await runTeam(task, team, { client: client(), gates: [gate] });
    expect(run.interventions).toHaveLength(1);
    expect(run.interventions[0]).toMatchObject({ context: 'inefficient', action: 'provide_guidance', heuristic: false });
    expect(run.interventions[0].tokens?.total).toBeGreaterThan(0);
    expect(run.steps[1].output).toContain('check the product with a second method');
    expect(chatBodies().filter((b) => b.model === 'sup-model')).toHaveLength(1);
  });

  it('an endpoint failure ends the run as failed, keeps what was done and says it was the endpoint', async () => {
    server.setScript({ queue: [{ content: 'FINAL ANSWER: 42' }], fallback: { status: 500 } });
    const result = await runTeam(task, defaultTeam('math'), { client: client() });
    expect(result.status).toBe('failed');
    expect(result.endpointFailure).toBe(true);
    expect(result.error).toMatch(/HTTP 500/);
    expect(result.run.steps).toHaveLength(1);
  });
});
