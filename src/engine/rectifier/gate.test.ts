// The rectify-or-reject gate and its replay against the project's test server over real HTTP: every endpoint request
// is counted from the server's own log, so the number of LLM calls per message is asserted exactly.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashedEmbedding, startTestServer, type ScriptedAnswer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import type { Run } from '../../model/types.ts';
import { GENERAL_INDICATORS, type Indicator } from './indicators.ts';
import { cosine, MemoryEmbeddingCache } from './retrieval.ts';
import { DEFAULT_RECTIFY_PARAMS, gateMessage, preparePool, type PreparedPool, type RectifyParams } from './gate.ts';
import { rectifierEffects, rectifyRun } from './replay.ts';

const ind = (name: string, trigger: string): Indicator => ({
  name,
  detailed_definition: `This error occurs when the agent mishandles ${trigger.toLowerCase()}.`,
  evaluator_prompt: { trigger_condition: trigger, risk_alert: `Check ${name}.` },
  metadata: {},
});

const POOL = [
  ind('QUADRATIC_ROOT_SIGN', 'When the problem involves solving quadratic equations for roots'),
  ind('UNIT_CONVERSION', 'When the agent converts between units of measure'),
  ind('PROBABILITY_COUNTING', 'When the problem involves counting outcomes for a probability'),
  ind('GEOMETRY_AREA', 'When the problem involves the area of triangles and circles'),
  ind('OFF_BY_ONE_LOOP', 'When the agent writes a loop over list indices in code'),
  ind('QUADRATIC_DISCRIMINANT', 'When the agent uses the discriminant of quadratic equations'),
];

const KEYWORDS = JSON.stringify({ scenario_keywords: ['quadratic equations', 'roots'], action_keywords: ['solving for roots'] });
const QUERY = 'Problem Scenario: quadratic equations, roots Agent Action: solving for roots';

const verdict = (v: Partial<Record<string, unknown>>) =>
  JSON.stringify({ evidence_quote: 'N/A', analysis: 'N/A', suggestion: 'N/A', impact_assessment: 'NO, nothing to change', is_flawed: false, ...v });
const FLAW = verdict({ evidence_quote: 'x = 3', analysis: 'the negative root is missing', suggestion: 'Add the root x = -3', impact_assessment: 'YES, the answer changes', is_flawed: true });
const CLEAN = verdict({});

let server: TestServer;
let pool: PreparedPool;

const client = () =>
  new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { rectifier: 'rect-model', embeddings: 'embed-model', agents: 'agent-model' }, retries: 0, jsonMode: false }), {
    recorder: new CallRecorder(),
  });

const KW_RULE: ScriptedAnswer = { match: { contains: 'index agent messages' }, content: KEYWORDS };
const REGEN_RULE: ScriptedAnswer = { match: { contains: 'A reviewer checked your last message' }, content: 'x = 3 or x = -3' };

function script(rules: ScriptedAnswer[], fallback: ScriptedAnswer = { content: CLEAN }) {
  server.setScript({ rules: [KW_RULE, REGEN_RULE, ...rules], fallback });
  server.log().length = 0;
}

const requests = () => server.log().filter((e) => e.path.startsWith('/v1/'));
const chatCalls = () => requests().filter((e) => e.path === '/v1/chat/completions');
const embedCalls = () => requests().filter((e) => e.path === '/v1/embeddings');
const bodyText = (e: { body: unknown }) => JSON.stringify(e.body);

const params = (p: Partial<RectifyParams> = {}): RectifyParams => ({ ...DEFAULT_RECTIFY_PARAMS, domain: 'math', ...p });
const MSG = {
  task: 'Solve x^2 = 9.',
  agent: { name: 'Solver', role: 'math expert' },
  input: [
    { role: 'system', content: 'You are Solver.' },
    { role: 'user', content: 'Task: Solve x^2 = 9.' },
  ],
  output: 'x = 3',
};

beforeAll(async () => {
  server = await startTestServer();
  server.setScript({});
  pool = await preparePool({ name: 'test-pool', indicators: POOL }, { client: client(), cache: new MemoryEmbeddingCache() });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe('retrieval', () => {
  it('embeds the pool once per (texts, model) and ranks by cosine with the keyword query', async () => {
    const cache = new MemoryEmbeddingCache();
    const first = await preparePool({ name: 'p', indicators: POOL }, { client: client(), cache });
    expect(first.fromCache).toBe(false);
    expect(embedCalls()).toHaveLength(1);
    expect((embedCalls()[0].body as { input: string[] }).input).toEqual(POOL.map((i) => i.evaluator_prompt.trigger_condition));
    const again = await preparePool({ name: 'p', indicators: POOL }, { client: client(), cache });
    expect(again.fromCache).toBe(true);
    expect(embedCalls()).toHaveLength(1);

    script([]);
    const g = await gateMessage(MSG, { pool, params: params({ k: 3 }), client: client() });
    // The query the rectifier embedded, and the order an independent cosine over the server's embeddings gives.
    expect(g.attempts[0].query).toBe(QUERY);
    const q = hashedEmbedding(QUERY, 64);
    const expected = POOL.map((p, index) => ({ index, s: cosine(q, hashedEmbedding(p.evaluator_prompt.trigger_condition, 64)) }))
      .sort((a, b) => b.s - a.s || a.index - b.index)
      .slice(0, 3);
    expect(g.attempts[0].retrieved.map((r) => r.index)).toEqual(expected.map((e) => e.index));
    expect(g.attempts[0].retrieved[0].name).toMatch(/^QUADRATIC_/);
    expect(g.attempts[0].retrieved.map((r) => r.score)).toEqual(expected.map((e) => expect.closeTo(e.s, 10)));
    // The audits asked about exactly the retrieved indicators.
    const audited = chatCalls().filter((e) => bodyText(e).includes('Area of concern:')).map((e) => /Area of concern: (\w+)/.exec(bodyText(e))![1]);
    expect(audited.sort()).toEqual(g.attempts[0].retrieved.map((r) => r.name).sort());
  });
});

describe('gating one message', () => {
  it('pass at attempt 1: keywords + query embedding + K audits at temperature 0, nothing else', async () => {
    script([]);
    const g = await gateMessage(MSG, { pool, params: params({ k: 5 }), client: client() });
    expect(g.state).toBe('pass');
    expect(g.passedAt).toBe(1);
    expect(g.finalOutput).toBe('x = 3');
    expect(chatCalls()).toHaveLength(1 + 5);
    expect(embedCalls()).toHaveLength(1);
    expect(g.calls).toBe(7);
    expect(g.llmCallIds).toHaveLength(7);
    for (const e of chatCalls()) expect((e.body as { temperature: number }).temperature).toBe(0);
    expect(g.attempts[0].audits.every((a) => a.verdict && !a.flawed)).toBe(true);
  });

  it('pass after feedback: the agent regenerates from its recorded input plus the composed feedback', async () => {
    script([{ match: { contains: 'Message to review:\nx = 3\n' }, content: CLEAN }, { match: { contains: 'Area of concern: QUADRATIC_ROOT_SIGN' }, times: 1, content: FLAW }]);
    const g = await gateMessage({ ...MSG, output: 'x = 3 only' }, { pool, params: params({ k: 5 }), client: client() });
    expect(g.state).toBe('pass');
    expect(g.passedAt).toBe(2);
    expect(g.finalOutput).toBe('x = 3 or x = -3');
    expect(g.attempts).toHaveLength(2);
    expect(g.attempts[0].flawed).toBe(true);
    expect(g.attempts[0].audits.filter((a) => a.flawed).map((a) => a.indicator)).toEqual(['QUADRATIC_ROOT_SIGN']);
    // (1 + 1 + 5) per attempt, one regeneration between them.
    expect(requests()).toHaveLength(2 * 7 + 1);
    expect(g.calls).toBe(15);
    const regen = chatCalls().filter((e) => bodyText(e).includes('A reviewer checked your last message'));
    expect(regen).toHaveLength(1);
    const body = regen[0].body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe('agent-model');
    expect(body.messages.slice(0, 2)).toEqual(MSG.input);
    expect(body.messages[2]).toEqual({ role: 'assistant', content: 'x = 3 only' });
    const feedback = body.messages[3].content;
    expect(feedback).toContain('QUADRATIC_ROOT_SIGN');
    expect(feedback).toContain('Add the root x = -3');
    expect(feedback).toContain('the negative root is missing');
    expect(feedback).toMatch(/reviewer can be wrong/i);
    expect(g.attempts[0].feedback).toBe(feedback);
  });

  it('reject after T_max: three flawed attempts, two regenerations, message pruned', async () => {
    script([{ match: { contains: 'Area of concern: QUADRATIC_' }, content: FLAW }]);
    const g = await gateMessage(MSG, { pool, params: params({ k: 5, tMax: 3 }), client: client() });
    expect(g.state).toBe('rejected');
    expect(g.finalOutput).toBeNull();
    expect(g.attempts).toHaveLength(3);
    expect(g.attempts.every((a) => a.flawed)).toBe(true);
    expect(g.attempts[2].feedback).toBeUndefined();
    expect(requests()).toHaveLength(3 * 7 + 2);
    expect(chatCalls().filter((e) => bodyText(e).includes('A reviewer checked your last message'))).toHaveLength(2);
  });

  it('three-part rule: is_flawed true counts only with a concrete suggestion AND a yes impact', async () => {
    script([
      { match: { contains: 'Area of concern: QUADRATIC_ROOT_SIGN' }, content: verdict({ is_flawed: true, suggestion: 'N/A', impact_assessment: 'YES' }) },
      { match: { contains: 'Area of concern: QUADRATIC_DISCRIMINANT' }, content: verdict({ is_flawed: true, suggestion: 'Use b^2 - 4ac', impact_assessment: 'NO, the answer stays the same' }) },
      { match: { contains: 'Area of concern: UNIT_CONVERSION' }, content: verdict({ is_flawed: true, suggestion: '  none ', impact_assessment: 'YES' }) },
    ]);
    const g = await gateMessage(MSG, { pool, params: params({ k: 6 }), client: client() });
    expect(g.state).toBe('pass');
    expect(g.passedAt).toBe(1);
    const byName = new Map(g.attempts[0].audits.map((a) => [a.indicator, a]));
    expect(byName.get('QUADRATIC_ROOT_SIGN')).toMatchObject({ flawed: false, note: expect.stringMatching(/not a concrete fix/) });
    expect(byName.get('QUADRATIC_DISCRIMINANT')).toMatchObject({ flawed: false, note: expect.stringMatching(/does not say yes/) });
    expect(byName.get('UNIT_CONVERSION')).toMatchObject({ flawed: false, note: expect.stringMatching(/not a concrete fix/) });
    expect(requests()).toHaveLength(1 + 1 + 6);
  });

  it('an unreadable audit is retried once, then dropped and reported; it does not decide anything', async () => {
    script([{ match: { contains: 'Area of concern: QUADRATIC_ROOT_SIGN' }, content: 'I think it is fine, mostly.' }]);
    const g = await gateMessage(MSG, { pool, params: params({ k: 5, auditRetries: 1 }), client: client() });
    expect(g.state).toBe('pass');
    expect(g.droppedAudits).toBe(1);
    const dropped = g.attempts[0].audits.find((a) => a.indicator === 'QUADRATIC_ROOT_SIGN')!;
    expect(dropped).toMatchObject({ tries: 2, flawed: false, dropped: expect.stringMatching(/contains no JSON object/) });
    expect(dropped.rawAnswer).toBe('I think it is fine, mostly.');
    // 1 keyword + 1 embedding + 5 audits + 1 retry of the unreadable one.
    expect(requests()).toHaveLength(8);
    const retry = chatCalls().filter((e) => bodyText(e).includes('could not be read'));
    expect(retry).toHaveLength(1);
    expect(bodyText(retry[0])).toContain('QUADRATIC_ROOT_SIGN');
  });

  it('an audit readable on its retry counts', async () => {
    script([
      { match: { contains: 'could not be read' }, content: FLAW },
      { match: { contains: 'Area of concern: QUADRATIC_ROOT_SIGN' }, times: 1, content: '{"evidence_quote": "x"' },
    ]);
    const g = await gateMessage(MSG, { pool, params: params({ k: 5, tMax: 1 }), client: client() });
    expect(g.state).toBe('rejected');
    expect(g.droppedAudits).toBe(0);
    expect(g.attempts[0].audits.find((a) => a.indicator === 'QUADRATIC_ROOT_SIGN')).toMatchObject({ tries: 2, flawed: true });
    expect(requests()).toHaveLength(8);
  });

  it('an unreadable keyword answer: the query falls back to the texts themselves, said so, same number of calls', async () => {
    server.setScript({ rules: [{ match: { contains: 'index agent messages' }, content: 'quadratics, I guess' }], fallback: { content: CLEAN } });
    const g = await gateMessage(MSG, { pool, params: params({ k: 2 }), client: client() });
    expect(g.state).toBe('pass');
    expect(g.attempts[0].keywords).toBeUndefined();
    expect(g.attempts[0].keywordProblem).toMatch(/could not be read/);
    expect(g.attempts[0].query).toBe('Problem Scenario: Solve x^2 = 9. Agent Action: x = 3');
    expect(requests()).toHaveLength(1 + 1 + 2);
  });

  it('zero-shot: one audit per attempt against the general indicator, no retrieval calls', async () => {
    script([]);
    const g = await gateMessage(MSG, { pool, params: params({ zeroShot: true }), client: client() });
    expect(g.state).toBe('pass');
    expect(requests()).toHaveLength(1);
    expect(bodyText(chatCalls()[0])).toContain(GENERAL_INDICATORS.math.name);
    expect(g.attempts[0].retrieval).toBe('general');
  });

  it('offline: BM25 retrieval only, labelled, no request and no verdict', async () => {
    const offlinePool = await preparePool({ name: 'p', indicators: POOL });
    const g = await gateMessage({ ...MSG, output: 'I solve the quadratic equations for roots: x = 3' }, { pool: offlinePool, params: params({ k: 2 }) });
    expect(g.state).toBe('not-audited');
    expect(g.offline).toBe(true);
    expect(g.attempts[0].retrieval).toBe('bm25');
    expect(g.attempts[0].retrieved[0].name).toBe('QUADRATIC_ROOT_SIGN');
    expect(g.attempts[0].audits).toEqual([]);
    expect(requests()).toHaveLength(0);
  });
});

function chatRun(): Run {
  const msg = (i: number, agentId: string, output: string) => ({ id: `r:s${i}`, index: i, kind: 'message' as const, agentId, number: i, output });
  return {
    id: 'r',
    title: 'chat',
    task: 'Solve x^2 = 9.',
    sourceFormat: 'chat-log',
    models: [],
    outcome: { status: 'failure', referenceAnswer: '3 or -3' },
    tags: { dataset: 'test' },
    agents: [
      { id: 'user', name: 'user', kind: 'human' },
      { id: 'A', name: 'Alice' },
      { id: 'T', name: 'terminal', kind: 'system' },
      { id: 'B', name: 'Bob' },
    ],
    agentRuns: [],
    steps: [msg(0, 'user', 'Please solve x^2 = 9.'), msg(1, 'A', 'SECRET_A says x = 3'), msg(2, 'T', 'exitcode: 0'), msg(3, 'B', 'Bob agrees: x = 3')],
    handoffs: [],
    annotations: [],
    interventions: [],
    orphanSpans: 0,
  };
}

describe('replaying a recorded chat run', () => {
  it('audits agent messages only; a rejected message is hidden from later agents', async () => {
    script([{ match: { contains: 'Message to review:\nSECRET_A' }, content: FLAW }, { match: { contains: 'Message to review:\nx = 3 or x = -3' }, content: FLAW }]);
    const result = await rectifyRun(chatRun(), { pool, params: params({ k: 2, tMax: 2 }), client: client() });
    expect(result.status).toBe('complete');
    expect(result.interventions.map((i) => [i.stepId, i.action])).toEqual([
      ['r:s1', 'rejected'],
      ['r:s3', 'pass@1'],
    ]);
    // Alice: 2 attempts × (1 + 1 + 2) + 1 regeneration; Bob: 1 + 1 + 2.
    expect(requests()).toHaveLength(9 + 4);
    expect(result.interventions[0].details?.calls).toBe(9);
    expect(result.interventions[1].details?.calls).toBe(4);
    const bobAudits = chatCalls().filter((e) => bodyText(e).includes('Bob agrees') && bodyText(e).includes('Area of concern:'));
    expect(bobAudits.length).toBeGreaterThan(0);
    for (const e of bobAudits) {
      expect(bodyText(e)).not.toContain('SECRET_A');
      expect(bodyText(e)).toContain('Please solve x^2 = 9.');
    }
    expect(result.fallback).toBeUndefined();
    // Alice's retry saw the task and the user's message, never her own rejected text as someone else's message.
    const regen = chatCalls().find((e) => bodyText(e).includes('A reviewer checked your last message'))!;
    expect((regen.body as { messages: { content: string }[] }).messages.map((m) => m.content).slice(1, 3)).toEqual(['Task:\nSolve x^2 = 9.', 'user: Please solve x^2 = 9.']);
    const run = { ...chatRun(), interventions: result.interventions };
    expect(rectifierEffects(run)).toMatchObject({ pruned: new Set(['r:s1']), fallback: false, audited: 2 });
  });

  it('global fallback: fewer than γ surviving messages restarts without auditing (the recording stands)', async () => {
    script([{ match: { contains: 'Area of concern:' }, content: FLAW }]);
    const result = await rectifyRun(chatRun(), { pool, params: params({ k: 1, tMax: 1, gamma: 1 }), client: client() });
    expect(result.interventions.map((i) => i.action)).toEqual(['rejected', 'rejected']);
    expect(result.fallback).toMatchObject({ action: 'global-fallback', details: { valid: 0, gamma: 1, audited: 2 } });
    expect(requests()).toHaveLength(2 * 3);
    const run = { ...chatRun(), interventions: [...result.interventions, result.fallback!] };
    expect(rectifierEffects(run).fallback).toBe(true);
  });

  it('γ = 2 with one survivor also falls back; γ = 1 with one survivor does not', async () => {
    script([{ match: { contains: 'Message to review:\nSECRET_A' }, content: FLAW }]);
    const two = await rectifyRun(chatRun(), { pool, params: params({ k: 1, tMax: 1, gamma: 2 }), client: client() });
    expect(two.interventions.map((i) => i.action)).toEqual(['rejected', 'pass@1']);
    expect(two.fallback?.details).toMatchObject({ valid: 1, gamma: 2 });
    script([{ match: { contains: 'Message to review:\nSECRET_A' }, content: FLAW }]);
    const one = await rectifyRun(chatRun(), { pool, params: params({ k: 1, tMax: 1, gamma: 1 }), client: client() });
    expect(one.fallback).toBeUndefined();
  });

  it('resumes from earlier interventions without asking again, and a failed call stops cleanly', async () => {
    script([], { status: 500 });
    const failed = await rectifyRun(chatRun(), { pool, params: params({ k: 1 }), client: client() });
    expect(failed.status).toBe('failed');
    expect(failed.failure).toMatchObject({ stepId: 'r:s1', agent: 'Alice', message: expect.stringMatching(/HTTP 500/) });
    expect(failed.interventions).toEqual([]);
    script([]);
    const first = await rectifyRun(chatRun(), { pool, params: params({ k: 1 }), client: client() });
    script([]);
    const resumed = await rectifyRun(chatRun(), { pool, params: params({ k: 1 }), client: client(), previous: first.interventions.slice(0, 1) });
    expect(resumed.interventions[0]).toBe(first.interventions[0]);
    expect(requests()).toHaveLength(3);
  });

  it('native sessions: the recorded prompt is the input, minus rejected messages and with rectified ones replaced', async () => {
    const run = chatRun();
    run.steps[3] = {
      ...run.steps[3],
      input: [
        { role: 'system', content: 'You are Bob, the checker.' },
        { role: 'user', content: 'Please solve x^2 = 9.' },
        { role: 'user', content: 'SECRET_A says x = 3' },
      ],
    };
    script([{ match: { contains: 'Agent: Alice' }, content: FLAW }, { match: { contains: 'Agent: Bob' }, times: 1, content: FLAW }]);
    const result = await rectifyRun(run, { pool, params: params({ k: 1, tMax: 2 }), client: client() });
    expect(result.interventions.map((i) => i.action)).toEqual(['rejected', 'pass@2']);
    const bobRegen = chatCalls().filter((e) => bodyText(e).includes('A reviewer checked your last message') && bodyText(e).includes('You are Bob, the checker.'));
    expect(bobRegen).toHaveLength(1);
    const msgs = (bobRegen[0].body as { messages: { role: string; content: string }[] }).messages;
    expect(msgs.slice(0, 2)).toEqual([
      { role: 'system', content: 'You are Bob, the checker.' },
      { role: 'user', content: 'Please solve x^2 = 9.' },
    ]);
    expect(bodyText(bobRegen[0])).not.toContain('SECRET_A');
  });

  it('a cancel stops between calls and keeps what was finished', async () => {
    script([{ match: { contains: 'Agent: Bob' }, delayMs: 2000, content: CLEAN }]);
    const controller = new AbortController();
    const seen: string[] = [];
    const result = await rectifyRun(chatRun(), {
      pool,
      params: params({ k: 1 }),
      client: client(),
      signal: controller.signal,
      onItem: (iv) => {
        seen.push(iv.action);
        controller.abort();
      },
    });
    expect(result.status).toBe('cancelled');
    expect(result.interventions.map((i) => i.action)).toEqual(['pass@1']);
    expect(seen).toEqual(['pass@1']);
  });
});
