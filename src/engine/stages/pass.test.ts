// The Planner → Evaluator → Updater pass against the project's OpenAI-compatible test server over real HTTP:
// call order and content, parsed task states, usage, repairs and fallbacks, failure with resume, cancel, and an
// offline replay of the recorded calls.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, Cassette, LlmClient, withDefaults } from '../../llm/index.ts';
import { Stage as StageSchema } from '../../model/schema.ts';
import type { Stage } from '../../model/types.ts';
import { parseEvaluation, parseTaskState } from './parse.ts';
import { stagePass } from './pass.ts';
import { ROLE_MARKERS } from './prompts.ts';
import { managerRun } from '../../testing/stage-runs.ts';

const PLAN = JSON.stringify({
  subtasks: [
    { id: 's1', title: 'Search for the town', status: 'TODO' },
    { id: 's2', title: 'Read the census figure', status: 'TODO' },
  ],
  next_subtask_id: 's1',
  summary: 'Nothing done yet.',
});
const UPDATE = JSON.stringify({
  subtasks: [
    { id: 's1', title: 'Search for the town', status: 'DONE' },
    { id: 's2', title: 'Read the census figure', status: 'TODO' },
  ],
  next_subtask_id: 's2',
  summary: 'The town was found.',
});
const VERDICT = '{"verdict":"success","confidence":0.8,"feedback":"The page was found."}';

const roleOf = (body: unknown) => {
  const text = JSON.stringify(body);
  return (Object.keys(ROLE_MARKERS) as (keyof typeof ROLE_MARKERS)[]).find((k) => text.includes(ROLE_MARKERS[k]));
};

describe('stage pass through the endpoint', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());
  const client = (recorder = new CallRecorder()) =>
    new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { supervisor: 'judge' }, retries: 1, retryBaseMs: 5 }), { recorder });
  const script = () =>
    server.setScript({
      rules: [
        { match: { contains: ROLE_MARKERS.planner }, content: PLAN, usage: { prompt_tokens: 100, completion_tokens: 20 } },
        { match: { contains: ROLE_MARKERS.evaluator }, content: VERDICT, usage: { prompt_tokens: 50, completion_tokens: 10 } },
        { match: { contains: ROLE_MARKERS.updater }, content: UPDATE, usage: { prompt_tokens: 70, completion_tokens: 30 } },
      ],
    });

  it('plans once, then evaluates and updates per stage, closing after the last; every call recorded with its usage', async () => {
    script();
    const recorder = new CallRecorder();
    const seen: Stage[] = [];
    const result = await stagePass(managerRun(), { client: client(recorder), onItem: (s) => seen.push(s) });
    expect(result.status).toBe('complete');
    // 4 stages + the closing state; planner once, then evaluator + updater for stages 2, 3, 4 and the closing state.
    expect(result.stages.map((s) => s.id)).toEqual(['stage-1', 'stage-2', 'stage-3', 'stage-4', 'stage-closing']);
    expect(seen).toEqual(result.stages);
    const roles = server.log().filter((e) => e.path.endsWith('/chat/completions')).map((e) => roleOf(e.body));
    expect(roles).toEqual(['planner', ...Array(4).fill(['evaluator', 'updater']).flat()]);
    expect(recorder.records).toHaveLength(9);
    expect(result.tokens.total).toBe(120 + 4 * (60 + 100));
    expect(result).toMatchObject({ calls: 9, total: 5 });

    const [first, second] = result.stages;
    expect(first).toMatchObject({ derivedBy: 'llm', heuristic: false, nextSubtaskId: 's1', summary: 'Nothing done yet.', startStepId: 'p1', endStepId: 'a1' });
    expect(first.verdict).toBeUndefined();
    expect(first.tokens).toEqual({ input: 100, output: 20, total: 120 });
    expect(second).toMatchObject({ verdict: 'success', confidence: 0.8, feedback: 'The page was found.', nextSubtaskId: 's2', startStepId: 'a2' });
    expect(second.subtasks.map((s) => s.status)).toEqual(['DONE', 'TODO']);
    expect(second.llmCallIds).toEqual(recorder.records.slice(1, 3).map((r) => r.id));
    // The workflow stays the observed one.
    expect(second.layers).toEqual([[{ agentId: 'm', turns: 1, frequency: 1 }], [{ agentId: 'w', turns: 1, frequency: 1 }]]);
    expect(result.stages.at(-1)).toMatchObject({ closing: true });
    expect(result.stages.at(-1)!.startStepId).toBeUndefined();
    for (const s of result.stages) expect(StageSchema.safeParse(s).success).toBe(true);

    // What the prompts carry: the task, the recorded steps of the stage judged, and the next stage for the updater.
    const bodies = server.log().map((e) => JSON.stringify(e.body));
    expect(bodies[0]).toContain('Find the population of the town');
    expect(bodies[1]).toContain('Recorded steps of stage 1');
    expect(bodies[1]).toContain('RateLimitError: too many requests');
    expect(bodies[2]).toContain('What the team does in the following stage (stage 2)');
    expect(bodies.at(-1)).toContain('This was the last stage of the recording.');
    expect((server.log()[0].body as { model: string }).model).toBe('judge');

    // Replaying the recorded calls offline gives the same stages without the network.
    const offline = new LlmClient(withDefaults({ baseUrl: 'http://127.0.0.1:9/v1', models: { supervisor: 'judge' } }), { cassette: new Cassette(recorder.records) });
    const replayed = await stagePass(managerRun(), { client: offline });
    expect(replayed.stages.map(({ llmCallIds: _a, ...s }) => s)).toEqual(result.stages.map(({ llmCallIds: _b, ...s }) => s));
  });

  it('an unreadable answer is asked again once, then falls back to the offline rule, marked heuristic', async () => {
    server.setScript({
      rules: [
        { match: { contains: ROLE_MARKERS.planner }, content: 'Here you go:\n```json\n' + PLAN + '\n```' },
        // The evaluator never answers in JSON: asked again, then the offline verdict is used.
        { match: { contains: ROLE_MARKERS.evaluator }, content: 'I think it went fine overall.' },
        // The updater claims DONE although the verdict (offline: failure) says otherwise.
        { match: { contains: ROLE_MARKERS.updater }, content: UPDATE },
      ],
    });
    const result = await stagePass(managerRun(), { client: client() });
    expect(result.status).toBe('complete');
    const [first, second] = result.stages;
    expect(first.heuristic).toBe(false);
    expect(first.notes).toEqual(['planner: took the JSON out of a code fence']);
    expect(second.heuristic).toBe(true);
    expect(second.verdict).toBe('failure');
    expect(second.feedback).toMatch(/manager step 2 failed: RateLimitError/);
    expect(second.notes).toContain('evaluator: the answer contains no JSON object; asked again: the answer contains no JSON object; used the offline rule\'s verdict');
    expect(second.notes).toContain('updater marked s1 DONE although the evaluator said failure; set it to FAILED');
    expect(second.subtasks.find((s) => s.id === 's1')!.status).toBe('FAILED');
    // Per stage after the first: evaluator twice (unreadable, asked again) + updater.
    expect(server.log()).toHaveLength(1 + 4 * 3);
  });

  it('a failed call stops the pass with the stage and role named; resuming asks only what is left', async () => {
    server.setScript({ queue: [{ content: PLAN }, { content: VERDICT }, { content: UPDATE }], fallback: { status: 503 } });
    const failed = await stagePass(managerRun(), { client: client() });
    expect(failed.status).toBe('failed');
    expect(failed.stages.map((s) => s.id)).toEqual(['stage-1', 'stage-2']);
    expect(failed.failure).toMatchObject({ stage: 2, role: 'evaluator' });
    expect(failed.failure!.message).toMatch(/HTTP 503/);

    server.reset();
    script();
    const resumed: boolean[] = [];
    const result = await stagePass(managerRun(), { client: client(), previous: failed.stages, onItem: (_s, r) => resumed.push(r) });
    expect(result.status).toBe('complete');
    expect(resumed).toEqual([true, true, false, false, false]);
    expect(result.stages.slice(0, 2)).toEqual(failed.stages);
    // Stages 3, 4 and the closing state: evaluator + updater each.
    expect(server.log()).toHaveLength(6);
    expect(result.tokens.total).toBe(3 * 160);
    expect(result.calls).toBe(6);
  });

  it('previous stages that no longer line up with the segmentation are not reused', async () => {
    script();
    const stale: Stage = { id: 'stage-1', index: 0, startStepId: 'elsewhere', subtasks: [], layers: [], derivedBy: 'llm' };
    const result = await stagePass(managerRun(), { client: client(), previous: [stale] });
    expect(result.stages[0].startStepId).toBe('p1');
    expect(server.log()).toHaveLength(9);
  });

  it('cancelling stops after the call in flight, keeping the stages done', async () => {
    server.setScript({ rules: [{ match: { contains: ROLE_MARKERS.planner }, content: PLAN }], fallback: { content: VERDICT, delayMs: 2000 } });
    const controller = new AbortController();
    const result = await stagePass(managerRun(), {
      client: client(),
      signal: controller.signal,
      onItem: (s) => s.id === 'stage-1' && setTimeout(() => controller.abort(), 50),
    });
    expect(result.status).toBe('cancelled');
    expect(result.stages.map((s) => s.id)).toEqual(['stage-1']);
    expect(result.failure).toBeUndefined();
  });
});

describe('answer parsing', () => {
  it('task states: statuses spelled loosely, ids kept by title, repeated ids renumbered, next matched by title', () => {
    const previous = [{ id: 's1', title: 'Search the web', status: 'TODO' as const }];
    const parsed = parseTaskState(
      '{"tasks":[{"title":"Search the web","status":"completed"},{"id":"s1","title":"Check","status":"needs refinement"},{"title":"Answer","status":"??"}],"next_subtask":"Answer","summary":"ok",}',
      previous,
    );
    expect(parsed.value).toEqual({
      subtasks: [
        { id: 's1', title: 'Search the web', status: 'DONE' },
        { id: 's2', title: 'Check', status: 'NEED-REFINE' },
        { id: 's3', title: 'Answer', status: 'TODO' },
      ],
      nextSubtaskId: 's3',
      summary: 'ok',
    });
    expect(parsed.repairs).toEqual([
      'ignored text around the JSON object',
      'removed trailing commas or typographic quotes',
      'read the subtask list from "tasks"',
      'read status "completed" as DONE',
      'gave the repeated id s1 a new one',
      'read status "needs refinement" as NEED-REFINE',
      'read the unknown status "??" of s3 as TODO',
      'matched the next subtask by its title',
    ]);
    expect(parseTaskState('{"subtasks":[]}').problem).toBe('the subtask list is empty');
    expect(parseTaskState('no json').problem).toBe('the answer contains no JSON object');
  });

  it('evaluations: verdict words, percentages and out-of-range confidence', () => {
    expect(parseEvaluation('{"verdict":"Needs Refinement","confidence":"85%","analysis":"half"}').value).toEqual({ verdict: 'needs_refinement', confidence: 0.85, feedback: 'half' });
    expect(parseEvaluation('{"verdict":"failed","confidence":70}').value).toEqual({ verdict: 'failure', confidence: 0.7, feedback: undefined });
    const wild = parseEvaluation('{"verdict":"success","confidence":-3}');
    expect(wild.value!.confidence).toBeUndefined();
    expect(wild.repairs).toContain('confidence -3 is outside 0..1; left empty');
    expect(parseEvaluation('{"verdict":"maybe"}').problem).toBe('no verdict could be read ("maybe")');
  });
});
