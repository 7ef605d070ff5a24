// OTLP export: strict form, and what survives a round trip through our own OTLP importer for every real trace —
// agents, model and tool calls in order, recorded and estimated tokens (estimates stay estimates), errors — plus
// supervisor interventions as `gen_ai.evaluation.result` events on the span of their step.
import { describe, expect, it } from 'vitest';
import { filterParams, PRESETS, shadowReplay } from '../engine/supervisor/index.ts';
import { HAVE_SHARED, importShared, SKIP_REASON, sharedFiles } from '../testing/fixture-kit.ts';
import { importText } from '../import/index.ts';
import { runDuration, summarizeRun } from '../model/summary.ts';
import type { Run } from '../model/types.ts';
import { makeRun } from '../testing/test-runs.ts';
import { agentRunsNest, buildOtlp, exportOtlp, type OtlpDocument } from './otlp.ts';

const FOLDERS = ['trail/gaia', 'trail/swe', 'who-and-when', 'langfuse', 'otlp', 'tau-bench', 'format-fixtures'];
const CALL_KINDS = new Set(['llm', 'tool', 'message', 'planning', 'final']);

function spansOf(doc: OtlpDocument) {
  return doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

/** What a reader of the exported file must find again. */
function essentials(run: Run) {
  const agentName = new Map(run.agents.map((a) => [a.id, a.name]));
  const calls = run.steps.filter((s) => CALL_KINDS.has(s.kind));
  return {
    calls: calls.map((s) => `${agentName.get(s.agentId)}:${s.usage?.total ?? '-'}${s.usage?.estimated ? '~' : ''}`),
    errors: run.steps.filter((s) => s.error).map((s) => s.error!.message),
    tokens: summarizeRun(run).tokens.total,
  };
}

describe('strict OTLP/JSON', () => {
  it('hex ids of the right length, nanosecond strings, typed attribute values, parents inside the trace', () => {
    const run = makeRun('r1', { startTime: 1_700_000_000_123.5 });
    const spans = spansOf(buildOtlp([run]));
    const ids = new Set(spans.map((s) => s.spanId));
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
      if (s.parentSpanId !== undefined) expect(ids.has(s.parentSpanId)).toBe(true);
      expect(s.startTimeUnixNano).toMatch(/^\d+$/);
      for (const a of s.attributes) expect(Object.keys(a.value)).toHaveLength(1);
    }
    expect(spans[0].startTimeUnixNano).toBe('1700000000123500000');
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    // The same run exports the same bytes: ids come from the run, not from chance.
    expect(exportOtlp([run])).toBe(exportOtlp([run]));
  });

  it("a run without times of its own spans its steps' times as the model counts them (the Library's duration)", () => {
    const base = makeRun('t');
    const [first, second] = base.steps;
    // The first step listed starts later than the second; the second (nested) ends last.
    const run = makeRun('t', { steps: [{ ...first, startTime: 5_000, endTime: 6_000 }, { ...second, startTime: 2_000, endTime: 9_000 }] });
    const root = spansOf(buildOtlp([run]))[0];
    expect(root.startTimeUnixNano).toBe('2000000000');
    expect(root.endTimeUnixNano).toBe('9000000000');
    expect((Number(root.endTimeUnixNano) - Number(root.startTimeUnixNano)) / 1e6).toBe(runDuration(run));
    // Its own start kept, the steps' end after it.
    const started = spansOf(buildOtlp([{ ...run, startTime: 1_000 }]))[0];
    expect([started.startTimeUnixNano, started.endTimeUnixNano]).toEqual(['1000000000', '9000000000']);
    // No times anywhere: an instant at 0.
    const none = spansOf(buildOtlp([makeRun('n')]))[0];
    expect([none.startTimeUnixNano, none.endTimeUnixNano]).toEqual(['0', '0']);
  });
});

describe('agent runs that interleave (chat logs) are written turn by turn', () => {
  it('tells nesting runs from interleaving ones', () => {
    const step = (id: string, agentRunId: string) => ({ id, index: 0, kind: 'message' as const, agentId: 'a', agentRunId });
    const base = makeRun('x');
    const runs = [{ id: 'm', agentId: 'a' }, { id: 'k', agentId: 'b', parentRunId: 'm' }, { id: 'p', agentId: 'c' }];
    // manager, its managed agent, manager again: nests.
    expect(agentRunsNest({ ...base, agentRuns: runs, steps: [step('1', 'm'), step('2', 'k'), step('3', 'm')] })).toBe(true);
    // two peers taking turns: interleaves.
    expect(agentRunsNest({ ...base, agentRuns: runs, steps: [step('1', 'm'), step('2', 'p'), step('3', 'm')] })).toBe(false);
  });
});

describe.skipIf(!HAVE_SHARED)(`round trip through our OTLP importer (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  const files = FOLDERS.flatMap((f) => sharedFiles(f));
  it('finds the traces', () => expect(files.length).toBeGreaterThan(30));
  it('every run of every real trace keeps its agents, calls in order, tokens and errors', () => {
    let runs = 0;
    for (const path of files) {
      for (const run of importShared(path).runs) {
        const back = importText('exported.otlp.json', exportOtlp([run]));
        expect(back.format, path).toBe('otlp');
        expect(back.runs, path).toHaveLength(1);
        expect(essentials(back.runs[0]), `${path} ${run.id}`).toEqual(essentials(run));
        runs++;
      }
    }
    expect(runs).toBeGreaterThan(30);
  });

  it('supervisor interventions become evaluation events on their step’s span', async () => {
    const [path] = sharedFiles('trail/gaia').filter((p) => p.includes('b1f9b9ba'));
    const run = importShared(path).runs[0];
    const { interventions } = await shadowReplay(run, { params: filterParams(PRESETS.gaia) });
    expect(interventions.length).toBeGreaterThan(5);
    const spans = spansOf(buildOtlp([{ ...run, interventions }]));
    const text = (attrs: { key: string; value: object }[], key: string) => (attrs.find((a) => a.key === key)?.value as { stringValue?: string } | undefined)?.stringValue;
    const found = spans.flatMap((s) =>
      s.events
        .filter((e) => e.name === 'gen_ai.evaluation.result' && text(e.attributes, 'gen_ai.evaluation.name') === 'mas_replay.supervisor')
        .map((e) => ({ step: text(s.attributes, 'mas_replay.step.id'), label: text(e.attributes, 'gen_ai.evaluation.score.label'), explanation: text(e.attributes, 'gen_ai.evaluation.explanation') })),
    );
    expect(found).toEqual(interventions.map((iv) => ({ step: iv.stepId, label: iv.action, explanation: iv.reason })));
  });
});
