// The clarifier as a message gate of the live runner, against the project's test server: the Solver's message is
// checked, the Solver answers the question through the runner (with its role prompt and the conversation), the
// revised message is what the next member sees, the other messages pass, and the Taxonomy view finds each verdict
// on the handoff the message became.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import { defaultTeam, runTeam } from '../runner/runner.ts';
import type { LiveTask } from '../runner/tasks.ts';
import { clarifierGate } from './gate.ts';
import { labelsBySource } from './labels.ts';
import { clarificationsByHandoff, summarize } from './pass.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const task: LiveTask = { id: 't', question: 'A tank holds 2.5 m³ and drains at 5 L/min. How many minutes to empty it?', answer: '500', domain: 'math' };
const client = (recorder = new CallRecorder()) =>
  new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { agents: 'agent-model', clarifier: 'clar-model' }, retries: 0, retryBaseMs: 1 }), { recorder });
const chatBodies = () => server.log().filter((e) => e.path === '/v1/chat/completions').map((e) => e.body as { model: string; messages: { role: string; content: string }[] });

describe('clarifierGate in the runner', () => {
  it('asks the sender through the runner, delivers the revised message, records one verdict per message', async () => {
    const ask = '{"type":"SC","to_agent":"sender","question":"Is 2.5 m³ equal to 250 L or 2,500 L?"}';
    const none = '{"type":"NONE","to_agent":null,"question":""}';
    server.setScript({
      rules: [
        // The first clarifier check (on the Solver's message) asks; its second check and all later ones pass.
        { match: { model: 'clar-model' }, times: 1, content: ask, usage: { prompt_tokens: 300, completion_tokens: 20 } },
        { match: { model: 'clar-model' }, content: none, usage: { prompt_tokens: 100, completion_tokens: 5 } },
        { match: { contains: 'A clarifying question for you' }, content: '2,500 L, so 500 minutes.', usage: { prompt_tokens: 50, completion_tokens: 6 } },
        { match: { contains: 'decision agent' }, content: 'FINAL ANSWER: 500' },
      ],
      fallback: { content: '2.5 m³ = 250 L, so 50 minutes.\nFINAL ANSWER: 50' },
    });
    const recorder = new CallRecorder();
    const result = await runTeam(task, defaultTeam('math'), { client: client(recorder), runId: 'live1', gates: [clarifierGate()] });
    expect(result.status).toBe('complete');
    const run = result.run;
    const [solver, checker] = run.steps;
    // The Solver's message as delivered carries the question and its own answer; what it produced is kept.
    expect(solver.runner?.produced).toBe('2.5 m³ = 250 L, so 50 minutes.\nFINAL ANSWER: 50');
    expect(solver.output).toContain('[Clarification asked of Solver: Is 2.5 m³ equal to 250 L or 2,500 L?]');
    expect(solver.output).toContain('[Solver answered: 2,500 L, so 500 minutes.]');
    // The Checker saw the revised message; the Solver was asked with its role prompt and the conversation.
    const bodies = chatBodies();
    const checkerTurn = bodies.find((b) => b.model === 'agent-model' && b.messages[0].content.includes(defaultTeam('math').roles[1].prompt.trim().slice(0, 40)))!;
    expect(checkerTurn.messages.at(-1)!.content).toContain('Solver answered: 2,500 L');
    const askTurn = bodies.find((b) => b.messages.at(-1)!.content.includes('A clarifying question for you'))!;
    expect(askTurn.messages[0].content).toContain(defaultTeam('math').roles[0].prompt.trim().slice(0, 40));
    // One clarifier intervention per role message, on the step; the Taxonomy view finds them on the handoffs.
    const ivs = run.interventions.filter((i) => i.engine === 'clarifier');
    expect(ivs).toHaveLength(defaultTeam('math').roles.length);
    expect(ivs[0]).toMatchObject({ id: `clarifier:${solver.id}`, stepId: solver.id, context: 'SC', action: 'ask', heuristic: false });
    expect(ivs[0].handoffId).toBeUndefined();
    // clarifier 320 + addressee 56 + second check 105 tokens
    expect(ivs[0].tokens?.total).toBe(481);
    expect(ivs[0].details).toMatchObject({ resolved: true, toAgent: 'sender', addressee: { id: 'Solver' } });
    const byHandoff = clarificationsByHandoff(run);
    expect(byHandoff.get(run.handoffs[0].id)?.type).toBe('SC');
    expect(byHandoff.get(run.handoffs.find((h) => h.stepId === checker.id)!.id)?.type).toBe('NONE');
    expect(labelsBySource(run, 'clarifier').get(run.handoffs[0].id)).toBe('SC');
    expect(summarize(run, run.interventions)).toMatchObject({ checked: 3, asked: 1, oneShotPct: 100 });
  });

  it('offline (heuristic) it flags without asking anyone and passes the message unchanged', async () => {
    server.setScript({ rules: [{ match: { contains: 'decision agent' }, content: 'FINAL ANSWER: 500' }], fallback: { content: 'That is 2500 litres, about 660 gallons.' } });
    const result = await runTeam(task, defaultTeam('math'), { client: client(), gates: [clarifierGate({ heuristic: true })] });
    const ivs = result.run.interventions.filter((i) => i.engine === 'clarifier');
    expect(ivs.every((i) => i.heuristic && i.context === 'SC' && i.action === 'ask')).toBe(true);
    expect(result.run.steps[0].output).toBe('That is 2500 litres, about 660 gallons.');
    expect(chatBodies().every((b) => b.model === 'agent-model')).toBe(true);
  });
});
