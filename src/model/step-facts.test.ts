// The step facts (one pass, or counted by the import worker and sent with the run) give the same figures as the
// passes they replace: the library's summary, the fork checks and the step count, on every real trace and on runs
// made to hit each case; and facts sent with a run are what the page reads (no pass over its steps of its own).
import { describe, expect, it } from 'vitest';
import { chatForkProblem, forkProblem, promptForkProblem } from '../engine/runner/forkable.ts';
import { HAVE_SHARED, importShared, sharedFiles } from '../testing/fixture-kit.ts';
import { countStepFacts, countStepFactsOfRuns, knownStepFacts, rememberStepFacts, stepFacts, stepFactsSlices } from './step-facts.ts';
import { finish, SLICE } from './slices.ts';
import { isReplayStep, replaySteps, replayStepCount, stepNumber } from './steps.ts';
import { addUsage, emptyTotals, runDuration, summarizeRun, type AgentSummary, type RunSummary } from './summary.ts';
import type { Run, Step } from './types.ts';

/** summarizeRun as it was before the facts: two passes over the steps. */
function summaryByPasses(run: Run): RunSummary {
  const rows = replaySteps(run);
  const perAgent = new Map<string, AgentSummary>();
  for (const a of run.agents) perAgent.set(a.id, { name: a.name, steps: 0, tokens: 0 });
  const tokens = emptyTotals();
  for (const step of rows) {
    const agent = perAgent.get(step.agentId);
    if (agent) agent.steps++;
  }
  for (const step of run.steps) {
    if (step.usage) {
      addUsage(tokens, step.usage);
      const agent = perAgent.get(step.agentId);
      if (agent) agent.tokens += step.usage.total;
    }
  }
  return { id: run.id, title: run.title, agents: [...perAgent.values()], steps: rows.length, handoffs: run.handoffs.length, tokens, annotations: run.annotations.length, outcome: run.outcome.status };
}

/** A run's duration as the corpus computed it before the facts: its own times, else a pass over every step. */
function durationByPass(run: Run): number | undefined {
  if (run.startTime !== undefined && run.endTime !== undefined && run.endTime >= run.startTime) return run.endTime - run.startTime;
  let start = Infinity;
  let end = -Infinity;
  for (const s of run.steps) {
    if (s.startTime !== undefined && s.startTime < start) start = s.startTime;
    const e = s.endTime ?? s.startTime;
    if (e !== undefined && e > end) end = e;
  }
  return end >= start ? end - start : undefined;
}

/** The fork checks as they were: a scan of the rows each. */
function scan(run: Run, kinds: ReadonlySet<Step['kind']>, wanted: (s: Step) => boolean) {
  let rows = 0;
  let found = false;
  for (const step of run.steps) {
    if (!isReplayStep(step)) continue;
    if (!kinds.has(step.kind)) return { rows, outside: { position: rows, kind: step.kind }, found };
    if (!found && wanted(step)) found = true;
    rows++;
  }
  return { rows, found };
}
function forkByScans(run: Run): { chat?: string; prompts?: string } {
  const chat = scan(run, new Set(['message', 'final', 'tool']), (s) => s.kind === 'message' || s.kind === 'final');
  const prompts = scan(run, new Set(['llm', 'tool']), (s) => s.kind === 'llm' && !!s.input && s.input.length > 0);
  const kindOf = (kind: Step['kind'], p: number) => `step ${stepNumber(p)} is a${kind === 'action' ? 'n' : ''} ${kind} step`;
  return {
    chat: chat.outside ? `${kindOf(chat.outside.kind, chat.outside.position)}, not a chat turn` : chat.rows === 0 ? 'the run has no steps' : !chat.found ? 'the run has no message turns' : undefined,
    prompts: prompts.outside ? kindOf(prompts.outside.kind, prompts.outside.position) : prompts.rows === 0 ? 'the run has no steps' : !prompts.found ? 'no model call has a recorded prompt' : undefined,
  };
}

let nextId = 0;
function step(kind: Step['kind'], agentId: string, extra: Partial<Step> = {}): Step {
  return { id: `s${nextId++}`, index: 0, kind, agentId, ...extra } as Step;
}
function runOf(steps: Step[], agents = ['a', 'b']): Run {
  steps.forEach((s, i) => (s.index = i));
  return {
    id: `r${nextId++}`,
    title: 'made',
    sourceFormat: 'test',
    agents: agents.map((id) => ({ id, name: id.toUpperCase() })),
    agentRuns: [],
    steps,
    handoffs: [],
    annotations: [],
    interventions: [],
    outcome: { status: 'unknown' },
    tags: {},
    orphanSpans: 0,
  } as unknown as Run;
}

const usage = (input: number, output: number, estimated = false) => ({ input, output, total: input + output, ...(estimated ? { estimated } : {}) });

const MADE: [string, () => Run][] = [
  ['empty', () => runOf([])],
  ['a chat', () => runOf([step('message', 'a', { usage: usage(3, 4) }), step('message', 'b'), step('tool', 'b'), step('final', 'a', { usage: usage(1, 2, true) })])],
  ['a chat without turns', () => runOf([step('tool', 'a'), step('tool', 'b')])],
  [
    'prompts, nested calls and an unlisted agent',
    () => {
      const row = step('llm', 'a', { input: [{ role: 'user', content: 'hi' }], usage: usage(10, 5) } as Partial<Step>);
      return runOf([step('llm', 'a'), row, step('tool', 'c', { parentStepId: row.id, usage: usage(2, 2) }), step('tool', 'b'), step('llm', 'b', { usage: usage(7, 1) })]);
    },
  ],
  ['prompts without a recorded one', () => runOf([step('llm', 'a', { input: [] } as Partial<Step>), step('tool', 'b')])],
  ['an action first, then a planning step', () => runOf([step('message', 'a'), step('planning', 'b'), step('action', 'a'), step('message', 'b')])],
  ['nested rows only past the first kinds', () => runOf([step('message', 'a'), step('message', 'b'), step('action', 'a', { parentStepId: 'x' }), step('llm', 'b')])],
  ['a repeated agent id', () => runOf([step('message', 'a', { usage: usage(1, 1) })], ['a', 'a', 'b'])],
  [
    'times: a nested step reaching past its parent, an end without a start, a start without an end',
    () => {
      const row = step('llm', 'a', { startTime: 1_000, endTime: 1_500 });
      return runOf([step('message', 'b', { endTime: 900 }), row, step('tool', 'a', { parentStepId: row.id, startTime: 1_100, endTime: 2_400 }), step('message', 'b', { startTime: 2_000 })]);
    },
  ],
  ['an end only: no duration', () => runOf([step('message', 'a', { endTime: 5 }), step('message', 'b')])],
  [
    'the steps\' times when the run\'s own are out of order',
    () => Object.assign(runOf([step('message', 'a', { startTime: 10, endTime: 40 })]), { startTime: 50, endTime: 20 }),
  ],
  ['the run\'s own times first', () => Object.assign(runOf([step('message', 'a', { startTime: 10, endTime: 40 })]), { startTime: 0, endTime: 100 })],
];

describe('step facts', () => {
  it.each(MADE)('give the summary, fork checks and step count of the passes they replace: %s', (_, make) => {
    const run = make();
    expect(summarizeRun(run)).toEqual(summaryByPasses(run));
    const scans = forkByScans(make());
    expect(chatForkProblem(run)).toBe(scans.chat);
    expect(promptForkProblem(run)).toBe(scans.prompts);
    expect(stepFacts(run).rows).toBe(replayStepCount(run));
    expect(runDuration(run)).toBe(durationByPass(run));
  });

  it('give a run\'s duration: its own times, else the span of its steps (nested ones included), else none', () => {
    expect(MADE.map(([, make]) => runDuration(make()))).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, 1_400, undefined, 30, 100]);
  });

  it.skipIf(!HAVE_SHARED)('give the same figures as those passes on every real trace', () => {
    const files = ['trail/gaia', 'trail/swe', 'otlp', 'langfuse', 'tau-bench', 'who-and-when', 'smolagents-bus', 'format-fixtures'].flatMap((f) => sharedFiles(f));
    expect(files.length).toBeGreaterThan(10);
    let runs = 0;
    for (const file of files) {
      let imported;
      try {
        imported = importShared(file);
      } catch {
        continue; // not a trace (a ground-truth file): other tests cover those
      }
      for (const run of imported.runs) {
        runs++;
        expect(summarizeRun(run), file).toEqual(summaryByPasses(run));
        const scans = forkByScans(run);
        expect(chatForkProblem(run), file).toBe(scans.chat);
        expect(promptForkProblem(run), file).toBe(scans.prompts);
        expect(stepFacts(run).rows).toBe(replayStepCount(run));
        expect(runDuration(run), file).toBe(durationByPass(run));
      }
    }
    expect(runs).toBeGreaterThan(10);
  }, 120_000);

  it('sent with a run (the import worker), are what the summary and the fork checks read: no pass of their own', () => {
    const run = runOf([step('message', 'a', { usage: usage(3, 4) }), step('message', 'b')]);
    // Counted elsewhere, as a structured clone would give them; then the steps are made unreadable.
    const facts = structuredClone(countStepFacts(run.steps));
    rememberStepFacts(run, facts);
    for (let i = 0; i < run.steps.length; i++) {
      Object.defineProperty(run.steps, i, {
        get() {
          throw new Error('a step was read');
        },
      });
    }
    expect(summarizeRun(run).steps).toBe(2);
    expect(summarizeRun(run).tokens.total).toBe(7);
    expect(summarizeRun(run).agents).toEqual([
      { name: 'A', steps: 1, tokens: 7 },
      { name: 'B', steps: 1, tokens: 0 },
    ]);
    expect(forkProblem(run)).toBeUndefined();
    expect(knownStepFacts(run)).toBe(facts);
  });

  it('are not used for steps that have changed in number since they were counted', () => {
    const run = runOf([step('message', 'a')]);
    rememberStepFacts(run, countStepFacts([...run.steps, step('message', 'b')]));
    expect(knownStepFacts(run)).toBeUndefined();
    expect(stepFacts(run).rows).toBe(1);
    run.steps.push(step('message', 'b'));
    expect(stepFacts(run).rows).toBe(2);
  });

  it('counted in slices give what one pass gives, and the runs counted so are known after', () => {
    const kinds = ['message', 'llm', 'tool', 'action'] as const;
    const big = runOf(Array.from({ length: 3 * SLICE + 7 }, (_, i) => step(kinds[i % 4], `a${i % 3}`, i % 5 === 0 ? { usage: { input: 1, output: 2, total: 3 } } : {})));
    const fractions = [...stepFactsSlices(big.steps)];
    expect(fractions.length).toBeGreaterThanOrEqual(3);
    expect(finish(stepFactsSlices(big.steps))).toEqual(countStepFacts(big.steps));
    // Many small runs: a yield after each, so that a load with hundreds of them is no one long task either.
    const small = Array.from({ length: 40 }, (_, r) => runOf([step('message', `x${r}`), step('llm', 'y')]));
    const work = countStepFactsOfRuns([big, ...small]);
    let yields = 0;
    for (let r = work.next(); !r.done; r = work.next()) yields++;
    expect(yields).toBeGreaterThanOrEqual(41 + 3);
    expect(knownStepFacts(big)).toEqual(countStepFacts(big.steps));
    for (const run of small) expect(knownStepFacts(run)).toEqual(countStepFacts(run.steps));
  });
});
