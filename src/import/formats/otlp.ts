// OTLP/JSON traces: `{resourceSpans:[{resource, scopeSpans:[{scope, spans:[…]}]}]}`, a JSON array of such
// documents, or JSON Lines of them. Accepts lowerCamelCase and snake_case keys, hex or base64 ids (normalised to
// lowercase hex), `intValue` as strings, `arrayValue` / `kvlistValue`, nanosecond times as strings, and status codes
// as numbers or names. One Run per trace id, in order of first appearance.
//
// This is the path the import benchmark measures (SPEC §8): no per-span JSON copies, no regexes per span.
import type { Run } from '../../model/types.ts';
import { FormatProblem } from '../errors.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { describe, isObject, type JsonObject } from '../read.ts';
import { looksLikeSmolagents, smolagentsSpansToRun } from '../spans/smolagents.ts';
import { genericSpansToRun } from '../spans/assemble.ts';
import type { Attributes } from '../spans/attributes.ts';
import { buildForest, type SpanEvent, type SpanRecord } from '../spans/forest.ts';

function field(o: JsonObject, camel: string, snake: string): unknown {
  const v = o[camel];
  return v !== undefined ? v : o[snake];
}

function arrayAt(o: JsonObject, camel: string, snake: string, path: string): unknown[] {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new FormatProblem(`${path}.${camel}`, `expected an array, found ${describe(v)}`);
  return v;
}

function objectAt(v: unknown, path: string): JsonObject {
  if (!isObject(v)) throw new FormatProblem(path, `expected an object, found ${describe(v)}`);
  return v;
}

// --- ids -------------------------------------------------------------------------------------------------------

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) BASE64_VALUE[BASE64.charCodeAt(i)] = i;
BASE64_VALUE['-'.charCodeAt(0)] = 62; // base64url
BASE64_VALUE['_'.charCodeAt(0)] = 63;
const HEX = '0123456789abcdef';

/** 0: not hex; 1: lowercase hex; 2: hex with an uppercase digit. */
function hexCase(text: string): 0 | 1 | 2 {
  let upper = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) continue;
    if (c >= 65 && c <= 70) upper = true;
    else return 0;
  }
  return upper ? 2 : 1;
}

function base64ToHex(text: string): string | undefined {
  let bits = 0;
  let value = 0;
  let out = '';
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? BASE64_VALUE[c] : -1;
    if (v < 0) return undefined;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const byte = (value >> bits) & 0xff;
      out += HEX[byte >> 4] + HEX[byte & 15];
    }
  }
  return out;
}

/**
 * Span ids are 8 bytes and trace ids 16: hex of that length (the OTLP/JSON spec) is taken as hex, anything else that
 * decodes as base64 (protobuf-JSON exporters) is decoded. Other strings are kept as written.
 */
export function normaliseId(text: string, bytes: 8 | 16): string {
  if (text.length === bytes * 2) {
    // Lowercase hex (the usual form) is returned as it is: no new string per id.
    const hex = hexCase(text);
    if (hex === 1) return text;
    if (hex === 2) return text.toLowerCase();
  }
  const hex = base64ToHex(text);
  if (hex !== undefined && hex.length > 0 && (text.length % 4 === 0 || text.indexOf('=') === -1)) return hex;
  return text;
}

function idAt(o: JsonObject, camel: string, snake: string, bytes: 8 | 16, where: SpanLocation, required: boolean): string | undefined {
  const v = field(o, camel, snake);
  if (v === undefined || v === null || v === '') {
    if (required) throw new FormatProblem(`${pathOf(where)}.${camel}`, 'missing');
    return undefined;
  }
  if (typeof v !== 'string') throw new FormatProblem(`${pathOf(where)}.${camel}`, `expected a string, found ${describe(v)}`);
  return normaliseId(v, bytes);
}

// --- values ----------------------------------------------------------------------------------------------------

/** An OTLP AnyValue as a plain JS value. Integers arrive as strings (int64 in JSON); they are read as numbers. */
function anyValue(v: unknown, path: string, depth = 0): unknown {
  if (!isObject(v)) return v === undefined ? null : v;
  if (depth > 32) throw new FormatProblem(path, 'attribute value nested too deeply');
  let x = field(v, 'stringValue', 'string_value');
  if (x !== undefined) return x;
  x = field(v, 'intValue', 'int_value');
  if (x !== undefined) {
    const n = typeof x === 'number' ? x : Number(x);
    return Number.isFinite(n) ? n : x;
  }
  x = field(v, 'doubleValue', 'double_value');
  if (x !== undefined) return typeof x === 'string' ? Number(x) : x;
  x = field(v, 'boolValue', 'bool_value');
  if (x !== undefined) return x;
  x = field(v, 'arrayValue', 'array_value');
  if (x !== undefined) {
    const values = isObject(x) ? x.values : undefined;
    if (values === undefined || values === null) return [];
    if (!Array.isArray(values)) throw new FormatProblem(`${path}.arrayValue.values`, `expected an array, found ${describe(values)}`);
    return values.map((item, i) => anyValue(item, `${path}.arrayValue.values[${i}]`, depth + 1));
  }
  x = field(v, 'kvlistValue', 'kvlist_value');
  if (x !== undefined) {
    const values = isObject(x) ? x.values : undefined;
    const out: Attributes = {};
    if (Array.isArray(values)) readKeyValues(values, out, `${path}.kvlistValue.values`, depth + 1);
    return out;
  }
  x = field(v, 'bytesValue', 'bytes_value');
  if (x !== undefined) return x;
  return null;
}

/** Where a span is: its JSON path is built only when a problem is found (these loops run once per span). */
interface SpanLocation {
  scopePath: string;
  index: number;
}

function pathOf(where: string | SpanLocation): string {
  return typeof where === 'string' ? where : `${where.scopePath}.spans[${where.index}]`;
}

function listPathOf(path: string, where: SpanLocation | undefined): string {
  return where ? `${pathOf(where)}.attributes` : path;
}

/** `intValue` written as a string (int64 in JSON): read as a number when it is one. */
function intFromString(text: string): unknown {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

/**
 * Copies an OTLP `[{key, value}]` list into a plain record in one pass. The common scalar forms (`stringValue`,
 * `intValue` as a string) are read inline; a path is built only for a problem or for the rarer value forms.
 */
function readKeyValues(list: unknown[], into: Attributes, path: string, depth = 0, where?: SpanLocation): void {
  for (let i = 0; i < list.length; i++) {
    const kv = list[i];
    if (!isObject(kv) || typeof kv.key !== 'string') throw new FormatProblem(`${listPathOf(path, where)}[${i}]`, 'expected {key, value}');
    const key = kv.key;
    const raw = kv.value;
    let value: unknown;
    if (isObject(raw)) {
      const s = raw.stringValue;
      if (typeof s === 'string') value = s;
      else if (s === undefined && depth <= 32 && typeof raw.intValue === 'string') value = intFromString(raw.intValue);
      else value = anyValue(raw, `${listPathOf(path, where)}[${i}].value`, depth);
    } else {
      value = anyValue(raw, `${listPathOf(path, where)}[${i}].value`, depth);
    }
    // A key named __proto__ would otherwise replace the object's prototype instead of being stored.
    if (key === '__proto__') Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
    else into[key] = value;
  }
}

function attributesAt(o: JsonObject, where: string | SpanLocation): Attributes {
  const attrs: Attributes = {};
  const list = o.attributes;
  if (list === undefined || list === null) return attrs;
  if (!Array.isArray(list)) throw new FormatProblem(`${pathOf(where)}.attributes`, `expected an array, found ${describe(list)}`);
  if (typeof where === 'string') readKeyValues(list, attrs, `${where}.attributes`);
  else readKeyValues(list, attrs, '', 0, where);
  return attrs;
}

function nanosToMs(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '' || v === '0' || v === 0) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n / 1e6 : undefined;
}

function statusOf(status: unknown): SpanRecord['status'] {
  if (!isObject(status)) return 'unset';
  const code = status.code;
  if (code === 2 || code === '2') return 'error';
  if (code === 1 || code === '1') return 'ok';
  // The exact enum names first: no uppercased copy per span.
  if (code === 'STATUS_CODE_OK') return 'ok';
  if (code === 'STATUS_CODE_ERROR') return 'error';
  if (code === 'STATUS_CODE_UNSET' || code === undefined) return 'unset';
  if (typeof code === 'string') {
    const c = code.toUpperCase();
    if (c === 'STATUS_CODE_ERROR' || c === 'ERROR') return 'error';
    if (c === 'STATUS_CODE_OK' || c === 'OK') return 'ok';
  }
  return 'unset';
}

function statusMessageOf(status: unknown): string | undefined {
  if (!isObject(status)) return undefined;
  return typeof status.message === 'string' && status.message !== '' ? status.message : undefined;
}

function eventsAt(o: JsonObject, where: SpanLocation): SpanEvent[] {
  const events = o.events;
  if (events === undefined || events === null || (Array.isArray(events) && events.length === 0)) return [];
  const path = pathOf(where);
  const list = arrayAt(o, 'events', 'events', path);
  return list.map((e, i) => {
    const p = `${path}.events[${i}]`;
    const event = objectAt(e, p);
    const out: SpanEvent = { name: typeof event.name === 'string' ? event.name : '', attributes: attributesAt(event, p) };
    const time = nanosToMs(field(event, 'timeUnixNano', 'time_unix_nano'));
    if (time !== undefined) out.time = time;
    return out;
  });
}

// --- documents -------------------------------------------------------------------------------------------------

function resourceSpansOf(doc: JsonObject): unknown {
  return doc.resourceSpans ?? doc.resource_spans;
}

function isOtlpDoc(v: unknown): boolean {
  return isObject(v) && Array.isArray(resourceSpansOf(v));
}

/** The OTLP documents in a file: one object, a JSON array of them, or JSON Lines. */
function documentsOf(doc: ParsedInput): Array<{ value: unknown; path: string }> {
  if (doc.kind === 'jsonl') return doc.values.map((value, i) => ({ value, path: `line ${i + 1}: $` }));
  if (Array.isArray(doc.value)) return doc.value.map((value, i) => ({ value, path: `$[${i}]` }));
  return [{ value: doc.value, path: '$' }];
}

function readDocument(value: unknown, path: string, into: SpanRecord[], resource: { attributes?: Attributes }): void {
  const doc = objectAt(value, path);
  const resourceSpans = resourceSpansOf(doc);
  if (!Array.isArray(resourceSpans)) throw new FormatProblem(`${path}.resourceSpans`, `expected an array, found ${describe(resourceSpans)}`);
  for (let r = 0; r < resourceSpans.length; r++) {
    const rPath = `${path}.resourceSpans[${r}]`;
    const rs = objectAt(resourceSpans[r], rPath);
    const resourceAttrs = isObject(rs.resource) ? attributesAt(rs.resource, `${rPath}.resource`) : undefined;
    if (resource.attributes === undefined && resourceAttrs) resource.attributes = resourceAttrs;
    const serviceName = resourceAttrs?.['service.name'];
    // The SDKs' default (`unknown_service`, `unknown_service:node`) names nothing.
    const service = typeof serviceName === 'string' && serviceName !== '' && !serviceName.startsWith('unknown_service') ? serviceName : undefined;
    let scopeSpans = arrayAt(rs, 'scopeSpans', 'scope_spans', rPath);
    if (scopeSpans.length === 0) scopeSpans = arrayAt(rs, 'instrumentationLibrarySpans', 'instrumentation_library_spans', rPath);
    for (let s = 0; s < scopeSpans.length; s++) {
      const sPath = `${rPath}.scopeSpans[${s}]`;
      const ss = objectAt(scopeSpans[s], sPath);
      const scopeObj = ss.scope ?? field(ss, 'instrumentationLibrary', 'instrumentation_library');
      const scope = isObject(scopeObj) && typeof scopeObj.name === 'string' ? scopeObj.name : undefined;
      const spans = arrayAt(ss, 'spans', 'spans', sPath);
      // One location per scope, moved along: errors read it at once, so no object is made per span.
      const p: SpanLocation = { scopePath: sPath, index: 0 };
      for (let i = 0; i < spans.length; i++) {
        p.index = i;
        const raw = spans[i];
        if (!isObject(raw)) throw new FormatProblem(pathOf(p), `expected an object, found ${describe(raw)}`);
        const span = raw;
        const id = idAt(span, 'spanId', 'span_id', 8, p, true)!;
        const traceId = idAt(span, 'traceId', 'trace_id', 16, p, true)!;
        const attributes = attributesAt(span, p);
        const events = eventsAt(span, p);
        const parentId = idAt(span, 'parentSpanId', 'parent_span_id', 8, p, false);
        const start = nanosToMs(field(span, 'startTimeUnixNano', 'start_time_unix_nano'));
        const end = nanosToMs(field(span, 'endTimeUnixNano', 'end_time_unix_nano'));
        const status = span.status;
        const message = statusMessageOf(status);
        // Every field in the literal, in one order: one shape for all records, no property store grown per span.
        const record: SpanRecord = {
          id,
          parentId,
          traceId,
          name: typeof span.name === 'string' ? span.name : '',
          start,
          end,
          attributes,
          status: statusOf(status),
          statusMessage: message,
          events,
          scope,
          order: into.length,
          service,
          kind: undefined,
          stepId: undefined,
          depth: undefined,
        };
        into.push(record);
      }
    }
  }
}

export function importFromOtlp(doc: ParsedInput): ImportResult {
  const spans: SpanRecord[] = [];
  const resource: { attributes?: Attributes } = {};
  for (const { value, path } of documentsOf(doc)) readDocument(value, path, spans, resource);
  const byTrace = new Map<string, SpanRecord[]>();
  for (const span of spans) {
    let list = byTrace.get(span.traceId);
    if (!list) byTrace.set(span.traceId, (list = []));
    list.push(span);
  }
  const warnings: string[] = [];
  const runs: Run[] = [];
  for (const [traceId, traceSpans] of byTrace) {
    const forest = buildForest(traceId, traceSpans);
    if (forest.duplicates) warnings.push(`trace ${traceId}: ${forest.duplicates} repeated span id(s); the first copy of each was kept`);
    const run = looksLikeSmolagents(forest) ? smolagentsSpansToRun(forest, 'otlp') : genericSpansToRun(forest, 'otlp');
    if (resource.attributes && Object.keys(resource.attributes).length) run.raw = { ...run.raw, resource: resource.attributes };
    runs.push(run);
  }
  if (spans.length === 0) warnings.push('the file holds no spans');
  return { runs, annotationSets: [], warnings };
}

export function isOtlpFormatted(doc: ParsedInput): boolean {
  if (doc.kind === 'jsonl') return doc.values.length > 0 && doc.values.every(isOtlpDoc);
  if (Array.isArray(doc.value)) return doc.value.length > 0 && doc.value.every(isOtlpDoc);
  return isOtlpDoc(doc.value);
}

export const otlpImporter: FormatImporter = {
  id: 'otlp',
  label: 'OTLP/JSON traces',
  fileName: /(otlp|otel|traces?)[^/\\]*\.jsonl?(\.gz)?$/i,
  sniff: isOtlpFormatted,
  importDoc: importFromOtlp,
};
