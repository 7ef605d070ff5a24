// Nested span-tree exports (TRAIL / Patronus): `{trace_id, spans:[{span_id, span_name, span_attributes, timestamp,
// duration: "PT15.2S", status_code, events, child_spans:[…]}]}`. Every attribute value is a string, token counts too.
// Also JSON Lines of such documents (one run per line). Run id = trace_id.
import type { Run } from '../../model/types.ts';
import { FormatProblem } from '../errors.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { expectArray, expectObject, expectString, isObject, optString, parseIsoDuration, parseTime, type JsonObject } from '../read.ts';
import { looksLikeSmolagents, smolagentsSpansToRun } from '../spans/smolagents.ts';
import { genericSpansToRun } from '../spans/assemble.ts';
import { buildForest, type SpanEvent, type SpanRecord } from '../spans/forest.ts';

function isSpanTreeDoc(v: unknown): v is JsonObject {
  if (!isObject(v) || !Array.isArray(v.spans)) return false;
  if (typeof v.trace_id === 'string') return true;
  const first = v.spans[0];
  return isObject(first) && typeof first.span_id === 'string' && ('child_spans' in first || 'span_name' in first);
}

function readEvents(v: unknown, path: string): SpanEvent[] {
  if (v === undefined || v === null) return [];
  return expectArray(v, path).map((e, i) => {
    const p = `${path}[${i}]`;
    const event = expectObject(e, p);
    const name = optString(event.Name ?? event.name, `${p}.Name`) ?? '';
    const attrs = event.Attributes ?? event.attributes;
    const out: SpanEvent = { name, attributes: attrs === undefined || attrs === null ? {} : expectObject(attrs, `${p}.Attributes`) };
    const time = parseTime(event.Timestamp ?? event.timestamp);
    if (time !== undefined) out.time = time;
    return out;
  });
}

function statusOf(code: string | undefined): SpanRecord['status'] {
  if (!code) return 'unset';
  const c = code.toLowerCase();
  if (c === 'error' || c === 'status_code_error' || c === '2') return 'error';
  if (c === 'ok' || c === 'status_code_ok' || c === '1') return 'ok';
  return 'unset';
}

/** Flattens the nesting; a child's parent is the span it is nested in, whatever its parent_span_id says. */
function flattenSpans(spans: unknown[], docTraceId: string | undefined, basePath: string): SpanRecord[] {
  const out: SpanRecord[] = [];
  const stack: Array<{ value: unknown; path: string; parentId?: string }> = [];
  for (let i = spans.length - 1; i >= 0; i--) stack.push({ value: spans[i], path: `${basePath}[${i}]` });
  while (stack.length) {
    const { value, path, parentId } = stack.pop()!;
    const span = expectObject(value, path);
    const id = expectString(span.span_id, `${path}.span_id`);
    const traceId = optString(span.trace_id, `${path}.trace_id`) ?? docTraceId;
    if (traceId === undefined) throw new FormatProblem(`${path}.trace_id`, 'no trace id on the span or the document');
    const attrs = span.span_attributes === undefined || span.span_attributes === null ? {} : expectObject(span.span_attributes, `${path}.span_attributes`);
    const record: SpanRecord = {
      id,
      traceId,
      name: optString(span.span_name ?? span.name, `${path}.span_name`) ?? '',
      attributes: attrs,
      status: statusOf(optString(span.status_code, `${path}.status_code`)),
      events: readEvents(span.events, `${path}.events`),
      order: out.length,
    };
    const declaredParent = optString(span.parent_span_id, `${path}.parent_span_id`);
    const parent = parentId ?? (declaredParent === '' ? undefined : declaredParent);
    if (parent !== undefined) record.parentId = parent;
    const message = optString(span.status_message, `${path}.status_message`);
    if (message) record.statusMessage = message;
    const scope = optString(span.scope_name, `${path}.scope_name`);
    if (scope) record.scope = scope;
    const start = parseTime(span.timestamp ?? span.start_time);
    if (start !== undefined) {
      record.start = start;
      const duration = optString(span.duration, `${path}.duration`);
      const ms = duration !== undefined ? parseIsoDuration(duration) : undefined;
      if (ms !== undefined) record.end = start + ms;
    }
    const endTime = parseTime(span.end_time);
    if (endTime !== undefined) record.end = endTime;
    out.push(record);
    if (span.child_spans !== undefined && span.child_spans !== null) {
      const children = expectArray(span.child_spans, `${path}.child_spans`);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i], path: `${path}.child_spans[${i}]`, parentId: id });
    }
  }
  return out;
}

function importSpanTreeDoc(value: unknown, path: string, warnings: string[]): Run {
  const doc = expectObject(value, path);
  const spans = expectArray(doc.spans, `${path}.spans`);
  const docTraceId = optString(doc.trace_id, `${path}.trace_id`);
  const records = flattenSpans(spans, docTraceId, `${path}.spans`);
  const traceId = docTraceId ?? records[0]?.traceId;
  if (traceId === undefined) throw new FormatProblem(`${path}.trace_id`, 'no trace id and no spans');
  const forest = buildForest(traceId, records);
  if (forest.duplicates) warnings.push(`trace ${traceId}: ${forest.duplicates} repeated span id(s); the first copy of each was kept`);
  return looksLikeSmolagents(forest) ? smolagentsSpansToRun(forest, 'span-tree') : genericSpansToRun(forest, 'span-tree');
}

export function importFromSpanTree(doc: ParsedInput): ImportResult {
  const warnings: string[] = [];
  const runs = doc.kind === 'json' ? [importSpanTreeDoc(doc.value, '$', warnings)] : doc.values.map((v, i) => importSpanTreeDoc(v, `line ${i + 1}: $`, warnings));
  return { runs, annotationSets: [], warnings };
}

export function isSpanTreeFormatted(doc: ParsedInput): boolean {
  if (doc.kind === 'json') return isSpanTreeDoc(doc.value);
  return doc.values.length > 0 && doc.values.every(isSpanTreeDoc);
}

export const spanTreeImporter: FormatImporter = {
  id: 'span-tree',
  label: 'Span tree (TRAIL / Patronus)',
  fileName: /(trail|patronus|span-?tree)[^/\\]*\.jsonl?(\.gz)?$/i,
  sniff: isSpanTreeFormatted,
  importDoc: importFromSpanTree,
};
