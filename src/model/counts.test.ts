// Issue 13: every view, the graph and the CLI report the same step count for every run of every real trace, and the
// graph's tool-call counts equal counts read from the raw file without the importer.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectReport } from '../cli/inspect.ts';
import { compareRun } from '../features/compare/compare-model.ts';
import { buildRunView } from '../features/run-view/run-view-model.ts';
import { HAVE_SHARED, importShared, SHARED_TRACES, sharedFiles, SKIP_REASON } from '../testing/fixture-kit.ts';
import { stepCounts } from './steps.ts';
import { summarizeRun } from './summary.ts';
import { toolCallCounts } from './tool-calls.ts';
import type { Run } from './types.ts';

const FOLDERS = ['trail/gaia', 'trail/swe', 'otlp', 'langfuse', 'tau-bench', 'who-and-when', 'smolagents-bus'];
const files = FOLDERS.flatMap((f) => sharedFiles(f));

type Counts = Map<string, number>;
const bump = (m: Counts, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** TRAIL span trees: spans whose openinference.span.kind is TOOL, per tool.name. */
function rawSpanTreeTools(doc: { spans: unknown[] }): Counts {
  const out: Counts = new Map();
  const walk = (span: { span_attributes?: Record<string, unknown>; child_spans?: unknown[] }) => {
    const a = span.span_attributes ?? {};
    if (a['openinference.span.kind'] === 'TOOL') bump(out, String(a['tool.name']));
    for (const c of span.child_spans ?? []) walk(c as typeof span);
  };
  for (const s of doc.spans) walk(s as Parameters<typeof walk>[0]);
  return out;
}

/** OTLP/JSON: TOOL spans per tool.name, RETRIEVER spans (calls to a memory) per span name. */
function rawOtlpTools(doc: unknown): Counts {
  const out: Counts = new Map();
  type Attr = { key: string; value: { stringValue?: string } };
  const batches = (Array.isArray(doc) ? doc : [doc]) as { resourceSpans: { scopeSpans: { spans: { name: string; attributes?: Attr[] }[] }[] }[] }[];
  for (const b of batches)
    for (const rs of b.resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const span of ss.spans) {
          const attr = (k: string) => span.attributes?.find((x) => x.key === k)?.value.stringValue;
          const kind = attr('openinference.span.kind');
          if (kind === 'TOOL') bump(out, attr('tool.name') ?? '?');
          if (kind === 'RETRIEVER') bump(out, span.name);
        }
  return out;
}

/** tau-bench: the assistant turns' tool_calls, per function name. */
function rawTauTools(doc: { traj?: { role: string; tool_calls?: { function: { name: string } }[] }[] }[]): Counts {
  const out: Counts = new Map();
  for (const task of doc) for (const m of task.traj ?? []) if (m.role === 'assistant') for (const c of m.tool_calls ?? []) bump(out, c.function.name);
  return out;
}

/** Tool calls the graph draws: the messages on edges into tool and memory nodes, per node label. */
function graphTools(run: Run): Counts {
  const graph = buildRunView(run).graph;
  const out: Counts = new Map();
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  for (const e of graph.edges) {
    const target = byId.get(e.target)!;
    if (target.kind !== 'agent') out.set(target.label, (out.get(target.label) ?? 0) + e.messages);
  }
  return out;
}

function merged(maps: Counts[]): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  for (const m of maps) for (const [k, n] of m) out[k] = (out[k] ?? 0) + n;
  return out;
}

describe.skipIf(!HAVE_SHARED)(`one step count, tool calls counted once (${HAVE_SHARED ? '' : SKIP_REASON})`, () => {
  it('finds the real traces', () => expect(files.length).toBeGreaterThan(30));

  it.each(files.map((f) => [relative(SHARED_TRACES, f), f]))('%s: every view and the CLI agree', (_name, path) => {
    const imported = importShared(path);
    const report = inspectReport([imported]);
    imported.runs.forEach((run, i) => {
      const counts = stepCounts(run);
      const view = buildRunView(run);
      // Library and CLI (summarizeRun), run view and Stages header (the run view model), engine pickers (stepCounts),
      // Compare and Rectify (compareRun units), the CLI JSON.
      expect(summarizeRun(run).steps).toBe(counts.steps);
      expect(view.steps.length).toBe(counts.steps);
      expect(view.graph.nodeAt.length).toBe(counts.steps);
      expect(compareRun(run).units.length).toBe(counts.steps);
      expect(report.files[0].runs[i].steps).toBe(counts.steps);
      let byKind = 0;
      for (const n of counts.byKind.values()) byKind += n;
      expect(byKind).toBe(counts.steps);
      // The graph and the CLI read the same counter.
      expect(merged([graphTools(run)])).toEqual(merged([toolCallCounts(run)]));
      expect({ ...report.files[0].runs[i].tool_calls }).toEqual({ ...merged([toolCallCounts(run)]) });
    });
  });

  const raw = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
  const graphOf = (path: string) => merged(importShared(path).runs.map(graphTools));

  it.each(files.filter((f) => /trail[\\/]/.test(f)).map((f) => [relative(SHARED_TRACES, f), f]))('%s: graph tool calls = TOOL spans', (_n, path) => {
    expect(graphOf(path)).toEqual(merged([rawSpanTreeTools(raw(path))]));
  });

  it.each(files.filter((f) => /otlp[\\/]/.test(f)).map((f) => [relative(SHARED_TRACES, f), f]))('%s: graph tool calls = TOOL and RETRIEVER spans', (_n, path) => {
    expect(graphOf(path)).toEqual(merged([rawOtlpTools(raw(path))]));
  });

  it('tau-bench: graph tool calls = assistant tool_calls', () => {
    const path = files.find((f) => f.endsWith('tau_dataset_failed.json'))!;
    expect(graphOf(path)).toEqual(merged([rawTauTools(raw(path))]));
  });

  it('Langfuse: as many graph tool calls as TOOL observations, where the export records any', () => {
    for (const path of files.filter((f) => /langfuse[\\/]/.test(f))) {
      const observations = (raw(path) as { observations: { type?: string }[] }).observations;
      const tools = observations.filter((o) => o.type === 'TOOL').length;
      if (tools === 0) continue;
      const total = Object.values(graphOf(path)).reduce((a, b) => a + b, 0);
      expect(total, relative(SHARED_TRACES, path)).toBe(tools);
    }
  });

  it('TRAIL b1f9b9ba…: 27 rows (16 actions), find_archived_url ×4, web_search ×4, visit_page ×2, page_down ×1, final_answer ×1', () => {
    const path = files.find((f) => f.includes('gaia') && f.includes('b1f9b9ba'))!;
    const run = importShared(path).runs[0];
    const counts = stepCounts(run);
    expect(counts.steps).toBe(27);
    expect(counts.byKind.get('action')).toBe(16);
    expect(graphOf(path)).toMatchObject({ find_archived_url: 4, web_search: 4, visit_page: 2, page_down: 1, final_answer: 1 });
  });
});
