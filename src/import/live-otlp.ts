// Live OTLP traces (issue 19): exports arrive one after another from the studio's receiver; the spans of each trace
// are kept (one copy per span id: a retried export or a span sent twice replaces, never adds) and the trace is imported
// again from everything received so far by the same importer as an OTLP/JSON file (./formats/otlp.ts). Late spans,
// spans out of order and children whose parent comes later therefore need no special case: each import sees the
// whole set. Pure: no DOM, no store; the page feeds it (src/features/otlp-live).
import type { Run } from '../model/types.ts';
import type { ImportResult } from './format.ts';
import { importFromOtlp } from './formats/otlp.ts';
import { isObject, type JsonObject } from './read.ts';

interface KeptSpan {
  resource: unknown;
  scope: unknown;
  span: JsonObject;
}

interface LiveTrace {
  traceId: string;
  spans: Map<string, KeptSpan>;
  /** A span without a parent has arrived: OTel exports a span when it ends, so the root (the whole run) has ended. */
  rootEnded: boolean;
  lastSpanAt: number;
}

/** A trace's accumulated export, as OTLP/JSON (what a page keeps to import again after a reload). */
export interface LiveTraceDoc {
  resourceSpans: Array<{ resource?: unknown; scopeSpans: Array<{ scope?: unknown; spans: JsonObject[] }> }>;
}

function idOf(o: JsonObject, camel: string, snake: string): string | undefined {
  const v = o[camel] ?? o[snake];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export class LiveTraces {
  private readonly traces = new Map<string, LiveTrace>();
  /** Distinct spans held, over all traces. */
  totalSpans = 0;

  /** Add one export (`{resourceSpans}`); returns the ids of the traces it changed. */
  add(doc: unknown, now = Date.now()): Set<string> {
    const changed = new Set<string>();
    if (!isObject(doc) || !Array.isArray(doc.resourceSpans)) return changed;
    for (const rs of doc.resourceSpans) {
      if (!isObject(rs) || !Array.isArray(rs.scopeSpans)) continue;
      for (const ss of rs.scopeSpans) {
        if (!isObject(ss) || !Array.isArray(ss.spans)) continue;
        for (const span of ss.spans) {
          if (!isObject(span)) continue;
          const traceId = idOf(span, 'traceId', 'trace_id');
          const spanId = idOf(span, 'spanId', 'span_id');
          if (!traceId || !spanId) continue;
          let trace = this.traces.get(traceId);
          if (!trace) this.traces.set(traceId, (trace = { traceId, spans: new Map(), rootEnded: false, lastSpanAt: now }));
          if (!trace.spans.has(spanId)) this.totalSpans++;
          trace.spans.set(spanId, { resource: rs.resource, scope: ss.scope, span });
          if (!idOf(span, 'parentSpanId', 'parent_span_id')) trace.rootEnded = true;
          trace.lastSpanAt = now;
          changed.add(traceId);
        }
      }
    }
    return changed;
  }

  /** Start from a trace's saved export (after a reload), so spans that come next join the ones already seen. */
  seed(doc: LiveTraceDoc, lastSpanAt: number): Set<string> {
    const changed = this.add(doc, lastSpanAt);
    return changed;
  }

  has(traceId: string): boolean {
    return this.traces.has(traceId);
  }

  spanCount(traceId: string): number {
    return this.traces.get(traceId)?.spans.size ?? 0;
  }

  /** Whether the trace looks finished: its root span arrived, or nothing came for `quietMs`. */
  isDone(traceId: string, now: number, quietMs: number): boolean {
    const t = this.traces.get(traceId);
    if (!t) return true;
    return t.rootEnded || now - t.lastSpanAt >= quietMs;
  }

  lastSpanAt(traceId: string): number | undefined {
    return this.traces.get(traceId)?.lastSpanAt;
  }

  /** Everything received for the trace, grouped by resource and scope as it came. */
  doc(traceId: string): LiveTraceDoc {
    const out: LiveTraceDoc = { resourceSpans: [] };
    const t = this.traces.get(traceId);
    if (!t) return out;
    const byResource = new Map<unknown, Map<unknown, JsonObject[]>>();
    for (const { resource, scope, span } of t.spans.values()) {
      let scopes = byResource.get(resource);
      if (!scopes) byResource.set(resource, (scopes = new Map()));
      let list = scopes.get(scope);
      if (!list) scopes.set(scope, (list = []));
      list.push(span);
    }
    for (const [resource, scopes] of byResource) {
      out.resourceSpans.push({ resource, scopeSpans: [...scopes].map(([scope, spans]) => ({ scope, spans })) });
    }
    return out;
  }

  /** The trace imported from everything received so far, by the OTLP file importer. */
  importTrace(traceId: string): ImportResult & { run: Run | undefined } {
    const result = importFromOtlp({ kind: 'json', value: this.doc(traceId), text: '' });
    return { ...result, run: result.runs.find((r) => r.id === traceId) ?? result.runs[0] };
  }
}
