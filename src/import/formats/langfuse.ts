// Langfuse trace exports (SPEC §3): `{trace, observations[]}`, a trace object carrying `observations[]`, a list of
// either, or `{data:[…]}`; observations also listed under `trace.observations` are merged by id.
//
// Mapping decisions:
// - GENERATION → `llm` step (the only steps with usage); TOOL, RETRIEVER, EMBEDDING, `execute_tool` spans and spans
//   named after a tool the model called → `tool` steps. Step id `<runId>:<observation id>`, spanId = observation id, replay order = depth-first over the
//   observation tree, children by start time. A GENERATION wrapping other GENERATIONs that recorded usage is an
//   aggregate: its own usage stays in `raw`, so tokens are never counted twice.
// - Agent observations → an agent (id = agent name) and an agent run with `spanId` = the observation id (so `inspect`
//   counts it as an agent call): type AGENT, `invoke_agent X` spans (OTel GenAI), spans whose attributes name an
//   agent (`gen_ai.agent.name`, `agent_name`), and LangGraph nodes that call a model. Steps belong to the nearest
//   agent above them; steps under none belong to one agent named after the trace (its run has no spanId).
// - Handoffs: a child agent run of another agent → `delegation` (its input) and `report` (its output) edges;
//   consecutive sibling agent runs of different agents → a `message` edge carrying the earlier run's output.
// - Other observations (SPAN, CHAIN, EVENT, …) shape the tree and are listed in `run.raw.structure`; an ERROR level
//   on one of them becomes the error of the nearest step above it (else the first below it).
// - Observations whose parent is missing are counted in `orphanSpans` and replayed as roots, never dropped.
// - `scores` → annotations (taxonomy `Langfuse`, code = score name; human when the source is ANNOTATION).
// - Run id = the trace id (else the observations' traceId, else a hash of the text).
import { hashJson } from '../hash-json.ts';
import type { Agent, AgentRun, Annotation, ChatMessage, Handoff, Run, Step, TokenUsage, ToolCall } from '../../model/types.ts';
import { contentText, documentsOf, titleFromTask, uniqueIds, unmappedFields } from './chat-log.ts';
import { FormatProblem } from '../errors.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { asText, expectArray, expectObject, isObject, optNumber, optString, parseTime, type JsonObject } from '../read.ts';

const TYPES = new Set(['GENERATION', 'SPAN', 'EVENT', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EMBEDDING', 'EVALUATOR', 'GUARDRAIL']);
const TOOL_TYPES = new Set(['TOOL', 'RETRIEVER', 'EMBEDDING']);
const OBS_MAPPED = new Set([
  'id', 'type', 'name', 'parentObservationId', 'startTime', 'endTime', 'model', 'input', 'output', 'level',
  'statusMessage', 'usageDetails', 'usage', 'inputUsage', 'outputUsage', 'totalUsage',
]);
const TRACE_MAPPED = new Set(['id', 'name', 'input', 'output', 'observations', 'scores', 'timestamp']);

// ---------------------------------------------------------------------------------------------------------------
// Reading the document

interface TraceDoc {
  trace: JsonObject;
  observations: { value: unknown; path: string }[];
  scores: { value: unknown; path: string }[];
  path: string;
}

function isObservation(v: unknown): boolean {
  return isObject(v) && typeof v.type === 'string' && TYPES.has(v.type.toUpperCase()) && 'id' in v && ('traceId' in v || 'parentObservationId' in v);
}

function listOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The trace object and its observation list, or undefined when `v` is not a Langfuse trace export. */
function traceShape(v: unknown): { trace: JsonObject; obsKey: 'outer' | 'trace'; outer: JsonObject } | undefined {
  if (!isObject(v)) return undefined;
  if (isObject(v.trace) && Array.isArray(v.observations)) return { trace: v.trace, obsKey: 'outer', outer: v };
  if (Array.isArray(v.observations) && ('projectId' in v || 'timestamp' in v || 'id' in v)) return { trace: v, obsKey: 'trace', outer: v };
  return undefined;
}

function isLangfuseDocument(v: unknown): boolean {
  const shape = traceShape(v);
  if (!shape) return false;
  const obs = shape.obsKey === 'outer' ? listOf(shape.outer.observations) : listOf(shape.trace.observations);
  return obs.length > 0 ? isObservation(obs[0]) : 'projectId' in shape.trace;
}

function traceDocuments(doc: ParsedInput): { value: unknown; path: string }[] | undefined {
  let docs = documentsOf(doc);
  if (docs.length === 1 && isObject(docs[0].value) && Array.isArray(docs[0].value.data) && !traceShape(docs[0].value)) {
    docs = docs[0].value.data.map((value, i) => ({ value, path: `$.data[${i}]` }));
  }
  return docs.length > 0 && docs.every((d) => isLangfuseDocument(d.value)) ? docs : undefined;
}

function readTraceDoc(value: unknown, path: string): TraceDoc {
  const shape = traceShape(value);
  if (!shape) throw new FormatProblem(path, 'expected a Langfuse trace with observations');
  const tracePath = shape.obsKey === 'outer' ? `${path}.trace` : path;
  const observations: TraceDoc['observations'] = [];
  const seen = new Set<string>();
  const add = (list: unknown, at: string) => {
    if (list === undefined || list === null) return;
    expectArray(list, at).forEach((o, i) => {
      if (typeof o === 'string') return; // an id reference to an observation listed elsewhere
      const id = isObject(o) && typeof o.id === 'string' ? o.id : undefined;
      if (id !== undefined && seen.has(id)) return;
      if (id !== undefined) seen.add(id);
      observations.push({ value: o, path: `${at}[${i}]` });
    });
  };
  if (shape.obsKey === 'outer') add(shape.outer.observations, `${path}.observations`);
  add(shape.trace.observations, `${tracePath}.observations`);
  const scores: TraceDoc['scores'] = [];
  const seenScores = new Set<string>();
  const addScores = (list: unknown, at: string) => {
    if (list === undefined || list === null) return;
    expectArray(list, at).forEach((s, i) => {
      const id = isObject(s) && typeof s.id === 'string' ? s.id : undefined;
      if (id !== undefined && seenScores.has(id)) return;
      if (id !== undefined) seenScores.add(id);
      scores.push({ value: s, path: `${at}[${i}]` });
    });
  };
  addScores(shape.trace.scores, `${tracePath}.scores`);
  if (shape.obsKey === 'outer') addScores(shape.outer.scores, `${path}.scores`);
  return { trace: shape.trace, observations, scores, path: tracePath };
}

// ---------------------------------------------------------------------------------------------------------------
// Interpreting values: messages, texts, usage

/** Metadata is sometimes a JSON string; its OTel attributes sit under `attributes`. */
function attributesOf(metadata: unknown): JsonObject {
  let m = metadata;
  if (typeof m === 'string' && m.trimStart().startsWith('{')) {
    try {
      m = JSON.parse(m);
    } catch {
      return {};
    }
  }
  if (!isObject(m)) return {};
  return isObject(m.attributes) ? { ...m, ...m.attributes } : m;
}

/** A JSON-looking string parsed (exports often encode a value twice), anything else unchanged. */
function unwrapJson(v: unknown): unknown {
  let cur = v;
  for (let i = 0; i < 3 && typeof cur === 'string'; i++) {
    const t = cur.trim();
    if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"'))) break;
    try {
      cur = JSON.parse(t);
    } catch {
      break;
    }
  }
  return cur;
}

/** Text of a message's content: a string, or the text parts of a parts list (OpenAI, Gemini, GenAI conventions). */
function partsText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((p) => {
    if (typeof p === 'string') return [p];
    if (!isObject(p)) return [];
    if (typeof p.text === 'string') return [p.text];
    if ((p.type === 'text' || p.type === undefined) && typeof p.content === 'string') return [p.content];
    return [];
  });
  return texts.length ? texts.join('\n') : undefined;
}

function messageRole(m: JsonObject): string | undefined {
  if (typeof m.role === 'string') return m.role;
  if (typeof m.type === 'string') return m.type === 'human' ? 'user' : m.type === 'ai' ? 'assistant' : m.type;
  return undefined;
}

function messageText(m: JsonObject): string | undefined {
  return partsText(m.content) ?? partsText(m.parts) ?? (isObject(m.content) ? partsText(m.content.parts) : undefined);
}

function messageList(v: unknown): JsonObject[] | undefined {
  const u = unwrapJson(v);
  const list = Array.isArray(u) ? u : isObject(u) && Array.isArray(u.messages) ? u.messages : undefined;
  if (!list || list.length === 0 || !list.every((m) => isObject(m) && messageRole(m) !== undefined)) return undefined;
  return list as JsonObject[];
}

/** The user's request in a trace or span input, in the shapes instrumentations write. */
function userText(v: unknown, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const u = unwrapJson(v);
  if (typeof u === 'string') return u.trim() === '' ? undefined : u;
  const messages = messageList(u);
  if (messages) {
    const user = messages.find((m) => messageRole(m) === 'user');
    return user ? messageText(user) : undefined;
  }
  if (!isObject(u)) return undefined;
  if (isObject(u.new_message)) return messageText(u.new_message);
  if (Array.isArray(u.args) && typeof u.args[0] === 'string') return u.args[0];
  for (const key of ['input', 'question', 'query', 'prompt']) if (u[key] !== undefined) return userText(u[key], depth + 1);
  return undefined;
}

/** The answer text in a model or trace output, in the shapes instrumentations write. */
function answerText(v: unknown, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const u = unwrapJson(v);
  if (typeof u === 'string') return u;
  const messages = messageList(u);
  if (messages) {
    for (let i = messages.length - 1; i >= 0; i--) {
      const t = messageText(messages[i]);
      if (t) return t;
    }
    return '';
  }
  if (Array.isArray(u) && typeof u[0] === 'string') return u[0];
  if (!isObject(u)) return undefined;
  if (Array.isArray(u.choices) && isObject(u.choices[0])) return answerText(u.choices[0].message ?? u.choices[0].text, depth + 1);
  if (isObject(u.message)) return answerText(u.message, depth + 1);
  const t = messageText(u);
  if (t !== undefined) return t;
  if (isObject(u.content)) return answerText(u.content, depth + 1);
  if (typeof u.output === 'string') return u.output;
  return undefined;
}

function toolCallsIn(v: unknown): ToolCall[] {
  const u = unwrapJson(v);
  const messages = messageList(u) ?? (isObject(u) ? [u] : []);
  const calls: ToolCall[] = [];
  const args = (a: unknown) => (typeof a === 'string' ? a : asText(a ?? {}));
  for (const m of messages) {
    const lists = [m.tool_calls, isObject(m.additional_kwargs) ? m.additional_kwargs.tool_calls : undefined];
    for (const list of lists) {
      for (const c of listOf(list)) {
        if (!isObject(c)) continue;
        const fn = isObject(c.function) ? c.function : c;
        if (typeof fn.name !== 'string') continue;
        const call: ToolCall = { name: fn.name, arguments: args(fn.arguments ?? fn.args) };
        if (typeof c.id === 'string') call.id = c.id;
        calls.push(call);
      }
      if (calls.length) break;
    }
    const parts = listOf(m.parts ?? (isObject(m.content) ? m.content.parts : undefined));
    for (const p of parts) {
      if (!isObject(p)) continue;
      if (isObject(p.function_call) && typeof p.function_call.name === 'string') {
        calls.push({ name: p.function_call.name, arguments: args(p.function_call.args) });
      } else if (p.type === 'tool_call' && typeof p.name === 'string') {
        const call: ToolCall = { name: p.name, arguments: args(p.arguments) };
        if (typeof p.id === 'string') call.id = p.id;
        calls.push(call);
      }
    }
  }
  return calls;
}

function chatMessages(v: unknown): ChatMessage[] | undefined {
  const list = messageList(v);
  if (!list) return undefined;
  return list.map((m) => {
    const msg: ChatMessage = { role: messageRole(m) ?? 'unknown', content: messageText(m) ?? contentText(m.content) };
    if (typeof m.name === 'string') msg.name = m.name;
    if (typeof m.tool_call_id === 'string') msg.toolCallId = m.tool_call_id;
    const calls = toolCallsIn(m);
    if (calls.length) msg.toolCalls = calls;
    return msg;
  });
}

function num(obj: JsonObject, keys: string[], path: string): number | undefined {
  for (const k of keys) {
    const n = optNumber(obj[k], `${path}.${k}`);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** Recorded usage: `usageDetails`, else the older `usage`, else `inputUsage`/`outputUsage`/`totalUsage`. */
export function recordedUsage(o: JsonObject, path: string): TokenUsage | undefined {
  let input: number | undefined;
  let output: number | undefined;
  let total: number | undefined;
  let cached: number | undefined;
  const details = isObject(o.usageDetails) && Object.keys(o.usageDetails).length > 0 ? o.usageDetails : undefined;
  const usage = isObject(o.usage) && Object.keys(o.usage).length > 0 ? o.usage : undefined;
  if (details) {
    const at = `${path}.usageDetails`;
    input = num(details, ['input', 'prompt_tokens', 'input_tokens'], at);
    output = num(details, ['output', 'completion_tokens', 'output_tokens'], at);
    total = num(details, ['total', 'total_tokens'], at);
    cached = num(details, ['input_cached_tokens', 'input_cache_read', 'cache_read_input_tokens', 'cached_tokens'], at);
  } else if (usage) {
    const at = `${path}.usage`;
    input = num(usage, ['input', 'promptTokens', 'prompt_tokens'], at);
    output = num(usage, ['output', 'completionTokens', 'completion_tokens'], at);
    total = num(usage, ['total', 'totalTokens', 'total_tokens'], at);
  } else {
    input = optNumber(o.inputUsage, `${path}.inputUsage`);
    output = optNumber(o.outputUsage, `${path}.outputUsage`);
    total = optNumber(o.totalUsage, `${path}.totalUsage`);
  }
  if (!input && !output && !total) return undefined;
  const u: TokenUsage = { input: input ?? 0, output: output ?? 0, total: total ?? (input ?? 0) + (output ?? 0) };
  if (cached) u.cached = cached;
  const costDetails = isObject(o.costDetails) ? o.costDetails : undefined;
  const cost = (costDetails ? num(costDetails, ['total'], `${path}.costDetails`) : undefined) ?? num(o, ['calculatedTotalCost', 'totalCost'], path);
  if (cost !== undefined) u.cost = cost;
  return u;
}

// ---------------------------------------------------------------------------------------------------------------
// Building the run

interface Obs {
  id: string;
  type: string;
  name: string;
  parentId?: string;
  start?: number;
  end?: number;
  order: number;
  raw: JsonObject;
  path: string;
  attributes: JsonObject;
  children: Obs[];
  parent?: Obs;
  /** Some descendant is a GENERATION / a GENERATION with recorded usage (computed once, bottom-up). */
  generationBelow: boolean;
  usageBelow: boolean;
}

function readObservation(value: unknown, path: string, order: number): Obs {
  const o = expectObject(value, path);
  const id = optString(o.id, `${path}.id`) ?? `#${order}`;
  const type = (optString(o.type, `${path}.type`) ?? 'SPAN').toUpperCase();
  const obs: Obs = { id, type, name: optString(o.name, `${path}.name`) ?? '', order, raw: o, path, attributes: attributesOf(o.metadata), children: [], generationBelow: false, usageBelow: false };
  const parentId = optString(o.parentObservationId, `${path}.parentObservationId`);
  if (parentId !== undefined && parentId !== '') obs.parentId = parentId;
  const start = parseTime(o.startTime);
  const end = parseTime(o.endTime);
  if (start !== undefined) obs.start = start;
  if (end !== undefined) obs.end = end;
  return obs;
}

function stringAttr(obs: Obs, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof obs.attributes[k] === 'string' && obs.attributes[k] !== '') return obs.attributes[k] as string;
  return undefined;
}

/** The agent an observation stands for, or undefined when it is not an agent invocation. */
function agentNameOf(obs: Obs): string | undefined {
  if (obs.type === 'GENERATION' || TOOL_TYPES.has(obs.type)) return undefined;
  const invoke = /^invoke_agent\s+(.+)$/.exec(obs.name);
  const named = stringAttr(obs, 'gen_ai.agent.name', 'agent_name', 'agent.name');
  if (obs.type === 'AGENT' || invoke || named || obs.attributes['gen_ai.operation.name'] === 'invoke_agent') {
    return named ?? invoke?.[1] ?? /^agent_run \[(.+)\]$/.exec(obs.name)?.[1] ?? (obs.name || obs.id);
  }
  if (typeof obs.attributes.langgraph_node === 'string' && obs.attributes.langgraph_node === obs.name && obs.generationBelow) return obs.name;
  return undefined;
}

/** Tool executions: tool-typed observations, GenAI `execute_tool` spans, and plain spans named after a tool the
 *  model called (LangGraph's ToolNode records `Web-Search` as a SPAN) that make no model call themselves. */
function isToolObservation(obs: Obs, calledTools: ReadonlySet<string>): boolean {
  if (TOOL_TYPES.has(obs.type) || /^execute_tool\b/.test(obs.name) || obs.attributes['gen_ai.operation.name'] === 'execute_tool') return true;
  return obs.type === 'SPAN' && calledTools.has(obs.name) && !obs.generationBelow;
}

function toolNameOf(obs: Obs): string {
  return stringAttr(obs, 'gen_ai.tool.name', 'ai.toolCall.name', 'tool.name') ?? (/^execute_tool\s+(.+)$/.exec(obs.name)?.[1] ?? obs.name);
}

function byTime(a: Obs, b: Obs): number {
  return (a.start ?? Infinity) - (b.start ?? Infinity) || a.order - b.order;
}

/** The observations as a tree in replay order: ids made unique, orphans and cycle members kept as roots and counted. */
interface ObservationTree {
  all: Obs[];
  byId: Map<string, Obs>;
  roots: Obs[];
  /** Depth-first, every child after its parent. */
  ordered: Obs[];
  orphans: number;
}

function observationTree(td: TraceDoc, warnings: string[]): ObservationTree {
  const all = td.observations.map((o, i) => readObservation(o.value, o.path, i));
  const byId = new Map<string, Obs>();
  for (const o of all) {
    if (byId.has(o.id)) {
      o.id = `${o.id}#${o.order}`;
      warnings.push(`${o.path}.id: duplicate observation id, renamed ${o.id}`);
    }
    byId.set(o.id, o);
  }
  let orphans = 0;
  const roots: Obs[] = [];
  for (const o of all) {
    const parent = o.parentId !== undefined ? byId.get(o.parentId) : undefined;
    if (o.parentId !== undefined && !parent) orphans++;
    if (parent && parent !== o) {
      o.parent = parent;
      parent.children.push(o);
    } else roots.push(o);
  }
  for (const o of all) o.children.sort(byTime);
  roots.sort(byTime);

  // Depth-first replay order; observations caught in a parent cycle are unreachable from any root and join as roots.
  const ordered: Obs[] = [];
  const visited = new Set<Obs>();
  const visit = (o: Obs) => {
    const stack = [o];
    while (stack.length) {
      const cur = stack.pop()!;
      if (visited.has(cur)) continue;
      visited.add(cur);
      ordered.push(cur);
      for (let i = cur.children.length - 1; i >= 0; i--) stack.push(cur.children[i]);
    }
  };
  roots.forEach(visit);
  for (const o of all) {
    if (!visited.has(o)) {
      orphans++;
      warnings.push(`${o.path}: observation ${o.id} is in a parent cycle; shown as a root`);
      o.parent = undefined;
      visit(o);
    }
  }
  markSubtrees(ordered);
  return { all, byId, roots, ordered, orphans };
}

/** Pre-order puts every child after its parent, so one reverse pass settles the subtree flags without recursion. */
function markSubtrees(ordered: Obs[]): void {
  for (let i = ordered.length - 1; i >= 0; i--) {
    const o = ordered[i];
    const p = o.parent;
    if (!p) continue;
    const isGen = o.type === 'GENERATION';
    if (isGen || o.generationBelow) p.generationBelow = true;
    if ((isGen && recordedUsage(o.raw, o.path) !== undefined) || o.usageBelow) p.usageBelow = true;
  }
}

/** The agents and agent runs of a trace: one run per agent invocation, and a fallback run made on first need. */
interface AgentRuns {
  agents: Map<string, Agent>;
  agentRuns: AgentRun[];
  runOfObs: Map<Obs, AgentRun>;
  /** The agent run of the observation or its nearest ancestor. */
  nearestRun(o: Obs | undefined): AgentRun | undefined;
  /** nearestRun, else the trace's fallback run (created, and put first, the first time it is needed). */
  runFor(o: Obs): AgentRun;
}

function agentRunsOf(ordered: Obs[], runId: string, defaultAgent: string): AgentRuns {
  const agents = new Map<string, Agent>();
  const agentRuns: AgentRun[] = [];
  const runOfObs = new Map<Obs, AgentRun>();
  /** Filled in pre-order, so a parent is always known. */
  const runAbove = new Map<Obs, AgentRun>();
  const nearestRun = (o: Obs | undefined): AgentRun | undefined => (o ? runAbove.get(o) : undefined);

  for (const o of ordered) {
    const name = agentNameOf(o);
    const parentRun = nearestRun(o.parent);
    if (name === undefined) {
      if (parentRun) runAbove.set(o, parentRun);
      continue;
    }
    if (!agents.has(name)) {
      const agent: Agent = { id: name, name };
      if (parentRun && parentRun.agentId !== name) agent.parentId = parentRun.agentId;
      const model = optString(o.raw.model, `${o.path}.model`);
      if (model && model !== 'unknown') agent.model = model;
      agents.set(name, agent);
    }
    const run: AgentRun = { id: `${runId}:run:${o.id}`, agentId: name, spanId: o.id };
    if (parentRun) run.parentRunId = parentRun.id;
    const task = userText(o.raw.input);
    if (task !== undefined) run.task = task;
    // A turn that only calls tools has no text; its calls are what it hands on.
    const output = answerText(o.raw.output) || toolCallsIn(o.raw.output).map((c) => `${c.name}(${c.arguments})`).join('\n');
    if (output) run.output = output;
    if (o.start !== undefined) run.startTime = o.start;
    if (o.end !== undefined) run.endTime = o.end;
    runOfObs.set(o, run);
    runAbove.set(o, run);
    agentRuns.push(run);
  }

  let fallbackRun: AgentRun | undefined;
  const runFor = (o: Obs): AgentRun => {
    const r = nearestRun(o);
    if (r) return r;
    if (!fallbackRun) {
      if (!agents.has(defaultAgent)) agents.set(defaultAgent, { id: defaultAgent, name: defaultAgent });
      fallbackRun = { id: `${runId}:run:main`, agentId: defaultAgent };
      agentRuns.unshift(fallbackRun);
    }
    return fallbackRun;
  };
  return { agents, agentRuns, runOfObs, nearestRun, runFor };
}

/** Model calls and tool runs as steps; the other observations are structure, kept in the run's raw fields. */
interface TraceSteps {
  steps: Step[];
  stepOfObs: Map<Obs, Step>;
  /** The step of the observation or its nearest ancestor, filled in pre-order like the agent runs. */
  stepAbove: Map<Obs, Step>;
  structure: JsonObject[];
}

function stepsOf(tree: ObservationTree, runs: AgentRuns, runId: string): TraceSteps {
  // A tool run outside every agent (LangGraph's ToolNode) belongs to the agent whose latest earlier model call asked for it.
  const lastCaller = new Map<string, AgentRun>();
  const calledTools = new Set(tree.all.filter((o) => o.type === 'GENERATION').flatMap((o) => toolCallsIn(o.raw.output).map((c) => c.name)));
  const steps: Step[] = [];
  const stepOfObs = new Map<Obs, Step>();
  const stepAbove = new Map<Obs, Step>();
  const structure: JsonObject[] = [];
  for (const o of tree.ordered) {
    const isLlm = o.type === 'GENERATION';
    const isTool = !isLlm && !runs.runOfObs.has(o) && isToolObservation(o, calledTools);
    if (!isLlm && !isTool) {
      const above = o.parent ? stepAbove.get(o.parent) : undefined;
      if (above) stepAbove.set(o, above);
      if (!runs.runOfObs.has(o)) structure.push(structureEntry(o));
      continue;
    }
    const agentRun = (isTool && !runs.nearestRun(o) ? lastCaller.get(toolNameOf(o)) : undefined) ?? runs.runFor(o);
    const parentStep = o.parent ? stepAbove.get(o.parent) : undefined;
    const step = stepOfObservation(o, isLlm, `${runId}:${o.id}`, steps.length, agentRun, parentStep);
    stepOfObs.set(o, step);
    stepAbove.set(o, step);
    steps.push(step);
    for (const c of step.toolCalls ?? []) lastCaller.set(c.name, agentRun);
  }
  return { steps, stepOfObs, stepAbove, structure };
}

function structureEntry(o: Obs): JsonObject {
  const entry: JsonObject = { id: o.id, type: o.type, name: o.name };
  if (o.parentId !== undefined) entry.parentObservationId = o.parentId;
  for (const k of ['level', 'statusMessage', 'startTime', 'endTime']) if (o.raw[k] !== undefined && o.raw[k] !== null) entry[k] = o.raw[k];
  return entry;
}

/** A model call (GENERATION) or a tool run as a step. */
function stepOfObservation(o: Obs, isLlm: boolean, id: string, index: number, agentRun: AgentRun, parentStep: Step | undefined): Step {
  const step: Step = {
    id,
    index,
    kind: isLlm ? 'llm' : 'tool',
    agentId: agentRun.agentId,
    agentRunId: agentRun.id,
    name: isLlm ? o.name : toolNameOf(o),
    spanId: o.id,
  };
  if (parentStep) step.parentStepId = parentStep.id;
  if (o.parentId !== undefined) step.parentSpanId = o.parentId;
  if (o.start !== undefined) step.startTime = o.start;
  if (o.end !== undefined) step.endTime = o.end;
  const input = o.raw.input;
  const output = o.raw.output;
  if (isLlm) {
    const messages = chatMessages(input);
    if (messages) step.input = messages;
    else if (input !== undefined && input !== null) step.inputText = asText(input);
    const calls = toolCallsIn(output);
    const text = answerText(output);
    if (text !== undefined) step.output = text;
    else if (calls.length) step.output = '';
    else if (output !== undefined && output !== null) step.output = asText(output);
    if (calls.length) step.toolCalls = calls;
    const model = optString(o.raw.model, `${o.path}.model`);
    if (model) step.model = model;
    const usage = recordedUsage(o.raw, o.path);
    if (usage && !o.usageBelow) step.usage = usage;
  } else {
    if (input !== undefined && input !== null) step.inputText = asText(input);
    if (output !== undefined && output !== null) step.observation = asText(output);
  }
  if (o.raw.level === 'ERROR') step.error = { message: optString(o.raw.statusMessage, `${o.path}.statusMessage`) ?? 'error', type: 'ERROR' };
  const raw = unmappedFields(o.raw, OBS_MAPPED);
  if (raw) step.raw = raw;
  if (isLlm && !step.usage && recordedUsage(o.raw, o.path)) step.raw = { ...step.raw, usageDetails: o.raw.usageDetails, aggregateUsage: true };
  return step;
}

/** Errors recorded on structure observations land on the nearest step above, else the first step below. */
function attachStructureErrors(ordered: Obs[], traceSteps: TraceSteps, warnings: string[]): void {
  const { stepOfObs, stepAbove } = traceSteps;
  for (const o of ordered) {
    if (o.raw.level !== 'ERROR' || stepOfObs.has(o)) continue;
    let target = o.parent ? stepAbove.get(o.parent) : undefined;
    if (!target) {
      const below = ordered.slice(ordered.indexOf(o) + 1).find((d) => stepOfObs.has(d) && isDescendant(d, o));
      if (below) target = stepOfObs.get(below);
    }
    const message = optString(o.raw.statusMessage, `${o.path}.statusMessage`) ?? `${o.type} ${o.name} failed`;
    if (target && !target.error) target.error = { message, type: `${o.type} ${o.name}`.trim() };
    else if (!target) warnings.push(`${o.path}: error on ${o.type} ${o.name} with no step to show it on: ${message}`);
  }
}

function importTrace(td: TraceDoc, runId: string, warnings: string[]): Run {
  const tree = observationTree(td, warnings);
  const traceName = optString(td.trace.name, `${td.path}.name`);
  const runs = agentRunsOf(tree.ordered, runId, traceName || 'agent');
  const traceSteps = stepsOf(tree, runs, runId);
  attachStructureErrors(tree.ordered, traceSteps, warnings);
  const { agents, agentRuns } = runs;
  const { steps, structure } = traceSteps;

  const handoffs = deriveHandoffs(runId, agentRuns, runs.runOfObs, steps);
  const annotations = td.scores.map((s) => scoreAnnotation(s.value, s.path, runId, tree.byId, traceSteps.stepOfObs));

  const roots = tree.roots;
  const task = userText(td.trace.input) ?? (roots[0] ? userText(roots[0].raw.input) : undefined);
  const mainRun = agentRuns.find((r) => r.spanId === undefined);
  if (mainRun && task !== undefined) mainRun.task = task;
  const finalAnswer = answerText(td.trace.output) ?? (roots[0] ? answerText(roots[0].raw.output) : undefined);
  const models = [...new Set(steps.map((s) => s.model).filter((m): m is string => m !== undefined))];
  const run: Run = {
    id: runId,
    title: titleFromTask(task, traceName || 'Langfuse trace'),
    sourceFormat: 'langfuse',
    models,
    outcome: finalAnswer ? { status: 'unknown', finalAnswer } : { status: 'unknown' },
    tags: {},
    agents: [...agents.values()],
    agentRuns,
    steps,
    handoffs,
    annotations,
    interventions: [],
    orphanSpans: tree.orphans,
  };
  if (task !== undefined) run.task = task;
  setRunTimes(run, tree.all, parseTime(td.trace.timestamp));
  const raw: JsonObject = { ...unmappedFields(td.trace, TRACE_MAPPED) };
  if (traceName) raw.traceName = traceName;
  if (structure.length) raw.structure = structure;
  if (Object.keys(raw).length) run.raw = raw;
  return run;
}

/** Start: the earliest observation time or the trace's timestamp; end: the latest observation time. */
function setRunTimes(run: Run, all: Obs[], traceTime: number | undefined): void {
  // A loop, not Math.min(...times): a trace can hold more observations than a call may take arguments.
  let start = traceTime ?? Infinity;
  let end = -Infinity;
  let any = false;
  for (const o of all) {
    for (const t of [o.start, o.end]) {
      if (t === undefined) continue;
      any = true;
      if (t < start) start = t;
      if (t > end) end = t;
    }
  }
  if (any || traceTime !== undefined) {
    run.startTime = start;
    if (any) run.endTime = end;
  }
}

function isDescendant(d: Obs, ancestor: Obs): boolean {
  for (let p = d.parent; p; p = p.parent) if (p === ancestor) return true;
  return false;
}

function deriveHandoffs(runId: string, agentRuns: AgentRun[], runOfObs: Map<Obs, AgentRun>, steps: Step[]): Handoff[] {
  const handoffs: Handoff[] = [];
  const firstStep = new Map<string, string>();
  const lastStep = new Map<string, string>();
  for (const s of steps) {
    if (s.agentRunId === undefined) continue;
    if (!firstStep.has(s.agentRunId)) firstStep.set(s.agentRunId, s.id);
    lastStep.set(s.agentRunId, s.id);
  }
  const byId = new Map(agentRuns.map((r) => [r.id, r]));
  const push = (from: string, to: string, kind: Handoff['kind'], content: string, stepId: string | undefined) => {
    const h: Handoff = { id: `${runId}:h${handoffs.length}`, from, to: [to], kind, content };
    if (stepId !== undefined) h.stepId = stepId;
    handoffs.push(h);
  };

  const spanRuns = [...runOfObs.values()];
  for (const r of spanRuns) {
    const parent = r.parentRunId ? byId.get(r.parentRunId) : undefined;
    if (!parent || parent.agentId === r.agentId) continue;
    push(parent.agentId, r.agentId, 'delegation', r.task ?? '', firstStep.get(r.id));
    if (r.output !== undefined) push(r.agentId, parent.agentId, 'report', r.output, lastStep.get(r.id));
  }
  const groups = new Map<string, AgentRun[]>();
  for (const r of spanRuns) {
    const key = r.parentRunId ?? '';
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const siblings of groups.values()) {
    for (let i = 1; i < siblings.length; i++) {
      const prev = siblings[i - 1];
      const next = siblings[i];
      if (prev.agentId === next.agentId) continue;
      push(prev.agentId, next.agentId, 'message', prev.output ?? '', lastStep.get(prev.id));
    }
  }
  return handoffs;
}

function scoreAnnotation(value: unknown, path: string, runId: string, byId: Map<string, Obs>, stepOfObs: Map<Obs, Step>): Annotation {
  const s = expectObject(value, path);
  const id = optString(s.id, `${path}.id`) ?? hashJson(s);
  const annotation: Annotation = {
    id: `${runId}:score:${id}`,
    source: s.source === 'ANNOTATION' ? 'human' : 'dataset',
    taxonomy: 'Langfuse',
    code: optString(s.name, `${path}.name`) ?? 'score',
  };
  const numeric = optNumber(typeof s.value === 'string' ? undefined : s.value, `${path}.value`);
  const text = optString(s.stringValue, `${path}.stringValue`) ?? (typeof s.value === 'string' ? s.value : undefined);
  if (numeric !== undefined) annotation.value = numeric;
  const shown = text ?? (numeric !== undefined ? String(numeric) : undefined);
  if (shown !== undefined) annotation.evidence = `${annotation.code} = ${shown}`;
  const comment = optString(s.comment, `${path}.comment`);
  if (comment !== undefined) annotation.description = comment;
  const obsId = optString(s.observationId, `${path}.observationId`);
  const obs = obsId !== undefined ? byId.get(obsId) : undefined;
  const step = obs ? stepOfObs.get(obs) : undefined;
  if (step) annotation.stepId = step.id;
  const created = parseTime(s.timestamp);
  if (created !== undefined) annotation.createdAt = created;
  const source = optString(s.source, `${path}.source`);
  if (source !== undefined) annotation.scoreSource = source;
  return annotation;
}

export const langfuseImporter: FormatImporter = {
  id: 'langfuse',
  label: 'Langfuse trace export',
  fileName: /langfuse/i,
  sniff: (doc) => traceDocuments(doc) !== undefined,
  importDoc(doc): ImportResult {
    const docs = traceDocuments(doc);
    if (!docs) throw new FormatProblem('$', 'expected a Langfuse trace export: {trace, observations[…]} or a trace with observations');
    const warnings: string[] = [];
    const traces = docs.map((d) => readTraceDoc(d.value, d.path));
    const ids = uniqueIds(
      traces.map((t) => {
        const traceId = optString(t.trace.id, `${t.path}.id`);
        const obsTrace = t.observations.map((o) => (isObject(o.value) && typeof o.value.traceId === 'string' ? o.value.traceId : undefined)).find((x) => x);
        return traceId ?? obsTrace ?? `langfuse-${hashJson(t.trace)}`;
      }),
    );
    const runs = traces.map((t, i) => importTrace(t, ids[i], warnings));
    return { runs, annotationSets: [], warnings };
  },
};
