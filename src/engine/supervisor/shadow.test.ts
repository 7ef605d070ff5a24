// Shadow replay on hand-made runs: token accounting (recorded prompts vs assumed ReAct memory), resume, cancel,
// failure, verification, and the LLM path against the test server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, Cassette, LlmClient, withDefaults } from '../../llm/index.ts';
import type { Run, Step } from '../../model/types.ts';
import { filterParams } from './filter.ts';
import { accountTokens, shadowReplay, type ShadowProgress } from './shadow.ts';

const words = (t: string) => (t.match(/\S+/g) ?? []).length;
const LONG = Array.from({ length: 400 }, (_, i) => `<div class="c${i}" data-k="${i}">word${i}</div>`).join('\n');

function makeRun(opts: { prompts?: boolean; error?: boolean } = {}): Run {
  const steps: Step[] = [];
  const add = (s: Omit<Step, 'index'>) => steps.push({ ...s, index: steps.length } as Step);
  const call = (id: string, parent: string, input: number, prompt?: string) =>
    add({ id, kind: 'llm', agentId: 'a', agentRunId: 'r', parentStepId: parent, usage: { input, output: 10, total: input + 10 }, ...(opts.prompts && prompt !== undefined ? { input: [{ role: 'user', content: prompt }] } : {}) });
  add({ id: 's1', kind: 'action', agentId: 'a', agentRunId: 'r', number: 1, observation: LONG, toolCalls: [{ name: 'visit_page', arguments: '{"url":"x"}' }] });
  call('c1', 's1', 1000, 'task only');
  add({ id: 's2', kind: 'action', agentId: 'a', agentRunId: 'r', number: 2, observation: 'ok', toolCalls: [{ name: 'web_search', arguments: '{}' }], ...(opts.error ? { error: { message: 'FileNotFoundError: no such file' } } : {}) });
  call('c2', 's2', 3000, `history ${LONG}`);
  add({ id: 's3', kind: 'action', agentId: 'a', agentRunId: 'r', number: 3, observation: 'done', toolCalls: [{ name: 'final_answer', arguments: '{}' }] });
  call('c3', 's3', 3500, 'a prompt that dropped the old page');
  // Another agent run of another agent: never affected by the first run's observation.
  add({ id: 'o1', kind: 'action', agentId: 'b', agentRunId: 'r2', number: 1, observation: 'x', toolCalls: [] });
  add({ id: 'oc', kind: 'llm', agentId: 'b', agentRunId: 'r2', parentStepId: 'o1', usage: { input: 5000, output: 10, total: 5010 } });
  return {
    id: 'run1', title: 't', task: 'global task', sourceFormat: 'native', models: [], outcome: { status: 'unknown' }, tags: {},
    agents: [{ id: 'a', name: 'alpha' }, { id: 'b', name: 'beta' }],
    agentRuns: [{ id: 'r', agentId: 'a', task: 'local task' }, { id: 'r2', agentId: 'b' }],
    steps, handoffs: [], annotations: [], interventions: [], orphanSpans: 0,
  };
}

const params = filterParams({ tauStep: 100, tauLoop: 100, tauLen: 3000 });

describe('shadow replay offline', () => {
  it('purifies the long observation and estimates the saving over later calls of the same agent run (ReAct memory)', async () => {
    const run = makeRun();
    const result = await shadowReplay(run, { params, countTokens: words });
    expect(result.status).toBe('complete');
    expect(result.interventions).toHaveLength(1);
    const iv = result.interventions[0];
    expect(iv).toMatchObject({ stepId: 's1', context: 'excessive', action: 'correct_observation', heuristic: true });
    const delta = words(LONG) - words(iv.details!.newObservation as string);
    expect(delta).toBeGreaterThan(0);
    // c1 is the step's own call (made before the observation existed); c2 and c3 are later; oc is another run.
    expect(result.tokens.affectedCalls[iv.id]).toBe(2);
    expect(result.tokens.baseline).toBe(1010 + 3010 + 3510 + 5010);
    expect(result.tokens.supervisedEstimate).toBe(result.tokens.baseline - 2 * delta);
    expect(result.tokens.supervisorOverhead).toBe(0);
    expect(result.tokens.estimate).toBe(true);
  });

  it('with recorded prompts, only calls whose prompt contained the observation count', async () => {
    const result = await shadowReplay(makeRun({ prompts: true }), { params, countTokens: words });
    const iv = result.interventions[0];
    expect(result.tokens.affectedCalls[iv.id]).toBe(1);
    const delta = words(LONG) - words(iv.details!.newObservation as string);
    expect(result.tokens.baseline - result.tokens.supervisedEstimate).toBe(delta);
  });

  it('reports progress, and resumes from earlier interventions without redoing them', async () => {
    const run = makeRun({ error: true });
    const first = await shadowReplay(run, { params, countTokens: words });
    expect(first.interventions.map((i) => i.context)).toEqual(['excessive', 'error']);
    expect(first.interventions[1].details!.guidance).toMatch(/path does not exist/);
    const seen: boolean[] = [];
    const progress: ShadowProgress[] = [];
    const again = await shadowReplay(run, {
      params,
      countTokens: words,
      previous: [first.interventions[0]],
      onItem: (_, resumed) => seen.push(resumed),
      onProgress: (p) => progress.push(p),
    });
    expect(seen).toEqual([true, false]);
    expect(again.interventions[0]).toBe(first.interventions[0]);
    expect(progress.at(-1)).toEqual({ done: run.steps.length, total: run.steps.length, triggers: 2, interventions: 2 });
  });

  it('stops at once when cancelled, keeping what was done', async () => {
    const ctl = new AbortController();
    const result = await shadowReplay(makeRun({ error: true }), {
      params,
      countTokens: words,
      signal: ctl.signal,
      onItem: () => ctl.abort(),
    });
    expect(result.status).toBe('cancelled');
    expect(result.interventions).toHaveLength(1);
  });

  it('accountTokens counts guidance as added tokens and overhead from intervention usage', () => {
    const run = makeRun();
    const s = accountTokens(
      run,
      [{ id: 'i', engine: 'supervisor', stepId: 's2', action: 'provide_guidance', reason: '', heuristic: false, tokens: { input: 50, output: 5, total: 55 }, details: { originalObservation: 'ok', newObservation: 'ok plus four words' } }],
      words,
    );
    expect(s.supervisedEstimate).toBe(s.baseline + 3);
    expect(s.supervisorOverhead).toBe(55);
    expect(s.netSaving).toBe(-58);
    expect(s.notShortened).toEqual([]);
  });

  it('a purification that did not shorten the observation saves nothing (not negative, not positive) and is flagged', () => {
    const run = makeRun();
    const purify = (id: string, newObservation: string) => ({ id, engine: 'supervisor' as const, stepId: 's2', action: 'correct_observation' as const, reason: '', heuristic: true, details: { originalObservation: 'ok', newObservation } });
    // Longer: the recorded prompts would have grown, but a purification is never counted as a cost or a saving.
    const longer = accountTokens(run, [purify('p1', 'ok plus four words')], words);
    expect(longer.supervisedEstimate).toBe(longer.baseline);
    expect(longer.netSaving).toBe(0);
    expect(longer.netSavingPct).toBe(0);
    expect(longer.notShortened).toEqual(['p1']);
    expect(longer.affectedCalls).toEqual({ p1: 0 });
    // Same length: flagged too. A shorter one alongside still counts on its own.
    const same = accountTokens(run, [purify('p2', 'no')], words);
    expect(same.notShortened).toEqual(['p2']);
    expect(same.netSaving).toBe(0);
  });
});

describe('shadow replay through the endpoint', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());
  const client = (recorder = new CallRecorder()) =>
    new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { supervisor: 'm' }, retries: 1, retryBaseMs: 5 }), { recorder });

  it('run_verification makes a second call and appends its finding; usage becomes the overhead', async () => {
    server.setScript({
      rules: [
        { match: { contains: 'shorten raw tool observations' }, content: 'short page', usage: { prompt_tokens: 40, completion_tokens: 2 } },
        { match: { contains: 'failed with an error' }, content: '{"analysis":"x","action":"run_verification","parameters":{"task":"Does file a.txt exist?"}}', usage: { prompt_tokens: 30, completion_tokens: 5 } },
        { match: { contains: 'verification assistant' }, content: 'No, it does not.', usage: { prompt_tokens: 10, completion_tokens: 4 } },
      ],
    });
    const recorder = new CallRecorder();
    const result = await shadowReplay(makeRun({ error: true }), { params, client: client(recorder), countTokens: words });
    expect(result.status).toBe('complete');
    const [purify, verify] = result.interventions;
    expect(purify).toMatchObject({ action: 'correct_observation', heuristic: false });
    expect(purify.details!.newObservation).toMatch(/short page$/);
    expect(verify).toMatchObject({ context: 'error', action: 'run_verification', heuristic: false });
    expect(verify.llmCallIds).toHaveLength(2);
    expect(verify.details!.newObservation).toMatch(/verification of "Does file a.txt exist\?": No, it does not\.\]$/);
    expect(result.tokens.supervisorOverhead).toBe(42 + 35 + 14);

    // The recorded calls replay the same session offline.
    await server.close();
    try {
      const offline = new LlmClient(withDefaults({ baseUrl: 'http://127.0.0.1:9/v1', models: { supervisor: 'm' } }), { cassette: new Cassette(recorder.records) });
      const replayed = await shadowReplay(makeRun({ error: true }), { params, client: offline, countTokens: words });
      expect(replayed.interventions.map((i) => i.details!.newObservation)).toEqual(result.interventions.map((i) => i.details!.newObservation));
      expect(replayed.tokens).toEqual(result.tokens);
    } finally {
      server = await startTestServer();
    }
  });

  it('a disallowed answer falls back to the heuristic and says so', async () => {
    server.setScript({ fallback: { content: '{"analysis":"fine","action":"approve","parameters":{}}' } });
    const result = await shadowReplay(makeRun({ error: true }), { params: filterParams({ tauStep: 100, tauLoop: 100, tauLen: 1e9 }), client: client(), countTokens: words });
    const [iv] = result.interventions;
    expect(iv).toMatchObject({ context: 'error', action: 'provide_guidance', heuristic: true });
    expect(iv.details!.fallback).toMatch(/no allowed action/);
    expect(iv.details!.repairs).toEqual(['approve is not allowed here (allowed: correct_observation, provide_guidance, run_verification)']);
  });

  it('a failure stops the replay with the failing step named and the finished interventions kept', async () => {
    server.setScript({ queue: [{ content: 'short page' }], fallback: { status: 503 } });
    const result = await shadowReplay(makeRun({ error: true }), { params, client: client(), countTokens: words });
    expect(result.status).toBe('failed');
    expect(result.interventions).toHaveLength(1);
    expect(result.failure).toMatchObject({ stepId: 's2', stepNumber: 2, agent: 'alpha', context: 'error' });
    expect(result.failure!.message).toMatch(/HTTP 503/);
  });
});
