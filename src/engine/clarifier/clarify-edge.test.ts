// The clarifier against the project's OpenAI-compatible test server, over real HTTP: asking the sender, asking the
// receiver, NONE passing the message unchanged, malformed clarifier output, and the extra-cost accounting.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import type { Run } from '../../model/types.ts';
import { ClarificationFailed, clarifyEdge } from './clarify-edge.ts';
import { edgeStates } from './edges.ts';
import { clarifyRun, summarize } from './pass.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const client = (recorder = new CallRecorder()) =>
  new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { clarifier: 'clar-model', agents: 'agent-model' }, retries: 1, retryBaseMs: 1 }), { recorder });

function makeRun(): Run {
  return {
    id: 'r1',
    title: 'pizza',
    task: 'How many cups of ingredients are on the list?',
    sourceFormat: 'native',
    models: [],
    outcome: { status: 'unknown' },
    tags: {},
    agents: [
      { id: 'planner', name: 'Planner', role: 'splits the problem' },
      { id: 'solver', name: 'Solver', role: 'computes the answer' },
    ],
    agentRuns: [],
    steps: [
      { id: 's0', index: 0, kind: 'llm', agentId: 'planner', input: [{ role: 'system', content: 'You are the Planner. Split problems into steps.' }], output: 'plan', usage: { input: 600, output: 200, total: 800 } },
      { id: 's1', index: 1, kind: 'message', agentId: 'planner', output: 'Add the quantities: 2 cups flour, 250 ml milk, 8 teaspoons salt.', usage: { input: 100, output: 100, total: 200 } },
      { id: 's2', index: 2, kind: 'message', agentId: 'solver', output: 'Total is 34.', usage: { input: 500, output: 500, total: 1000 } },
    ],
    handoffs: [
      { id: 'h0', from: 'planner', to: ['solver'], kind: 'message', stepId: 's1', content: 'Add the quantities: 2 cups flour, 250 ml milk, 8 teaspoons salt.' },
      { id: 'h1', from: 'solver', to: ['planner'], kind: 'message', stepId: 's2', content: 'Total is 34.' },
    ],
    annotations: [],
    interventions: [],
    orphanSpans: 0,
  };
}

const chatBodies = () =>
  server
    .log()
    .filter((e) => e.path === '/v1/chat/completions')
    .map((e) => e.body as { model: string; messages: { role: string; content: string }[] });

describe('edge states', () => {
  it('carry task, sender with its recorded prompt, receiver, message and the H most recent related handoffs', () => {
    const run = makeRun();
    run.handoffs.push(...[2, 3, 4, 5].map((i) => ({ id: `h${i}`, from: 'planner', to: ['solver'], kind: 'message' as const, content: `m${i}` })));
    const states = edgeStates(run, 3);
    expect(states).toHaveLength(6);
    expect(states[0]).toMatchObject({ id: 'h0', task: run.task, sender: { name: 'Planner', prompt: 'You are the Planner. Split problems into steps.' }, receiver: { name: 'Solver' }, history: [] });
    expect(states[5].history.map((h) => h.message)).toEqual(['m2', 'm3', 'm4']);
    expect(edgeStates(run, 1)[5].history.map((h) => h.message)).toEqual(['m4']);
  });
});

describe('clarifyEdge against the test server', () => {
  it('asks the sender: the sender answers with its recorded prompt, the reply is appended, the second check resolves it', async () => {
    server.setScript({
      queue: [
        { content: '{"type":"SC","to_agent":"sender","question":"Should teaspoons be converted to cups or reported as listed?"}', usage: { prompt_tokens: 300, completion_tokens: 20 } },
        { content: 'Report them as listed: 2 cups and 8 teaspoons.', usage: { prompt_tokens: 150, completion_tokens: 12 } },
        { content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 320, completion_tokens: 8 } },
      ],
    });
    const [state] = edgeStates(makeRun());
    const c = await clarifyEdge(state, { client: client() });
    expect(c).toMatchObject({ type: 'SC', toAgent: 'sender', addressee: { id: 'planner', name: 'Planner' }, reply: 'Report them as listed: 2 cups and 8 teaspoons.', resolved: true, secondType: 'NONE', heuristic: false, changed: true });
    expect(c.revisedMessage.startsWith(state.message)).toBe(true);
    expect(c.revisedMessage).toContain('Should teaspoons be converted to cups or reported as listed?');
    expect(c.revisedMessage).toContain('Planner answered: Report them as listed');
    expect(c.tokens).toEqual({ input: 770, output: 40, total: 810 });
    expect(c.llmCallIds).toHaveLength(3);
    const bodies = chatBodies();
    expect(bodies.map((b) => b.model)).toEqual(['clar-model', 'agent-model', 'clar-model']);
    // The addressee plays the sender with the sender's recorded system prompt and sees the question.
    expect(bodies[1].messages[0]).toEqual({ role: 'system', content: expect.stringContaining('You are the Planner. Split problems into steps.') });
    expect(bodies[1].messages[1].content).toContain('Should teaspoons be converted');
    // The second check sees the revised message.
    expect(bodies[2].messages[1].content).toContain('Planner answered: Report them as listed');
  });

  it('asks the receiver (named by agent), and a second check that still flags it is not resolved in one shot', async () => {
    server.setScript({
      queue: [
        { content: '```json\n{"type":"Capability Gap","to_agent":"Solver","question":"Can you run the sum as code instead of estimating it?"}\n```' },
        { content: 'Yes, I will compute it with code.' },
        { content: '{"type":"CG","to_agent":"receiver","question":"Who computes it?"}' },
      ],
    });
    const [state] = edgeStates(makeRun());
    const c = await clarifyEdge(state, { client: client() });
    expect(c).toMatchObject({ type: 'CG', toAgent: 'receiver', addressee: { id: 'solver', name: 'Solver' }, resolved: false, secondType: 'CG' });
    expect(c.repairs).toEqual(expect.arrayContaining(['took the JSON out of a code fence', 'read type "Capability Gap" as CG', 'read addressee "Solver" as receiver']));
    const bodies = chatBodies();
    expect(bodies[1].messages[0].content).toContain('You are Solver');
    expect(bodies[1].messages[1].content).toContain('is about to reach you');
  });

  it('NONE passes the message unchanged, with one call and no addressee', async () => {
    server.setScript({ queue: [{ content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 90, completion_tokens: 10 } }] });
    const [state] = edgeStates(makeRun());
    const c = await clarifyEdge(state, { client: client() });
    expect(c).toMatchObject({ type: 'NONE', toAgent: null, question: '', changed: false, resolved: null, tokens: { total: 100 } });
    expect(c.revisedMessage).toBe(state.message);
    expect(c.addressee).toBeUndefined();
    expect(chatBodies()).toHaveLength(1);
  });

  it('malformed clarifier output: the message passes unchanged, the problem and raw answer are kept, tokens counted', async () => {
    const cases = [
      ['I think the message is fine.', /no JSON object/],
      ['{"type":"XX","to_agent":"sender","question":"?"}', /unknown type "XX"/],
      ['{"type":"DG","to_agent":"sender","question":""}', /no question/],
      ['{"type":"DG","to_agent":"the boss","question":"Which id?"}', /unknown addressee/],
    ] as const;
    for (const [content, problem] of cases) {
      server.reset();
      server.setScript({ queue: [{ content, usage: { prompt_tokens: 50, completion_tokens: 5 } }] });
      const [state] = edgeStates(makeRun());
      const c = await clarifyEdge(state, { client: client() });
      expect(c.malformed?.problem).toMatch(problem);
      expect(c.malformed?.rawAnswer).toBe(content);
      expect(c).toMatchObject({ type: 'NONE', changed: false, revisedMessage: state.message, tokens: { total: 55 } });
      expect(chatBodies()).toHaveLength(1);
    }
    // A body that is not even JSON is retried by the client, then reported as a failure of the edge.
    server.reset();
    server.setScript({ fallback: { fault: 'malformed' } });
    await expect(clarifyEdge(edgeStates(makeRun())[0], { client: client() })).rejects.toBeInstanceOf(ClarificationFailed);
  });

  it('a custom answerer (a live runner’s real agent) replaces the LLM playing the addressee', async () => {
    server.setScript({ queue: [{ content: '{"type":"DG","to_agent":"sender","question":"Which list?"}' }, { content: '{"type":"NONE","to_agent":null,"question":""}' }] });
    const [state] = edgeStates(makeRun());
    const c = await clarifyEdge(state, { client: client(), answer: async (_s, who, q) => ({ text: `${who} says: the shopping list (${q})` }) });
    expect(c.reply).toBe('sender says: the shopping list (Which list?)');
    expect(chatBodies()).toHaveLength(2);
  });
});

describe('whole-run pass and extra-cost accounting', () => {
  it('one intervention per handoff; extra tokens are a share of the run tokens; latency and one-shot rate add up', async () => {
    server.setScript({
      queue: [
        { content: '{"type":"SC","to_agent":"sender","question":"Report as listed?"}', usage: { prompt_tokens: 100, completion_tokens: 10 } },
        { content: 'As listed.', usage: { prompt_tokens: 40, completion_tokens: 5 } },
        { content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 110, completion_tokens: 5 } },
        { content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 25, completion_tokens: 5 } },
      ],
    });
    const run = makeRun();
    const seen: string[] = [];
    const result = await clarifyRun(run, { client: client(), onItem: (iv) => seen.push(iv.id) });
    expect(result.status).toBe('complete');
    expect(seen).toEqual(['clarifier:h0', 'clarifier:h1']);
    expect(result.interventions[0]).toMatchObject({ engine: 'clarifier', handoffId: 'h0', stepId: 's1', context: 'SC', action: 'ask', heuristic: false, tokens: { total: 270 } });
    expect(result.interventions[1]).toMatchObject({ handoffId: 'h1', context: 'NONE', action: 'pass', tokens: { total: 30 } });
    const s = result.summary;
    expect(s.runTokens).toBe(2000);
    expect(s.extraTokens).toBe(300);
    expect(s.extraCostPct).toBe(15);
    expect(s).toMatchObject({ edges: 2, checked: 2, asked: 1, malformed: 0, oneShotPct: 100, heuristic: false });
    expect(s.byType).toMatchObject({ SC: 1, NONE: 1 });
    expect(s.secondChecked.SC).toBe(1);
    expect(s.resolved.SC).toBe(1);
    expect(s.latencyMs).toBeGreaterThanOrEqual(0);
    // Recomputed from the stored interventions alone (after a reload), the summary is the same.
    expect(summarize(run, result.interventions)).toEqual(s);
  });

  it('a failed call stops the pass, keeps finished edges and counts the tokens already spent; resume skips them', async () => {
    server.setScript({
      queue: [{ content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 10, completion_tokens: 2 } }],
      fallback: { status: 500 },
    });
    const run = makeRun();
    const first = await clarifyRun(run, { client: client() });
    expect(first.status).toBe('failed');
    expect(first.failure).toMatchObject({ edgeId: 'h1', sender: 'Solver', receiver: 'Planner' });
    expect(first.interventions.map((i) => i.handoffId)).toEqual(['h0']);
    server.reset();
    server.setScript({ queue: [{ content: '{"type":"NONE","to_agent":null,"question":""}', usage: { prompt_tokens: 10, completion_tokens: 2 } }] });
    const resumed: boolean[] = [];
    const second = await clarifyRun(run, { client: client(), previous: first.interventions, onItem: (_iv, r) => resumed.push(r) });
    expect(second.status).toBe('complete');
    expect(resumed).toEqual([true, false]);
    expect(chatBodies()).toHaveLength(1);
    expect(second.summary.extraTokens).toBe(24);
  });

  it('offline: the heuristic flagger decides, spends nothing, and is labelled heuristic', async () => {
    const run = makeRun();
    const result = await clarifyRun(run);
    expect(result.interventions.map((i) => [i.context, i.heuristic])).toEqual([
      ['SC', true],
      ['NONE', true],
    ]);
    expect(result.summary).toMatchObject({ extraTokens: 0, extraCostPct: 0, heuristic: true, oneShotPct: null });
    expect(server.log()).toHaveLength(0);
  });
});
