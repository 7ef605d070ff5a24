// One span's attribute map on its own (`{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 97, …}` or
// `{"openinference.span.kind": "LLM", "llm.token_count.prompt": …}`): what a person copies out of a span viewer, and
// what instrumentation libraries keep as test fixtures. It becomes a run of one span through the shared span
// machinery, so the attribute standards are read exactly as in a full OTLP trace.
import { hashJson } from '../hash-json.ts';
import { FormatProblem } from '../errors.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { isObject, type JsonObject } from '../read.ts';
import { genericSpansToRun } from '../spans/assemble.ts';
import { textAttr, type Attributes } from '../spans/attributes.ts';
import { buildForest, standardOf, type SpanRecord } from '../spans/forest.ts';

/** Keys that name an attribute standard we read; a map needs one of them to be taken for a span's attributes. */
const STANDARD_KEY = /^(gen_ai\.|openinference\.|llm\.)/;
/** An attribute key: dotted lowercase words (`gen_ai.usage.input_tokens`), or a bare word (`input`, `output`). */
const ATTRIBUTE_KEY = /^[a-z_][a-z0-9_]*(\.[a-z0-9_]+)*$/i;

function isAttributeValue(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return true;
  // OTel allows homogeneous arrays of scalars (`gen_ai.response.finish_reasons`).
  return Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object');
}

function isAttributeMap(value: unknown): value is JsonObject {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.some((k) => STANDARD_KEY.test(k))) return false;
  return keys.every((k) => ATTRIBUTE_KEY.test(k) && isAttributeValue(value[k]));
}

export function isSpanAttributesFormatted(doc: ParsedInput): boolean {
  return doc.kind === 'json' && isAttributeMap(doc.value);
}

/** A span name as OTel GenAI instrumentations write it (`chat gpt-4`, `execute_tool get_weather`), else the kind. */
function spanNameOf(attrs: Attributes): string {
  const operation = textAttr(attrs, 'gen_ai.operation.name');
  const target = textAttr(attrs, 'gen_ai.tool.name') ?? textAttr(attrs, 'gen_ai.agent.name') ?? textAttr(attrs, 'gen_ai.request.model');
  if (operation) return target ? `${operation} ${target}` : operation;
  const kind = textAttr(attrs, 'openinference.span.kind');
  const name = textAttr(attrs, 'tool.name') ?? textAttr(attrs, 'agent.name') ?? textAttr(attrs, 'llm.model_name');
  return [kind ?? 'span', name].filter(Boolean).join(' ');
}

export function importFromSpanAttributes(doc: ParsedInput): ImportResult {
  if (doc.kind !== 'json' || !isAttributeMap(doc.value)) throw new FormatProblem('$', 'expected one span’s attribute map');
  const attributes: Attributes = { ...doc.value };
  // Content-derived ids: the same map gives the same run whatever the file is called.
  const id = hashJson(doc.value);
  const span: SpanRecord = {
    id,
    traceId: `attributes-${id}`,
    name: spanNameOf(attributes),
    attributes,
    status: 'unset',
    events: [],
    order: 0,
  };
  const run = genericSpansToRun(buildForest(span.traceId, [span]), 'otlp');
  const standard = standardOf(attributes);
  const warnings = [`one span's attributes without a trace around them: a run of one span (${standard.id === 'none' ? 'no known attribute standard' : standard.id})`];
  return { runs: [run], annotationSets: [], warnings };
}

export const spanAttributesImporter: FormatImporter = {
  id: 'span-attributes',
  label: 'Span attributes (one OpenInference / OTel GenAI span)',
  sniff: isSpanAttributesFormatted,
  importDoc: importFromSpanAttributes,
};
