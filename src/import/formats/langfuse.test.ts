import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stepCounts, stepsByKindRecord } from '../../model/steps.ts';
import { summarizeRun } from '../../model/summary.ts';
import { checkFixture, HAVE_SHARED, SHARED_TRACES, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { ImportError, importText } from '../index.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
const FIXTURES = sharedFiles('langfuse');

type RawObs = Record<string, unknown> & { id: string; type: string; parentObservationId?: string | null };

/** All observations of an export, merged by id, read straight from the JSON (independent of the importer). */
function rawObservations(doc: { observations?: RawObs[]; trace?: { observations?: (RawObs | string)[] } }): RawObs[] {
  const byId = new Map<string, RawObs>();
  for (const o of [...(doc.observations ?? []), ...(doc.trace?.observations ?? [])]) if (typeof o !== 'string' && !byId.has(o.id)) byId.set(o.id, o);
  return [...byId.values()];
}

function recorded(o: RawObs): { input: number; output: number; total: number } {
  const d = o.usageDetails as Record<string, number> | null | undefined;
  if (d && Object.keys(d).length) return { input: d.input ?? 0, output: d.output ?? 0, total: d.total ?? 0 };
  return { input: Number(o.inputUsage ?? 0), output: Number(o.outputUsage ?? 0), total: Number(o.totalUsage ?? 0) };
}

describe.skipIf(!HAVE_SHARED)(`Langfuse exports (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('finds the ten fixtures', () => {
    expect(FIXTURES.length).toBe(10);
  });

  for (const path of FIXTURES) {
    it(`imports ${path.slice(SHARED_TRACES.length + 1)}`, async () => {
      const imported = await checkFixture(path, 'langfuse', DUMPS);
      const doc = JSON.parse(readFileSync(path, 'utf8'));
      const observations = rawObservations(doc);
      expect(imported.runs).toHaveLength(1);
      const run = imported.runs[0];
      expect(run.id).toBe(doc.trace.id);

      const generations = observations.filter((o) => o.type === 'GENERATION');
      const sum = generations.map(recorded).reduce((a, b) => ({ input: a.input + b.input, output: a.output + b.output, total: a.total + b.total }), { input: 0, output: 0, total: 0 });
      const tokens = summarizeRun(run).tokens;
      expect({ input: tokens.input, output: tokens.output, total: tokens.total }).toEqual(sum);
      expect(tokens.estimated).toBe(false);

      expect(run.steps.filter((s) => s.kind === 'llm').map((s) => s.spanId).sort()).toEqual(generations.map((o) => o.id).sort());
      expect(run.steps.filter((s) => s.usage).every((s) => s.kind === 'llm')).toBe(true);
      const ids = new Set(observations.map((o) => o.id));
      expect(run.orphanSpans).toBe(observations.filter((o) => o.parentObservationId && !ids.has(o.parentObservationId)).length);
      expect(run.annotations).toHaveLength((doc.trace.scores ?? []).length);
      for (const r of run.agentRuns.filter((x) => x.spanId)) expect(ids.has(r.spanId!)).toBe(true);
    });
  }

  it('makes agents of AG2 invoke_agent spans and hands turns between them', () => {
    const run = importText('x.json', readFileSync(join(SHARED_TRACES, 'langfuse/ag2-2026-03-09.json'), 'utf8')).runs[0];
    expect(run.agents.map((a) => a.id)).toEqual(['assistant', 'user_proxy']);
    expect(run.agentRuns.map((r) => r.agentId)).toEqual(['assistant', 'user_proxy', 'assistant']);
    expect(run.handoffs.map((h) => `${h.from}>${h.to[0]}`)).toEqual(['assistant>user_proxy', 'user_proxy>assistant']);
    expect(run.handoffs[0].content).toMatch(/^get_weather\(/);
    // Steps are the rows of the step list (README "What a step is"): 2 model calls and 1 tool call; the agent runs are
    // lanes, not steps.
    expect(summarizeRun(run).steps).toBe(3);
    expect(stepsByKindRecord(stepCounts(run))).toEqual({ llm: 2, tool: 1 });
  });
});

describe('Langfuse on small inputs', () => {
  const obs = (id: string, type: string, parent: string | null, extra: Record<string, unknown> = {}) => ({
    id,
    traceId: 't1',
    type,
    name: extra.name ?? id,
    parentObservationId: parent,
    startTime: `2025-01-01T00:00:0${id.length % 10}.000Z`,
    ...extra,
  });
  const doc = {
    trace: { id: 't1', name: 'demo', input: 'Plan a trip', scores: [{ id: 's1', name: 'correct', value: 0, source: 'ANNOTATION', observationId: 'g2', comment: 'wrong city' }] },
    observations: [
      obs('m', 'AGENT', null, { name: 'manager', input: 'Plan a trip', output: 'Done' }),
      obs('g1', 'GENERATION', 'm', { usageDetails: { input: 10, output: 5, total: 15 }, model: 'gpt-x', output: { role: 'assistant', content: '', tool_calls: [{ id: 'c', function: { name: 'search', arguments: '{"q":"x"}' } }] } }),
      obs('wk', 'AGENT', 'm', { name: 'worker', input: 'find flights', output: 'flight AB1' }),
      obs('g2', 'GENERATION', 'wk', { usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 }, level: 'ERROR', statusMessage: 'rate limited' }),
      obs('lost', 'TOOL', 'nowhere', { input: { q: 'x' }, output: 'result', custom: 42 }),
      obs('ev', 'EVENT', 'wk', { level: 'ERROR', statusMessage: 'boom' }),
    ],
  };

  it('counts orphans, keeps unknown fields, maps errors, delegations and scores', () => {
    const r = importText('trace.json', JSON.stringify(doc));
    expect(r.format).toBe('langfuse');
    const run = r.runs[0];
    expect(run.orphanSpans).toBe(1);
    const lost = run.steps.find((s) => s.spanId === 'lost')!;
    expect(lost).toMatchObject({ kind: 'tool', observation: 'result', inputText: JSON.stringify({ q: 'x' }, null, 2) });
    expect(lost.raw?.custom).toBe(42);
    expect(run.agents.find((a) => a.id === 'worker')?.parentId).toBe('manager');
    expect(run.handoffs.map((h) => `${h.kind}:${h.from}>${h.to[0]}:${h.content}`)).toEqual(['delegation:manager>worker:find flights', 'report:worker>manager:flight AB1']);
    const g2 = run.steps.find((s) => s.spanId === 'g2')!;
    expect(g2.error?.message).toBe('rate limited');
    expect(g2.usage).toMatchObject({ input: 7, output: 3, total: 10 });
    expect(run.steps.find((s) => s.spanId === 'g1')?.toolCalls).toEqual([{ id: 'c', name: 'search', arguments: '{"q":"x"}' }]);
    expect(run.annotations[0]).toMatchObject({ source: 'human', taxonomy: 'Langfuse', code: 'correct', stepId: g2.id, description: 'wrong city' });
    expect(summarizeRun(run).tokens.total).toBe(25);
  });

  it('does not count a wrapping generation\'s aggregate usage twice', () => {
    const wrapped = {
      trace: { id: 't2' },
      observations: [
        obs('outer', 'GENERATION', null, { usageDetails: { input: 30, output: 6, total: 36 } }),
        obs('in1', 'GENERATION', 'outer', { usageDetails: { input: 10, output: 2, total: 12 } }),
        obs('in2', 'GENERATION', 'outer', { usageDetails: { input: 20, output: 4, total: 24 } }),
      ],
    };
    const run = importText('t.json', JSON.stringify(wrapped)).runs[0];
    expect(summarizeRun(run).tokens.total).toBe(36);
    expect(run.steps[0].raw?.aggregateUsage).toBe(true);
  });

  it('survives a parent cycle and names bad types by path', () => {
    const cyclic = { trace: { id: 't3' }, observations: [obs('a', 'SPAN', 'b'), obs('b', 'SPAN', 'a'), obs('g', 'GENERATION', 'a')] };
    const r = importText('c.json', JSON.stringify(cyclic));
    expect(r.runs[0].steps).toHaveLength(1);
    expect(r.warnings.join()).toMatch(/cycle/);
    const bad = { ...doc, observations: [obs('g', 'GENERATION', null, { usageDetails: { input: 'many' } })] };
    try {
      importText('bad.json', JSON.stringify(bad));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ImportError);
      expect((e as ImportError).location).toBe('$.observations[0].usageDetails.input');
    }
  });
});
