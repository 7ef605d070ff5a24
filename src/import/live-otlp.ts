// Live OTLP traces (issue 19): exports arrive one after another from the studio's receiver; the spans of each trace
// are kept (one copy per span id: a retried export or a span sent twice replaces, never adds, and keeps its place)
// and the trace is imported again from everything received so far by the same importer as an OTLP/JSON file
// (./formats/otlp.ts). Late spans, spans out of order and children whose parent comes later therefore need no special
// case: each import sees the whole set. What changed between two imports of a trace goes to the page as a `RunPatch`
// (the changed tail of each list, the changed fields), never as the whole run again. Pure: no DOM, no store; the live
// worker feeds it (src/workers/live-otlp.worker.ts).
import type { Run } from '../model/types.ts';
import type { ImportResult } from './format.ts';
import { importFromOtlp, type OtlpSpanCache } from './formats/otlp.ts';
import { isObject, type JsonObject } from './read.ts';

/** One received span with the resource and scope it came under; `order` is its place in arrival order. */
export interface KeptSpan {
  resource: unknown;
  scope: unknown;
  span: JsonObject;
  order: number;
}

interface LiveTrace {
  traceId: string;
  spans: Map<string, KeptSpan>;
  /** A span without a parent has arrived: OTel exports a span when it ends, so the root (the whole run) has ended. */
  rootEnded: boolean;
  lastSpanAt: number;
}

/** A trace's accumulated export, as OTLP/JSON. */
export interface LiveTraceDoc {
  resourceSpans: Array<{ resource?: unknown; scopeSpans: Array<{ scope?: unknown; spans: JsonObject[] }> }>;
}

function idOf(o: JsonObject, camel: string, snake: string): string | undefined {
  const v = o[camel] ?? o[snake];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A span newly kept (or replaced) by `add`, as the live worker stores it. */
export interface AddedSpan extends KeptSpan {
  traceId: string;
  spanId: string;
}

export class LiveTraces {
  private readonly traces = new Map<string, LiveTrace>();
  /** Each kept span's attributes and events, read once (a span replaced by a retry is a new object, read again). */
  private readonly read: OtlpSpanCache = new WeakMap();
  /** Distinct spans held, over all traces. */
  totalSpans = 0;

  /** Add one export (`{resourceSpans}`); returns the ids of the traces it changed (and, in `added`, what it kept). */
  add(doc: unknown, now = Date.now(), added?: AddedSpan[]): Set<string> {
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
          const kept = this.keep(traceId, spanId, { resource: rs.resource, scope: ss.scope, span, order: -1 }, now);
          added?.push({ ...kept, traceId, spanId });
          changed.add(traceId);
        }
      }
    }
    return changed;
  }

  /**
   * Keep one span (a span seen before keeps its place: `order` is its first arrival); spans read back from storage
   * come with their order. Returns what is kept.
   */
  keep(traceId: string, spanId: string, span: KeptSpan, now: number): KeptSpan {
    let trace = this.traces.get(traceId);
    if (!trace) this.traces.set(traceId, (trace = { traceId, spans: new Map(), rootEnded: false, lastSpanAt: now }));
    const before = trace.spans.get(spanId);
    if (!before) this.totalSpans++;
    const order = before ? before.order : span.order >= 0 ? span.order : trace.spans.size;
    const kept: KeptSpan = { resource: span.resource, scope: span.scope, span: span.span, order };
    trace.spans.set(spanId, kept);
    if (!idOf(span.span, 'parentSpanId', 'parent_span_id')) trace.rootEnded = true;
    if (now > trace.lastSpanAt || !before) trace.lastSpanAt = Math.max(trace.lastSpanAt, now);
    return kept;
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

  /** Everything received for the trace, in arrival order, grouped by resource and scope as it came. */
  doc(traceId: string): LiveTraceDoc {
    const out: LiveTraceDoc = { resourceSpans: [] };
    const t = this.traces.get(traceId);
    if (!t) return out;
    const spans = [...t.spans.values()].sort((a, b) => a.order - b.order);
    const byResource = new Map<unknown, Map<unknown, JsonObject[]>>();
    for (const { resource, scope, span } of spans) {
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
    const result = importFromOtlp({ kind: 'json', value: this.doc(traceId), text: '' }, this.read);
    return { ...result, run: result.runs.find((r) => r.id === traceId) ?? result.runs[0] };
  }
}

// --- what changed between two imports of a trace ------------------------------------------------------------------

/** The list `items` replaces the old list from index `from` on (an appended step: `from` = the old length). */
export interface ListPatch {
  from: number;
  items: unknown[];
}

/** The fields of a run that changed: lists as their changed tails, other fields whole; removed fields by name. */
export interface RunPatch {
  lists: Record<string, ListPatch>;
  set: Record<string, unknown>;
  unset: string[];
}

/** Deep equality of structured-clonable data (what a run is made of). */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  for (const k of keys) if (!Object.hasOwn(bo, k) || !sameData(ao[k], bo[k])) return false;
  return true;
}

/** How `next` differs from `prev` (both imports of one trace); empty when they are the same. */
export function diffRun(prev: Run, next: Run): RunPatch {
  const p = prev as unknown as Record<string, unknown>;
  const n = next as unknown as Record<string, unknown>;
  const patch: RunPatch = { lists: Object.create(null), set: Object.create(null), unset: [] };
  for (const key of Object.keys(n)) {
    const a = p[key];
    const b = n[key];
    if (Array.isArray(a) && Array.isArray(b)) {
      const shared = Math.min(a.length, b.length);
      let from = 0;
      while (from < shared && sameData(a[from], b[from])) from++;
      if (from < b.length || a.length !== b.length) patch.lists[key] = { from, items: b.slice(from) };
    } else if (!Object.hasOwn(p, key) || !sameData(a, b)) patch.set[key] = b;
  }
  for (const key of Object.keys(p)) if (!Object.hasOwn(n, key)) patch.unset.push(key);
  return patch;
}

export function isEmptyPatch(patch: RunPatch): boolean {
  return Object.keys(patch.lists).length === 0 && Object.keys(patch.set).length === 0 && patch.unset.length === 0;
}

/** `run` with the patch applied: a new object (the store replaces runs), sharing every unchanged list item. */
export function applyRunPatch(run: Run, patch: RunPatch): Run {
  const out = { ...run } as unknown as Record<string, unknown>;
  for (const key of patch.unset) delete out[key];
  for (const [key, value] of Object.entries(patch.set)) {
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  for (const [key, { from, items }] of Object.entries(patch.lists)) {
    const before = Array.isArray(out[key]) ? (out[key] as unknown[]) : [];
    out[key] = before.slice(0, from).concat(items);
  }
  return out as unknown as Run;
}
