// Fork-and-continue against the test server: a fork with no change reproduces the recorded run without a live call;
// an edit at step k copies the steps before k and makes live calls from k+1 only; tool turns replay or stop; a real
// Who&When run forks the same way.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON, importShared, sharedFiles } from '../../testing/fixture-kit.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import type { Run, Step } from '../../model/types.ts';
import { editFromIntervention, forkProblem, forkRun } from './fork.ts';
import { defaultTeam, runTeam } from './runner.ts';
import type { LiveTask } from './tasks.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const client = (recorder = new CallRecorder()) =>
  new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { agents: 'agent-model' }, retries: 0, retryBaseMs: 1 }), { recorder });
const chatCalls = () => server.log().filter((e) => e.path === '/v1/chat/completions');
const task: LiveTask = { id: '1', question: 'A pen costs 3 dollars. How much do 5 pens cost?', answer: '15', domain: 'math' };
const texts = (run: Run) => run.steps.filter((s) => s.parentStepId === undefined).map((s) => `${s.agentId}: ${s.output}`);

async function recordedRun(): Promise<Run> {
  // Distinct answers per turn, so a replay that took the wrong recorded answer would show.
  server.setScript({ queue: [{ content: '5 × 3 = 15' }, { content: 'Checked: 15.' }, { content: 'Another way: 3+3+3+3+3 = 15.' }, { content: 'FINAL ANSWER: 15' }] });
  const { run } = await runTeam(task, defaultTeam('math'), { client: client(), runId: 'parent', tags: { dataset: 'toy', domain: 'math' } });
  server.reset();
  return run;
}

describe('forkRun on a runner run', () => {
  it('with no change reproduces the recorded run without a live call', async () => {
    const parent = await recordedRun();
    const fork = await forkRun(parent, { stepId: parent.steps[1].id, edit: { kind: 'none' }, client: client() });
    expect(chatCalls()).toHaveLength(0);
    expect(fork.status).toBe('complete');
    expect(texts(fork.run)).toEqual(texts(parent));
    expect(fork.stats).toMatchObject({ copied: 1, replayed: 3, live: 0 });
    expect(fork.run).toMatchObject({ parentRunId: parent.id, forkStepId: parent.steps[1].id });
    expect(fork.run.outcome).toMatchObject({ status: 'success', finalAnswer: '15' });
  });

  it('with an edit at step k copies the steps before k, carries the edit at k and calls live from k+1 only', async () => {
    const parent = await recordedRun();
    server.setScript({ queue: [{ content: 'Live critic: 5 × 4 = 20' }, { content: 'FINAL ANSWER: 20' }] });
    const recorder = new CallRecorder();
    const fork = await forkRun(parent, { stepId: parent.steps[1].id, edit: { kind: 'replace', text: 'Checked: the pen costs 4 dollars, so 20.' }, client: client(recorder) });
    expect(fork.status).toBe('complete');
    expect(fork.stats).toMatchObject({ copied: 1, edited: 1, replayed: 0, live: 2 });
    const calls = chatCalls();
    expect(calls).toHaveLength(2);
    expect(recorder.records).toHaveLength(2);
    const steps = fork.run.steps;
    expect(steps[0].output).toBe(parent.steps[0].output);
    expect(steps[1]).toMatchObject({ output: 'Checked: the pen costs 4 dollars, so 20.', runner: expect.objectContaining({ origin: 'edited', editedFrom: 'Checked: 15.' }) });
    expect(steps[2].runner).toMatchObject({ origin: 'live', llmCallId: recorder.records[0].id });
    // The live call saw the edited message, not the recorded one.
    const sent = JSON.stringify((calls[0].body as { messages: unknown }).messages);
    expect(sent).toContain('pen costs 4 dollars');
    expect(sent).not.toContain('Checked: 15.');
    expect(fork.run.interventions).toEqual([expect.objectContaining({ engine: 'human', action: 'edit_message', stepId: steps[1].id })]);
    expect(fork.run.outcome).toMatchObject({ status: 'failure', finalAnswer: '20' });
  });

  it('without an endpoint, a changed call stops the fork and says why', async () => {
    const parent = await recordedRun();
    const fork = await forkRun(parent, { stepId: parent.steps[0].id, edit: { kind: 'prune' } });
    expect(fork.status).toBe('stopped');
    expect(fork.reason).toMatch(/step 2 \(Checker\).*no endpoint/);
    expect(fork.run.steps).toHaveLength(1);
    expect(fork.run.steps[0].runner?.pruned).toBe(true);
  });

  it('turns an engine intervention into an edit', () => {
    expect(editFromIntervention({ id: 'i', engine: 'supervisor', action: 'correct_observation', reason: '', heuristic: true, details: { newObservation: 'clean' } })).toEqual({ kind: 'replace', text: 'clean' });
    expect(editFromIntervention({ id: 'i', engine: 'rectifier', action: 'reject', reason: '', heuristic: false })).toEqual({ kind: 'prune' });
    expect(editFromIntervention({ id: 'i', engine: 'supervisor', action: 'approve', reason: '', heuristic: true })).toBeUndefined();
  });
});

describe.skipIf(!HAVE_SHARED)(`forkRun on a real Who&When run${HAVE_SHARED ? '' : ` (${SKIP_REASON})`}`, () => {
  const whoWhen = () => importShared(join(SHARED_TRACES, 'who-and-when/hand-crafted/1.json')).runs[0];

  it('is forkable; with no change it reproduces every message without any endpoint', async () => {
    const parent = whoWhen();
    expect(forkProblem(parent)).toBeUndefined();
    const fork = await forkRun(parent, { stepId: parent.steps[3].id, edit: { kind: 'none' } });
    expect(fork.status).toBe('complete');
    expect(texts(fork.run)).toEqual(texts(parent));
    expect(fork.stats.live).toBe(0);
    expect(fork.stats.toolReplayed).toBeGreaterThan(0); // WebSurfer acts through a browser: replayed, identical request
  });

  it('with an edit, the Orchestrator goes live and the fork stops at the WebSurfer, whose request changed', async () => {
    const parent = whoWhen();
    server.setScript({ fallback: { content: 'Please look up dojos on Wall Street and report their evening hours.' } });
    const fork = await forkRun(parent, { stepId: parent.steps[1].id, edit: { kind: 'replace', text: 'Plan: search only for Brazilian jiu-jitsu gyms near 11 Wall Street.' }, client: client() });
    expect(fork.status).toBe('stopped');
    expect(fork.reason).toMatch(/step 5 \(WebSurfer\).*cannot run in the browser/);
    expect(fork.run.title).toMatch(/ at step 2 \(stopped at step 5\)$/);
    expect(fork.run.steps[1].usage).toBeUndefined();
    expect(fork.stats).toMatchObject({ copied: 1, edited: 1, live: 2 });
    expect(chatCalls()).toHaveLength(2);
    const first = chatCalls()[0].body as { messages: { role: string; content: string }[] };
    expect(first.messages[0].content).toContain('You are Orchestrator');
    expect(first.messages.at(-1)?.content).toBe('Continue, as Orchestrator.');
  });

  it('every Who&When run, forked without a change at its middle step, is reproduced without an endpoint', async () => {
    const files = sharedFiles('who-and-when');
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      for (const parent of importShared(file).runs) {
        const top = parent.steps.filter((s) => s.parentStepId === undefined);
        const fork = await forkRun(parent, { stepId: top[Math.floor(top.length / 2)].id, edit: { kind: 'none' } });
        expect(fork.status, file).toBe('complete');
        expect(texts(fork.run), file).toEqual(texts(parent));
        expect(fork.stats.live).toBe(0);
      }
    }
  });

  it('refuses runs that are not chat-style, with the reason', () => {
    const trail = importShared(join(SHARED_TRACES, 'trail/gaia/0ebe673d64647ec44c370638b82d3c78.json')).runs[0];
    expect(forkProblem(trail)).toMatch(/^forks need chat turns, or model calls with recorded prompts and tool calls/);
  });

  it('names the step that blocks a fork by its 1-based number in the step list, once', () => {
    const trail = importShared(join(SHARED_TRACES, 'trail/gaia/0ebe673d64647ec44c370638b82d3c78.json')).runs[0];
    const first = trail.steps.filter((s) => s.parentStepId === undefined)[0];
    const problem = forkProblem(trail) ?? '';
    expect(problem).toContain(`(step 1 is a${first.kind === 'action' ? 'n' : ''} ${first.kind} step, not a chat turn)`);
    expect(problem).not.toMatch(/step 0\b/);
    expect(problem.split(`is a${first.kind === 'action' ? 'n' : ''} ${first.kind} step`)).toHaveLength(2);
  });
});

describe('forkRun through recorded prompts (model calls and tool calls)', () => {
  const llm = (id: string, prompt: string, output: string): Step => ({ id, index: 0, kind: 'llm', agentId: 'pipeline', input: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: prompt }], output, usage: { input: 5, output: 5, total: 10 } });
  const pipeline = (): Run => {
    const steps: Step[] = [
      llm('a', 'Summarise: the sky is blue.', 'Blue sky.'),
      llm('b', 'Translate to French: Blue sky.', 'Ciel bleu.'),
      llm('c', 'Unrelated question: 2+2?', '4'),
      { id: 't', index: 0, kind: 'tool' as const, agentId: 'pipeline', name: 'search', inputText: 'Ciel bleu.', output: '3 results' },
      llm('d', 'Results: 3 results. Answer with FINAL ANSWER.', 'FINAL ANSWER: done'),
    ].map((s, i) => ({ ...s, index: i }));
    return { id: 'p', title: 'pipeline', sourceFormat: 'otlp', models: [], outcome: { status: 'unknown' }, tags: {}, agents: [{ id: 'pipeline', name: 'pipeline' }], agentRuns: [], steps, handoffs: [], annotations: [], interventions: [], orphanSpans: 0 };
  };

  it('with no change replays every call; with an edit only prompts that contained the changed text go live, and a later tool call stops it', async () => {
    const parent = pipeline();
    expect(forkProblem(parent)).toBeUndefined();
    const same = await forkRun(parent, { stepId: 'a', edit: { kind: 'none' }, client: client() });
    expect(same.status).toBe('complete');
    expect(same.stats).toMatchObject({ replayed: 5 - 1, toolReplayed: 1, live: 0 });
    expect(same.run.steps.map((s) => s.output)).toEqual(parent.steps.map((s) => s.output));
    expect(chatCalls()).toHaveLength(0);

    server.setScript({ fallback: { content: 'Ciel gris.' } });
    const fork = await forkRun(parent, { stepId: 'a', edit: { kind: 'replace', text: 'Grey sky.' }, client: client() });
    // b's prompt contained "Blue sky." → live; c's did not → replayed; the search after the changed b → stop.
    expect(fork.stats).toMatchObject({ edited: 1, live: 1, replayed: 1 });
    expect(fork.status).toBe('stopped');
    expect(fork.reason).toMatch(/step 4 \(search\): its input contains text that changed/);
    const calls = chatCalls();
    expect(calls).toHaveLength(1);
    expect((calls[0].body as { messages: { content: string }[] }).messages[1].content).toBe('Translate to French: Grey sky.');
    expect(fork.run.steps[1]).toMatchObject({ output: 'Ciel gris.', runner: expect.objectContaining({ origin: 'live', recordedOutput: 'Ciel bleu.' }) });
    expect(fork.run.steps[2].runner?.origin).toBe('recorded');
  });

  it.skipIf(!HAVE_SHARED)('a real OTLP agent trace forks without a change with no live call', async () => {
    const parent = importShared(join(SHARED_TRACES, 'otlp/quo_tav_agent.json')).runs[0];
    expect(forkProblem(parent)).toBeUndefined();
    const top = parent.steps.filter((s) => s.parentStepId === undefined);
    const fork = await forkRun(parent, { stepId: top[0].id, edit: { kind: 'none' } });
    expect(fork.status).toBe('complete');
    expect(fork.stats.live).toBe(0);
    expect(fork.run.steps.map((s) => s.output ?? s.observation)).toEqual(top.map((s) => s.output ?? s.observation));
  });
});
