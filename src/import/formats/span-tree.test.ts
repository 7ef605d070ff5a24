import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stepCounts } from '../../model/steps.ts';
import { summarizeRun } from '../../model/summary.ts';
import type { Run } from '../../model/types.ts';
import { checkFixture, HAVE_SHARED, importShared, SHARED_TRACES, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { ImportError, importText } from '../index.ts';
import { attachAnnotationSets } from '../../model/annotations.ts';
import { normaliseTrailCategory, TRAIL_CATEGORIES } from './trail-annotations.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
const TRACES = [...sharedFiles('trail/gaia'), ...sharedFiles('trail/swe')];
const ANNOTATIONS = sharedFiles('trail/annotations');

interface RawSpan {
  span_id: string;
  span_name: string;
  span_attributes: Record<string, string>;
  child_spans: RawSpan[];
}

/** Every span of a raw TRAIL file, once per span id (one SWE export repeats a span verbatim). */
function rawSpans(path: string): RawSpan[] {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { spans: RawSpan[] };
  const seen = new Map<string, RawSpan>();
  const visit = (s: RawSpan) => {
    if (!seen.has(s.span_id)) seen.set(s.span_id, s);
    s.child_spans.forEach(visit);
  };
  doc.spans.forEach(visit);
  return [...seen.values()];
}

describe.skipIf(!HAVE_SHARED)(`TRAIL span trees (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('finds the nine traces and their annotation files', () => {
    expect(TRACES).toHaveLength(9);
    expect(ANNOTATIONS).toHaveLength(9);
  });

  for (const path of TRACES) {
    const name = path.slice(SHARED_TRACES.length + 1);
    it(`imports ${name}`, async () => {
      const imported = await checkFixture(path, 'span-tree', DUMPS);
      expect(imported.runs).toHaveLength(1);
      const run = imported.runs[0];
      const spans = rawSpans(path);
      expect(run.id).toBe(basename(path, '.json'));

      const llmTotal = spans
        .filter((s) => s.span_attributes['openinference.span.kind'] === 'LLM')
        .reduce((sum, s) => sum + Number(s.span_attributes['llm.token_count.total']), 0);
      const summary = summarizeRun(run);
      expect(summary.tokens.total).toBe(llmTotal);
      expect(summary.tokens.estimated).toBe(false);
      // Every `Step N` span is one action step (independent reading of the raw file); the step list also holds the
      // planning calls, so the summary's steps are the rows of the list.
      expect(stepCounts(run).byKind.get('action') ?? 0).toBe(spans.filter((s) => /^Step \d+$/.test(s.span_name)).length);
      expect(summary.steps).toBe(stepCounts(run).steps);

      // Usage only on model calls, never on agent or step aggregates.
      for (const step of run.steps) if (step.usage) expect(['llm', 'planning']).toContain(step.kind);
      // Step ids are the span ids, so annotations and deep links can name them.
      for (const step of run.steps) expect(step.id).toBe(`span-${step.spanId}`);
    });
  }

  it('maps a manager with a managed agent as the supervisor contract says', () => {
    const run = importShared(join(SHARED_TRACES, 'trail/gaia/41bbc898aa7de0f31d2382ff57700a76.json')).runs[0];
    expect(run.agents.map((a) => [a.id, a.name, a.parentId])).toEqual([
      ['agent-manager', 'manager', undefined],
      ['agent-search_agent', 'search_agent', 'agent-manager'],
    ]);
    const managerStep1 = run.steps.find((s) => s.id === 'span-c36797b9168c45ff')!;
    expect(managerStep1).toMatchObject({ kind: 'action', number: 1, agentId: 'agent-manager', agentRunId: 'run-5e4309f04577d219' });
    expect(managerStep1.observation).toMatch(/^Execution logs:\nLast output from code snippet:\nHere is the final answer from your managed agent 'search_agent'/);
    expect(managerStep1.toolCalls).toHaveLength(1);
    expect(managerStep1.toolCalls![0].name).toBe('ToolCallingAgent.run');
    expect(managerStep1.toolCalls![0].arguments).toMatch(/^\{"task": "You're a helpful agent named 'search_agent'/);
    expect(managerStep1.output).toMatch(/^Thought: I will ask our search_agent team member/);
    expect(managerStep1.usage).toBeUndefined();

    const managedStep1 = run.steps.find((s) => s.id === 'span-bdb23f3ff1c00257')!;
    expect(managedStep1).toMatchObject({ kind: 'action', number: 1, agentId: 'agent-search_agent' });
    expect(managedStep1.error?.message).toMatch(/^AgentExecutionError: Error when executing tool inspect_file_as_text/);
    expect(managedStep1.toolCalls).toEqual([
      { name: 'inspect_file_as_text', arguments: expect.stringContaining('"file_path": "data/gaia/validation/1f975693') },
    ]);
    const nested = run.steps.filter((s) => s.parentStepId === managedStep1.id).map((s) => s.kind);
    expect(nested).toEqual(['llm', 'tool']);

    const planning = run.steps.filter((s) => s.kind === 'planning');
    expect(planning.map((s) => s.agentId)).toEqual(['agent-manager', 'agent-manager', 'agent-search_agent', 'agent-search_agent']);

    expect(run.handoffs.map((h) => [h.kind, h.from, h.to, h.stepId])).toEqual([
      ['delegation', 'agent-manager', ['agent-search_agent'], managerStep1.id],
      ['report', 'agent-search_agent', ['agent-manager'], managerStep1.id],
    ]);
    expect(run.handoffs[0].content).toBe(run.agentRuns[1].task);
    expect(run.handoffs[1].content).toMatch(/^### 1. Task outcome \(short version\)/);

    // The top-level reformulation call is outside every agent run: still a model call, of the manager.
    const last = run.steps.at(-1)!;
    expect(last).toMatchObject({ kind: 'llm', agentId: 'agent-manager', output: 'FINAL ANSWER: 12,45,67' });
    expect(last.agentRunId).toBeUndefined();
    expect(run.outcome.finalAnswer).toBe('12,45,67');
    expect(run.title).toMatch(/^Hi, I was out sick from my classes on Friday/);
  });

  it('keeps orphan spans of the SWE export as roots and counts them', () => {
    const run = importShared(join(SHARED_TRACES, 'trail/swe/72822db6e120878d916b515c2501246b.json')).runs[0];
    expect(run.orphanSpans).toBe(7);
    expect(run.agentRuns).toHaveLength(1);
    expect(run.agents.map((a) => a.name)).toEqual(['manager']);
    expect(run.steps.filter((s) => s.kind === 'action').map((s) => s.number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(run.title).toMatch(/^You will be provided with a partial code base/);
  });
});

describe.skipIf(!HAVE_SHARED)(`TRAIL annotations (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  const runsById = new Map<string, Run>();
  const runFor = (traceId: string): Run => {
    let run = runsById.get(traceId);
    if (!run) {
      const trace = TRACES.find((p) => basename(p, '.json') === traceId)!;
      run = importShared(trace).runs[0];
      runsById.set(traceId, run);
    }
    return run;
  };

  for (const path of ANNOTATIONS) {
    const name = path.slice(SHARED_TRACES.length + 1);
    it(`imports ${name} and every error points at an existing step`, async () => {
      const imported = await checkFixture(path, 'trail-annotations', DUMPS);
      const raw = JSON.parse(readFileSync(path, 'utf8')) as { trace_id?: string; errors: Array<{ category: string; location: string }> };
      const [set] = imported.annotationSets;
      const traceId = basename(path, '.json');
      // One file carries no trace_id: its set names no run (the importer may not guess from the file name).
      expect(set.runId).toBe(raw.trace_id ?? '');
      const run = runFor(traceId);
      const stepIds = new Set(run.steps.map((s) => s.id));
      const errors = set.annotations.filter((a) => a.taxonomy === 'TRAIL');
      expect(errors).toHaveLength(raw.errors.length);
      errors.forEach((a, i) => {
        expect(stepIds.has(a.stepId!)).toBe(true);
        expect(run.steps.find((s) => s.id === a.stepId)!.spanId).toBe(raw.errors[i].location);
        expect(TRAIL_CATEGORIES).toContain(a.code);
      });
      const scores = set.annotations.filter((a) => a.taxonomy === 'TRAIL-score');
      expect(scores.map((a) => a.code)).toEqual(['reliability', 'security', 'instruction_adherence', 'plan_opt', 'overall']);
      for (const a of scores) expect(a.stepId).toBeUndefined();
    });
  }

  it('attaches to the run with the same trace id', () => {
    const run = structuredClone(runFor('41bbc898aa7de0f31d2382ff57700a76'));
    const sets = importShared(join(SHARED_TRACES, 'trail/annotations/41bbc898aa7de0f31d2382ff57700a76.json')).annotationSets;
    expect(attachAnnotationSets([run], sets)).toEqual([]);
    expect(run.annotations.filter((a) => a.taxonomy === 'TRAIL')).toHaveLength(6);
  });
});

describe('TRAIL categories', () => {
  it('normalises case, spacing, hyphens and plurals to the taxonomy names', () => {
    expect(normaliseTrailCategory('instruction non-compliance')).toBe('Instruction Non-compliance');
    expect(normaliseTrailCategory('Instruction  Noncompliance')).toBe('Instruction Non-compliance');
    expect(normaliseTrailCategory('TOOL_SELECTION_ERROR')).toBe('Tool Selection Errors');
    expect(normaliseTrailCategory('Language Only')).toBe('Language-only');
    expect(normaliseTrailCategory('tool-related hallucination')).toBe('Tool-related');
    expect(normaliseTrailCategory('resource-not-found')).toBe('Resource Not Found');
    expect(normaliseTrailCategory('Timeout issue')).toBe('Timeout Issues');
    expect(normaliseTrailCategory('Something Else')).toBeUndefined();
    for (const c of TRAIL_CATEGORIES) expect(normaliseTrailCategory(c)).toBe(c);
  });

  it('keeps an unknown category as written and says so', () => {
    const text = JSON.stringify({ trace_id: 't1', errors: [{ category: ' Cosmic Rays ', location: 'ab', evidence: 'e', description: 'd', impact: 'LOW' }], scores: [] });
    const imported = importText('x.json', text);
    expect(imported.format).toBe('trail-annotations');
    expect(imported.annotationSets[0].annotations[0]).toMatchObject({ code: 'Cosmic Rays', stepId: 'span-ab', impact: 'LOW' });
    expect(imported.warnings[0]).toMatch(/Cosmic Rays/);
  });
});

describe('span-tree input problems', () => {
  it('names the JSON path of a malformed span', () => {
    const text = JSON.stringify({ trace_id: 't', spans: [{ span_id: 'a', span_name: 'x', child_spans: [{ span_id: 7 }] }] });
    expect(() => importText('t.json', text)).toThrow(ImportError);
    try {
      importText('t.json', text);
    } catch (e) {
      expect((e as ImportError).location).toBe('$.spans[0].child_spans[0].span_id');
    }
  });

  it('reads string-typed numbers and ISO durations', () => {
    const text = JSON.stringify({
      trace_id: 'tr',
      spans: [
        {
          span_id: 's1',
          span_name: 'ChatModel',
          timestamp: '2025-01-01T00:00:00Z',
          duration: 'PT1M2.5S',
          status_code: 'Ok',
          span_attributes: { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': '10', 'llm.token_count.completion': '2.0', 'llm.token_count.total': '12' },
          child_spans: [],
        },
      ],
    });
    const run = importText('unknown', text).runs[0];
    expect(run.steps[0]).toMatchObject({ kind: 'llm', usage: { input: 10, output: 2, total: 12 }, startTime: Date.parse('2025-01-01T00:00:00Z'), endTime: Date.parse('2025-01-01T00:01:02.5Z') });
    expect(run.agents).toEqual([{ id: 'system', name: 'system', kind: 'system' }]);
  });
});
