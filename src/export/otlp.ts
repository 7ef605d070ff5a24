// Runs as strict OTLP/JSON (SPEC §3): `resourceSpans → scopeSpans → spans`, lowercase hex ids, nanosecond times as
// strings, attributes as `{key, value: {stringValue | intValue | doubleValue | boolValue}}`. Every span carries both
// attribute standards the importers read (OpenInference and OTel GenAI), so other tools can read it too, and an
// engine's interventions travel as `gen_ai.evaluation.result` events on the span of the step they concern.
// Lossy by nature (OTLP has no place for stages, engine settings or recorded LLM calls): the native session is the
// lossless format.
import { jsonParts } from './json-parts.ts';
import { hashText } from '../model/hash.ts';
import type { Annotation, AgentRun, ChatMessage, Intervention, Run, Step } from '../model/types.ts';
import { appendAll } from '../model/large-arrays.ts';
import { stepFacts } from '../model/step-facts.ts';
import { stepsById } from '../model/lookups.ts';

type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } };
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpEvent {
  timeUnixNano: string;
  name: string;
  attributes: KeyValue[];
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 = INTERNAL, 3 = CLIENT (model and tool calls leave the process). */
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  events: OtlpEvent[];
  status: { code: 0 | 1 | 2; message?: string };
}

export interface OtlpDocument {
  resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { scope: { name: string; version: string }; spans: OtlpSpan[] }[] }[];
}

export const OTLP_SCOPE = 'mas-replay-studio';

function value(v: string | number | boolean): AnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

/** Any attribute value a source span held (arrays and maps too); undefined for null / undefined. */
function anyValueOf(v: unknown, depth = 0): AnyValue | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return value(v);
  if (depth > 32) return { stringValue: String(v) };
  if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => anyValueOf(x, depth + 1) ?? { stringValue: '' }) } };
  if (typeof v === 'object') return { kvlistValue: { values: sourceAttributes(v as Record<string, unknown>, depth + 1) } };
  return { stringValue: String(v) };
}

/** A source span's attributes as they were read. */
function sourceAttributes(record: Record<string, unknown>, depth = 0): KeyValue[] {
  const out: KeyValue[] = [];
  for (const key in record) {
    const v = anyValueOf(record[key], depth);
    if (v !== undefined) out.push({ key, value: v });
  }
  return out;
}

/** Attributes from a record, leaving out what is undefined; keys keep their order. */
function attributes(record: Record<string, string | number | boolean | undefined>): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, v] of Object.entries(record)) if (v !== undefined) out.push({ key, value: value(v) });
  return out;
}

/** A hex id of `bytes` bytes derived from text: the same run always exports with the same ids. */
function hexId(text: string, bytes: 8 | 16): string {
  let hex = '';
  for (let seed = 0; hex.length < bytes * 2; seed++) hex += hashText(text, seed);
  return hex.slice(0, bytes * 2);
}

/** Milliseconds (possibly fractional) as integer nanoseconds in a string; exact for times up to year 2255. */
function nanos(ms: number): string {
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}

function messageAttributes(prefix: 'llm.input_messages' | 'llm.output_messages', messages: ChatMessage[]): Record<string, string> {
  const out: Record<string, string> = {};
  messages.forEach((m, i) => {
    out[`${prefix}.${i}.message.role`] = m.role;
    out[`${prefix}.${i}.message.content`] = m.content;
    if (m.name !== undefined) out[`${prefix}.${i}.message.name`] = m.name;
    m.toolCalls?.forEach((call, j) => {
      out[`${prefix}.${i}.message.tool_calls.${j}.tool_call.function.name`] = call.name;
      out[`${prefix}.${i}.message.tool_calls.${j}.tool_call.function.arguments`] = call.arguments;
      if (call.id !== undefined) out[`${prefix}.${i}.message.tool_calls.${j}.tool_call.id`] = call.id;
    });
  });
  return out;
}

/**
 * Token counts in both standards. Counts a tokenizer estimated are written too (the context they were counted from
 * may not be in the file) but flagged `mas_replay.usage.estimated`, which our importer honours: an estimate never
 * comes back as a measurement.
 */
function usageAttributes(step: Step): Record<string, number | boolean | undefined> {
  const u = step.usage;
  // A turn no model produced (a person's message, a tool's answer): say so, or a reader would estimate it.
  if (!u) return { 'mas_replay.usage.none': true };
  return {
    'mas_replay.usage.estimated': u.estimated ? true : undefined,
    'llm.token_count.prompt': u.input,
    'llm.token_count.completion': u.output,
    'llm.token_count.total': u.total,
    'gen_ai.usage.input_tokens': u.input,
    'gen_ai.usage.output_tokens': u.output,
    'gen_ai.usage.cache_read.input_tokens': u.cached,
  };
}

function evaluationEvent(time: number, name: string, label: string, explanation: string, extra: Record<string, string | number | boolean | undefined>): OtlpEvent {
  return {
    timeUnixNano: nanos(time),
    name: 'gen_ai.evaluation.result',
    attributes: attributes({ 'gen_ai.evaluation.name': name, 'gen_ai.evaluation.score.label': label, 'gen_ai.evaluation.explanation': explanation, ...extra }),
  };
}

function interventionEvent(iv: Intervention, time: number): OtlpEvent {
  return evaluationEvent(time, `mas_replay.${iv.engine}`, iv.action, iv.reason, {
    'mas_replay.intervention.id': iv.id,
    'mas_replay.intervention.context': iv.context,
    'mas_replay.intervention.heuristic': iv.heuristic,
    'mas_replay.intervention.tokens': iv.tokens?.total,
  });
}

function annotationEvent(a: Annotation, time: number): OtlpEvent {
  return evaluationEvent(time, `mas_replay.annotation.${a.taxonomy}`, a.code, a.description ?? a.evidence ?? '', {
    'mas_replay.annotation.source': a.source,
    'mas_replay.annotation.impact': a.impact,
  });
}

/** The span attributes of one step, by its kind. */
function stepAttributes(step: Step, agentName: (id: string) => string): { name: string; kind: 1 | 3; attrs: Record<string, string | number | boolean | undefined> } {
  const agent = agentName(step.agentId);
  const model = step.model;
  if (step.kind === 'tool') {
    const name = step.name ?? step.toolCalls?.[0]?.name ?? 'tool';
    return {
      name,
      kind: 3,
      attrs: {
        'openinference.span.kind': 'TOOL',
        'tool.name': name,
        'input.value': step.inputText ?? step.toolCalls?.[0]?.arguments,
        'output.value': step.observation ?? step.output,
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
      },
    };
  }
  if (step.kind === 'action') {
    // smolagents' ActionStep: a CHAIN span `Step N` whose output is the observation.
    return {
      name: `Step ${step.number ?? step.index + 1}`,
      kind: 1,
      attrs: { 'openinference.span.kind': 'CHAIN', 'input.value': step.inputText, 'output.value': step.observation ?? step.output, 'mas_replay.step.kind': 'action' },
    };
  }
  // llm, planning, message, final: a model call (a chat turn is what a model said).
  const output: ChatMessage[] = step.output !== undefined || step.toolCalls ? [{ role: 'assistant', name: agent, content: step.output ?? '', ...(step.toolCalls ? { toolCalls: step.toolCalls } : {}) }] : [];
  return {
    name: step.name ?? (step.kind === 'llm' ? `chat ${model ?? agent}` : `${step.kind} ${agent}`),
    kind: 3,
    attrs: {
      'openinference.span.kind': 'LLM',
      'llm.model_name': model,
      ...messageAttributes('llm.input_messages', step.input ?? []),
      ...messageAttributes('llm.output_messages', output),
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': model,
      'mas_replay.step.kind': step.kind,
      'mas_replay.step.recipients': step.recipients?.join(', '),
      ...usageAttributes(step),
    },
  };
}

/**
 * Whether the run's agent runs nest the way OTLP spans must: each top-level step belongs to the agent run open last,
 * or to one of its descendants (a manager's run is interrupted by the managed agent's run it launched, never by a
 * peer's). Chat logs keep one agent run per speaker for the whole conversation: those interleave, and their turns
 * are exported as spans of their own so the order survives.
 */
export function agentRunsNest(run: Run): boolean {
  const parentOf = new Map(run.agentRuns.map((r) => [r.id, r.parentRunId]));
  const isAncestor = (ancestor: string, of: string) => {
    for (let p = parentOf.get(of); p !== undefined; p = parentOf.get(p)) if (p === ancestor) return true;
    return false;
  };
  const open: string[] = [];
  const closed = new Set<string>();
  for (const step of run.steps) {
    const id = step.agentRunId;
    if (step.parentStepId !== undefined || id === undefined) continue;
    if (open.at(-1) === id) continue;
    if (open.includes(id)) {
      while (open.at(-1) !== id) closed.add(open.pop()!);
      continue;
    }
    if (closed.has(id)) return false;
    while (open.length > 0 && !isAncestor(open.at(-1)!, id)) closed.add(open.pop()!);
    open.push(id);
  }
  return true;
}

/** One run as the spans of one trace. */
export function runToSpans(run: Run): OtlpSpan[] {
  const traceId = hexId(`trace:${run.id}`, 16);
  const spanId = (key: string) => hexId(`${run.id}:${key}`, 8);
  const agentName = (() => {
    const names = new Map(run.agents.map((a) => [a.id, a.name]));
    return (id: string) => names.get(id) ?? id;
  })();
  // The run's own times, else the time its steps span as the model counts it (step facts, nested steps included: the
  // Library's duration reads the same), without a pass of its own.
  const { firstStart, lastEnd } = stepFacts(run);
  const start = run.startTime ?? (Number.isFinite(firstStart) ? firstStart : 0);
  const end = run.endTime ?? (Number.isFinite(lastEnd) && lastEnd > start ? lastEnd : start);

  const rootId = spanId('run');
  const spans: OtlpSpan[] = [];
  const root: OtlpSpan = {
    traceId,
    spanId: rootId,
    name: run.title,
    kind: 1,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(end),
    attributes: attributes({
      'openinference.span.kind': 'CHAIN',
      'input.value': run.task,
      'output.value': run.outcome.finalAnswer,
      'mas_replay.run.id': run.id,
      'mas_replay.run.source_format': run.sourceFormat,
      'mas_replay.run.framework': run.framework,
      'mas_replay.run.outcome': run.outcome.status,
      'mas_replay.run.reference_answer': run.outcome.referenceAnswer,
      ...Object.fromEntries(Object.entries(run.tags).map(([k, v]) => [`mas_replay.run.tag.${k}`, v])),
    }),
    events: [],
    status: { code: run.outcome.status === 'failure' ? 2 : 0 },
  };
  spans.push(root);

  // Agent runs: AGENT spans, nested as the manager → managed hierarchy is.
  const agentRunSpan = new Map<string, string>();
  const byId = new Map(run.agentRuns.map((r) => [r.id, r]));
  const spanOfAgentRun = (r: AgentRun): string => {
    const known = agentRunSpan.get(r.id);
    if (known) return known;
    const id = spanId(`agent-run:${r.id}`);
    agentRunSpan.set(r.id, id);
    const parent = r.parentRunId && byId.get(r.parentRunId) ? spanOfAgentRun(byId.get(r.parentRunId)!) : rootId;
    const name = agentName(r.agentId);
    spans.push({
      traceId,
      spanId: id,
      parentSpanId: parent,
      name: `${name}.run`,
      kind: 1,
      startTimeUnixNano: nanos(r.startTime ?? start),
      endTimeUnixNano: nanos(r.endTime ?? end),
      attributes: attributes({
        'openinference.span.kind': 'AGENT',
        'agent.name': name,
        'input.value': r.task,
        'output.value': r.output,
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': name,
      }),
      events: [],
      status: { code: 0 },
    });
    return id;
  };
  // Interleaving agent runs (chat logs) are not written as spans: their turns are (below).
  if (agentRunsNest(run)) for (const r of run.agentRuns) spanOfAgentRun(r);

  const nested = agentRunsNest(run);
  const stepSpan = new Map(run.steps.map((s) => [s.id, spanId(`step:${s.id}`)]));
  const eventsOf = new Map<string, OtlpEvent[]>();
  const addEvent = (stepId: string | undefined, event: OtlpEvent) => {
    const target = (stepId && stepSpan.get(stepId)) || rootId;
    let list = eventsOf.get(target);
    if (!list) eventsOf.set(target, (list = []));
    list.push(event);
  };
  // Looked up in the run's steps by id (a map kept per steps array): a search of the steps per intervention was
  // interventions × steps, hours for a flood of results on a large run.
  const byStepId = stepsById(run.steps);
  const stepTime = (stepId: string | undefined) => {
    const s = stepId ? byStepId.get(stepId) : undefined;
    return s?.endTime ?? s?.startTime ?? end;
  };
  for (const iv of run.interventions) addEvent(iv.stepId, interventionEvent(iv, stepTime(iv.stepId)));
  for (const a of run.annotations) addEvent(a.stepId, annotationEvent(a, stepTime(a.stepId)));

  for (const step of run.steps) {
    const { name, kind, attrs } = stepAttributes(step, agentName);
    let parent = (step.parentStepId && stepSpan.get(step.parentStepId)) || (nested && step.agentRunId && agentRunSpan.get(step.agentRunId)) || undefined;
    if (parent === undefined) {
      // A chat turn belongs to no agent run: an AGENT span of its own names the speaker (OTLP has no other place).
      parent = spanId(`turn:${step.id}`);
      const speaker = agentName(step.agentId);
      spans.push({
        traceId,
        spanId: parent,
        parentSpanId: rootId,
        name: `${speaker} turn`,
        kind: 1,
        startTimeUnixNano: nanos(step.startTime ?? start),
        endTimeUnixNano: nanos(step.endTime ?? step.startTime ?? start),
        attributes: attributes({ 'openinference.span.kind': 'AGENT', 'agent.name': speaker, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': speaker }),
        events: [],
        status: { code: 0 },
      });
    }
    const id = stepSpan.get(step.id)!;
    const events: OtlpEvent[] = [];
    if (step.error) {
      events.push({
        timeUnixNano: nanos(step.endTime ?? step.startTime ?? start),
        name: 'exception',
        attributes: attributes({ 'exception.type': step.error.type, 'exception.message': step.error.message }),
      });
    }
    spans.push({
      traceId,
      spanId: id,
      parentSpanId: parent,
      name,
      kind,
      startTimeUnixNano: nanos(step.startTime ?? start),
      endTimeUnixNano: nanos(step.endTime ?? step.startTime ?? start),
      attributes: attributes({ ...attrs, 'mas_replay.step.id': step.id }),
      events,
      status: step.error ? { code: 2, message: step.error.message } : { code: 0 },
    });
  }
  if (run.spans) sourceSpans(run, spans, { traceId, rootId, spanId, stepSpan, agentRunSpan });
  for (const span of spans) appendAll(span.events, eventsOf.get(span.spanId) ?? []);
  return spans;
}

/**
 * The source spans that are neither steps nor exported agent runs (HTTP, database, framework spans, a provider span
 * merged into its wrapper's model call) written again as they were read, under the span that now stands for their
 * parent (issue 20): a re-import finds every span again.
 */
function sourceSpans(
  run: Run,
  out: OtlpSpan[],
  ids: { traceId: string; rootId: string; spanId: (key: string) => string; stepSpan: Map<string, string>; agentRunSpan: Map<string, string> },
): void {
  const spans = run.spans ?? [];
  const stepBySpan = new Map<string, string>();
  for (const step of run.steps) if (step.spanId !== undefined) stepBySpan.set(step.spanId, step.id);
  const runBySpan = new Map<string, string>();
  for (const r of run.agentRuns) if (r.spanId !== undefined) runBySpan.set(r.spanId, r.id);
  const exported = new Map<string, string>();
  const plain: typeof spans = [];
  for (const span of spans) {
    const stepId = stepBySpan.get(span.id);
    const asStep = stepId !== undefined ? ids.stepSpan.get(stepId) : undefined;
    const runId = runBySpan.get(span.id);
    const asRun = runId !== undefined ? ids.agentRunSpan.get(runId) : undefined;
    const id = asStep ?? asRun;
    if (id !== undefined) exported.set(span.id, id);
    else {
      exported.set(span.id, ids.spanId(`span:${span.id}`));
      plain.push(span);
    }
  }
  for (const span of plain) {
    // A provider span merged into its wrapper's model call goes under the wrapper, where a re-import finds it again.
    const wrapper = span.kind === 'model' && span.stepId !== undefined ? ids.stepSpan.get(span.stepId) : undefined;
    const parent = wrapper ?? (span.parentId !== undefined ? exported.get(span.parentId) : undefined) ?? (span.stepId !== undefined ? ids.stepSpan.get(span.stepId) : undefined) ?? ids.rootId;
    const start = span.start ?? span.end ?? 0;
    out.push({
      traceId: ids.traceId,
      spanId: exported.get(span.id)!,
      parentSpanId: parent,
      name: span.name,
      kind: 1,
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(span.end ?? start),
      attributes: span.kind === 'model' ? [...sourceAttributes(span.attributes), { key: 'mas_replay.span.merged', value: { boolValue: true } }] : sourceAttributes(span.attributes),
      events: span.events.map((e) => ({ timeUnixNano: nanos(e.time ?? start), name: e.name, attributes: sourceAttributes(e.attributes) })),
      status: span.status === 'error' ? (span.statusMessage ? { code: 2, message: span.statusMessage } : { code: 2 }) : { code: span.status === 'ok' ? 1 : 0 },
    });
  }
}

export function buildOtlp(runs: Run[]): OtlpDocument {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes({ 'service.name': OTLP_SCOPE }) },
        scopeSpans: [{ scope: { name: OTLP_SCOPE, version: '1' }, spans: runs.flatMap(runToSpans) }],
      },
    ],
  };
}

export function exportOtlp(runs: Run[], indent = 0): string {
  return JSON.stringify(buildOtlp(runs), null, indent || undefined);
}

/** exportOtlp's text in parts (json-parts.ts): a document of any size, for a Blob (a 200k-message chat log is ~800 MB). */
export function exportOtlpParts(runs: Run[], indent = 0): string[] {
  return jsonParts(buildOtlp(runs), { indent });
}
