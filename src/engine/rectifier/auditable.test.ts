// Which messages the rectifier audits: tested without building each message's text (a million-message run is counted
// on every render of the Rectify view's picker), with the same answer as the text's definition.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Agent, Run, Step } from '../../model/types.ts';
import { HAVE_SHARED, importShared, sharedFiles } from '../../testing/fixture-kit.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { auditableCount, isAuditable, messageText, recordedInput } from './replay.ts';

const texts = fc.oneof(fc.constant(''), fc.constant('  \n\t'), fc.constant('\u00a0'), fc.string({ maxLength: 6 }), fc.constant(' x '));
const steps = fc.record({
  kind: fc.constantFrom('message', 'final', 'tool', 'llm', 'action'),
  output: fc.option(texts, { nil: undefined }),
  toolCalls: fc.option(fc.array(fc.record({ name: texts, arguments: texts }), { maxLength: 2 }), { nil: undefined }),
  nested: fc.boolean(),
  agent: fc.constantFrom('a', 'h', 's', 'x'),
});
const agents: Agent[] = [
  { id: 'a', name: 'assistant' },
  { id: 'h', name: 'person', kind: 'human' },
  { id: 's', name: 'system', kind: 'system' },
] as Agent[];

function stepOf(r: { kind: string; output?: string; toolCalls?: { name: string; arguments: string }[]; nested: boolean; agent: string }, i: number): Step {
  return { id: `s${i}`, index: i, kind: r.kind, agentId: r.agent, output: r.output, toolCalls: r.toolCalls, parentStepId: r.nested ? 's0' : undefined } as Step;
}

describe('isAuditable', () => {
  it('is the text rule: a top-level message or final answer of a model agent whose text is not blank', () => {
    fc.assert(
      fc.property(steps, (r) => {
        const step = stepOf(r, 1);
        const agent = agents.find((a) => a.id === step.agentId);
        const byText = step.parentStepId === undefined && (step.kind === 'message' || step.kind === 'final') && agent?.kind !== 'human' && agent?.kind !== 'system' && messageText(step).trim() !== '';
        expect(isAuditable(step, agent)).toBe(byText);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('auditableCount', () => {
  it('is the number of steps isAuditable takes, read from the step facts (fast-check; repeated and unknown agent ids)', () => {
    const someAgents = fc.array(fc.record({ id: fc.constantFrom('a', 'h', 's', 'x'), kind: fc.constantFrom(undefined, 'human', 'system', 'llm') }), { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(steps, { maxLength: 40 }), someAgents, (specs, list) => {
        const run = { steps: specs.map(stepOf), agents: list.map((a) => ({ ...a, name: a.id })) as Agent[] };
        const byId = new Map(run.agents.map((a) => [a.id, a]));
        expect(auditableCount(run)).toBe(run.steps.filter((s) => isAuditable(s, byId.get(s.agentId))).length);
      }),
      { numRuns: 1000 },
    );
  });

  it.skipIf(!HAVE_SHARED)('is the number of steps isAuditable takes on every real trace', () => {
    let runs = 0;
    for (const file of ['trail/gaia', 'trail/swe', 'otlp', 'langfuse', 'tau-bench', 'who-and-when', 'smolagents-bus'].flatMap((f) => sharedFiles(f))) {
      let imported;
      try {
        imported = importShared(file);
      } catch {
        continue; // not a trace (a ground-truth file)
      }
      for (const run of imported.runs) {
        runs++;
        const byId = new Map(run.agents.map((a) => [a.id, a]));
        expect(auditableCount(run), file).toBe(run.steps.filter((s) => isAuditable(s, byId.get(s.agentId))).length);
      }
    }
    expect(runs).toBeGreaterThan(10);
  }, 120_000);

  it('counts once per steps array and agents, again for a new one', () => {
    const list = [stepOf({ kind: 'message', output: 'hi', nested: false, agent: 'a' }, 0), stepOf({ kind: 'message', output: ' ', nested: false, agent: 'a' }, 1)];
    const run = { steps: list, agents };
    expect(auditableCount(run)).toBe(1);
    // The same steps array is not read again (runs are replaced, never edited in place): a changed copy is.
    const more = [...list, stepOf({ kind: 'final', output: 'done', nested: false, agent: 'a' }, 2)];
    expect(auditableCount({ steps: more, agents })).toBe(2);
    // The same steps with other agents (the assistant now a person): counted again.
    expect(auditableCount({ steps: more, agents: [{ id: 'a', name: 'a', kind: 'human' } as Agent] })).toBe(0);
    expect(auditableCount(run)).toBe(1);
  });
});

describe('recordedInput', () => {
  /** The group-chat view as the walk from the run's start that it was, keeping the last 24 (the oracle). */
  function forward(run: Run, p: number, delivered: ReadonlyMap<string, string | null>): { role: string; content: string }[] {
    const me = run.steps[p].agentId;
    const out: { role: string; content: string }[] = [];
    for (let i = 0; i < p; i++) {
      const s = run.steps[i];
      if (s.parentStepId !== undefined) continue;
      const override = delivered.get(s.id);
      if (override === null) continue;
      const text = override ?? (s.kind === 'tool' ? (s.observation ?? s.output ?? '') : messageText(s));
      if (text.trim() === '') continue;
      const sender = run.agents.find((a) => a.id === s.agentId)?.name ?? s.agentId;
      out.push(s.agentId === me ? { role: 'assistant', content: text } : { role: 'user', content: `${sender}: ${text}` });
    }
    return out.slice(-24);
  }
  it('shows the 24 latest messages the agent could see, pruned and blank ones left out, rectified ones replaced (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(steps, { minLength: 1, maxLength: 60 }), fc.array(fc.tuple(fc.nat(59), fc.option(fc.constantFrom('fixed', ''), { nil: null })), { maxLength: 8 }), (specs, changes) => {
        const run = makeRun('r', { agents, steps: specs.map(stepOf) } as never);
        const delivered = new Map(changes.filter(([i]) => i < specs.length).map(([i, t]) => [`s${i}`, t] as const));
        const p = specs.length - 1;
        const agent = agents.find((a) => a.id === run.steps[p].agentId);
        expect(recordedInput(run, p, agent, delivered).slice(2)).toEqual(forward(run, p, delivered));
      }),
      { numRuns: 1000 },
    );
  });
});
