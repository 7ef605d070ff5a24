// Span forest → Run: the run assembler (agents, agent runs, steps, handoffs) and the generic reading of model, tool and
// agent spans (LangChain, LlamaIndex, OpenAI Agents, any OTel GenAI emitter). smolagents' reading is in smolagents.ts.
import type { Agent, AgentRun, Handoff, NamingRule, Run, RunSpan, SourceFormat, SpanReport, Step, TokenUsage } from '../../model/types.ts';
import type { MapProgress } from '../../model/run-builder.ts';
import { estimateUsage } from '../tokens.ts';
import { parseJsonLoose, stringField, type Attributes, type ModelCallIo } from './attributes.ts';
import { spanError, stepIdOfSpan, type SpanForest, type SpanNode, type SpanRecord } from './forest.ts';
import { agentNaming, toolNaming, type Naming } from './naming.ts';

/** The first non-blank line, trimmed. */
export function firstLine(text: string): string {
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t) return t;
  }
  return '';
}

const TASK_PREAMBLES = ['Here is the task:', 'New task:', 'Task:'];

/** A title a person recognises: the question itself when a framework wrapped it in boilerplate, shortened. */
export function titleFromTask(task: string | undefined, fallback: string): string {
  if (!task) return fallback;
  let text = task;
  for (const marker of TASK_PREAMBLES) {
    const at = text.lastIndexOf(marker);
    if (at !== -1) {
      text = text.slice(at + marker.length);
      break;
    }
  }
  const line = firstLine(text) || firstLine(task);
  if (!line) return fallback;
  return line.length > 100 ? `${line.slice(0, 99).trimEnd()}…` : line;
}

// ---------------------------------------------------------------------------------------------------------------
// Assembling a run.

const SYSTEM_AGENT_ID = 'system';

/** A flag attribute of our own export: true, or "true" as some exporters write it. */
function flagged(attrs: Attributes, key: string): boolean {
  const v = attrs[key];
  return v === true || v === 'true';
}

/** A step's content before the assembler gives it an id, a position and an agent. */
export type StepFields = Partial<Step> & { kind: Step['kind'] };

/**
 * A step as the assembler starts it: `{ kind, spanId, name, raw }` and the span's `parentSpanId`, `startTime`, `endTime`
 * when it has them, an object like that literal (same keys in the same order, Object.prototype as its prototype) made
 * by a constructor, so that V8 gives it room for the fields added after it (in-object slack: the constructor's 7
 * fields + 8). A literal has room for its own fields only: the 8–11 every step gets next (ids, agent, messages, …)
 * went to a property store grown 3 at a time, two to four allocations per step (100,000 steps in the import
 * benchmark), each copied by the scavenger while the run is built.
 */
interface StepRecordConstructor {
  new (kind: Step['kind'], span: SpanRecord): StepFields;
  prototype: object;
}
const StepRecord = function (this: StepFields, kind: Step['kind'], s: SpanRecord) {
  this.kind = kind;
  this.spanId = s.id;
  this.name = s.name;
  this.raw = s.attributes;
  if (s.parentId !== undefined) this.parentSpanId = s.parentId;
  if (s.start !== undefined) this.startTime = s.start;
  if (s.end !== undefined) this.endTime = s.end;
} as unknown as StepRecordConstructor;
// Its objects are plain objects: no prototype of their own, `constructor` is Object (structured clone, JSON, equality).
StepRecord.prototype = Object.prototype;

/** Steps whose agent is decided after the walk (model calls outside every agent run). */
interface UnownedStep {
  step: Step;
  /** The service the span came from: the agent's name when no agent span is found. */
  service?: string;
}

export class RunAssembler {
  readonly agents = new Map<string, Agent>();
  readonly agentRuns: AgentRun[] = [];
  readonly topLevelRuns: AgentRun[] = [];
  readonly steps: Step[] = [];
  readonly handoffs: Handoff[] = [];
  readonly models = new Set<string>();
  private readonly unowned: UnownedStep[] = [];
  /** Steps by id (made from spans). */
  /** Steps by id, for mergeInto (our own export's merged spans: rare), indexed up to `indexed` when it asks. */
  private stepIndex: Map<string, Step> | undefined;
  private indexed = 0;
  /** Which rule named each agent and tool, first rule per name (for the import report). */
  private readonly agentRules = new Map<string, string>();
  private readonly toolRules = new Map<string, string>();
  /** Model-call steps and their spans (two lists, one place each: no pair object per call), for the wrapper check in finish(). */
  private readonly modelStepList: Step[] = [];
  private readonly modelNodes: SpanNode[] = [];

  agentNamed(name: string, rule = 'importer'): Agent {
    const id = `agent-${name}`;
    let agent = this.agents.get(id);
    if (!agent) {
      agent = { id, name, kind: 'agent' };
      this.agents.set(id, agent);
    }
    if (!this.agentRules.has(name)) this.agentRules.set(name, rule);
    return agent;
  }

  addAgentRun(run: AgentRun, parent: AgentRun | undefined): void {
    this.agentRuns.push(run);
    if (!parent) this.topLevelRuns.push(run);
  }

  /** Delegation (the local task) and report (the answer) between a manager's run and a managed agent's run. */
  addDelegation(manager: AgentRun, managed: AgentRun, stepId: string | undefined): void {
    const base = managed.spanId ?? managed.id;
    const delegation: Handoff = { id: `handoff-${base}-delegation`, from: manager.agentId, to: [managed.agentId], kind: 'delegation', content: managed.task ?? '' };
    if (stepId) delegation.stepId = stepId;
    this.handoffs.push(delegation);
    if (managed.output !== undefined) {
      const report: Handoff = { id: `handoff-${base}-report`, from: managed.agentId, to: [manager.agentId], kind: 'report', content: managed.output };
      if (stepId) report.stepId = stepId;
      this.handoffs.push(report);
    }
  }

  /** Adds a step made from a span; `owner` undefined means "decide later" (outside every agent run). */
  addSpanStep(node: SpanNode, fields: StepFields, owner: AgentRun | undefined): Step {
    // A forest holds each span id once (buildForest keeps the first copy) and the walks visit each span once, so
    // `span-<id>` is new unless this same span already made a step: no set of the ids used is needed to know it.
    let id = stepIdOfSpan(node.span.id);
    if (node.span.stepId !== undefined) id = `${id}-${this.steps.length}`;
    // The fields object becomes the step (no copy: this runs once per span).
    const step = fields as Step;
    step.id = id;
    step.index = 0;
    step.agentId = owner?.agentId ?? SYSTEM_AGENT_ID;
    if (owner) step.agentRunId = owner.id;
    else this.unowned.push({ step, service: node.span.service });
    this.steps.push(step);
    const span = node.span;
    span.kind = step.kind === 'llm' || step.kind === 'planning' ? 'model' : step.kind === 'tool' ? 'tool' : 'step';
    span.stepId = id;
    return step;
  }

  private stepById(id: string): Step | undefined {
    const index = (this.stepIndex ??= new Map());
    for (; this.indexed < this.steps.length; this.indexed++) {
      const step = this.steps[this.indexed];
      if (!index.has(step.id)) index.set(step.id, step);
    }
    return index.get(id);
  }

  /** A span recording the same model call as the step `stepId` (see mergeWrappedModelCalls). */
  mergeInto(node: SpanNode, stepId: string): void {
    const step = this.stepById(stepId);
    if (!step) return;
    (step.mergedSpanIds ??= []).push(node.span.id);
    node.span.kind = 'model';
    node.span.stepId = stepId;
    this.premerged++;
  }
  private premerged = 0;

  /** A new step's fields: its kind and the common span fields, in this key order. */
  newFields(kind: Step['kind'], node: SpanNode): StepFields {
    return new StepRecord(kind, node.span);
  }

  /** What a model call read and wrote; read once per span even when two steps need it. */
  modelCall(node: SpanNode): ModelCallIo {
    return (node.io ??= node.standard.modelCall(node.span.attributes));
  }

  /** Common span fields of a step. */
  spanFields(node: SpanNode): Pick<Step, 'spanId' | 'parentSpanId' | 'startTime' | 'endTime' | 'raw' | 'name'> {
    const s = node.span;
    const fields: Pick<Step, 'spanId' | 'parentSpanId' | 'startTime' | 'endTime' | 'raw' | 'name'> = { spanId: s.id, name: s.name, raw: s.attributes };
    if (s.parentId !== undefined) fields.parentSpanId = s.parentId;
    if (s.start !== undefined) fields.startTime = s.start;
    if (s.end !== undefined) fields.endTime = s.end;
    return fields;
  }

  /** A model call. Usage is recorded only here (never on aggregates); estimated with a tokenizer when missing. */
  addModelCall(node: SpanNode, kind: 'llm' | 'planning', owner: AgentRun | undefined, parentStepId: string | undefined): Step {
    const attrs = node.span.attributes;
    const std = node.standard;
    const { input, text: output, toolCalls: calls } = this.modelCall(node);
    const fields = this.newFields(kind, node);
    if (parentStepId) fields.parentStepId = parentStepId;
    if (input) fields.input = input;
    else {
      const inputText = std.inputText(attrs);
      if (inputText !== undefined) fields.inputText = inputText;
    }
    if (output !== undefined) fields.output = output;
    if (calls) fields.toolCalls = calls;
    const model = std.model(attrs);
    if (model !== undefined) {
      fields.model = model;
      this.models.add(model);
    }
    const recorded = std.usage(attrs);
    // Our own OTLP export flags counts a tokenizer made: they stay estimates (see src/export/otlp.ts).
    const usage = recorded ? (flagged(attrs, 'mas_replay.usage.estimated') ? { ...recorded, estimated: true } : recorded) : flagged(attrs, 'mas_replay.usage.none') ? undefined : this.estimate(fields);
    if (usage) fields.usage = usage;
    const error = spanError(node.span);
    if (error) fields.error = error;
    const step = this.addSpanStep(node, fields, owner);
    this.modelStepList.push(step);
    this.modelNodes.push(node);
    return step;
  }

  private estimate(fields: Pick<Step, 'input' | 'inputText' | 'output'>): TokenUsage | undefined {
    const inputText = fields.input ? fields.input.map((m) => m.content).join('\n') : (fields.inputText ?? '');
    const outputText = fields.output ?? '';
    if (inputText === '' && outputText === '') return undefined;
    return estimateUsage(inputText, outputText);
  }

  addToolCall(node: SpanNode, owner: AgentRun | undefined, parentStepId: string | undefined): Step {
    const attrs = node.span.attributes;
    const std = node.standard;
    const naming = toolNaming(node);
    const name = naming.name;
    if (!this.toolRules.has(name)) this.toolRules.set(name, naming.rule);
    const args = std.inputText(attrs) ?? '';
    // Same keys and order as `{ kind, ...spanFields, name, toolCalls }`: `name` keeps its place, with the tool's name.
    const fields = this.newFields('tool', node);
    fields.name = name;
    fields.toolCalls = [{ name, arguments: args }];
    if (args !== '') fields.inputText = args;
    if (parentStepId) fields.parentStepId = parentStepId;
    const output = std.outputText(attrs);
    if (output !== undefined) fields.observation = output;
    const error = spanError(node.span);
    if (error) fields.error = error;
    return this.addSpanStep(node, fields, owner);
  }

  /**
   * Model and tool calls outside every agent run belong to the nearest agent: the last top-level agent run that
   * started before them, else the first one; with no agent runs at all, to a `system` agent.
   */
  private settleUnowned(): void {
    if (this.unowned.length === 0) return;
    const runs = [...this.topLevelRuns].sort((a, b) => (a.startTime ?? 0) - (b.startTime ?? 0));
    for (const { step, service } of this.unowned) {
      let owner: AgentRun | undefined = runs[0];
      for (const run of runs) if (run.startTime !== undefined && step.startTime !== undefined && run.startTime <= step.startTime) owner = run;
      if (owner) step.agentId = owner.agentId;
      else if (service) step.agentId = this.agentNamed(service, 'service.name').id;
      else if (!this.agents.has(SYSTEM_AGENT_ID)) this.agents.set(SYSTEM_AGENT_ID, { id: SYSTEM_AGENT_ID, name: 'system', kind: 'system' });
    }
  }

  /**
   * A framework's model-call span around the provider's span of the same call (LangChain `ChatOpenAI` and OpenAI's
   * `ChatCompletion`, often not even parent and child) is one call: the inner span is merged into the wrapper's step,
   * so its tokens count once. A wrapper is a model-call span whose time holds exactly one other model-call span and
   * whose reading agrees with it (same recorded usage; else compatible model names and outputs), recorded by another
   * instrumentation scope.
   */
  private mergeWrappedModelCalls(): number {
    if (!twoScopes(this.modelNodes)) return 0;
    const calls: Array<{ step: Step; node: SpanNode }> = [];
    for (let i = 0; i < this.modelStepList.length; i++) {
      const step = this.modelStepList[i];
      if (step.startTime !== undefined && step.endTime !== undefined) calls.push({ step, node: this.modelNodes[i] });
    }
    if (calls.length < 2) return 0;
    calls.sort((a, b) => a.step.startTime! - b.step.startTime! || b.step.endTime! - a.step.endTime! || a.node.span.order - b.node.span.order);
    const inner = new Map<Step, Step[]>();
    const open: Step[] = [];
    for (const { step } of calls) {
      while (open.length && open[open.length - 1].endTime! < step.endTime!) open.pop();
      const holder = open[open.length - 1];
      if (holder && holder.startTime! <= step.startTime!) {
        let list = inner.get(holder);
        if (!list) inner.set(holder, (list = []));
        list.push(step);
      }
      open.push(step);
    }
    const scopeOf = new Map<Step, string | undefined>();
    for (const { step, node } of calls) scopeOf.set(step, node.span.scope);
    const removed = new Set<Step>();
    for (const [wrapper, held] of inner) {
      if (held.length !== 1 || removed.has(wrapper)) continue;
      const call = held[0];
      // Two layers of instrumentation (a framework's and a provider's): two calls recorded by one are two calls.
      const ws = scopeOf.get(wrapper);
      const cs = scopeOf.get(call);
      if (ws === undefined || cs === undefined || ws === cs) continue;
      if (inner.has(call) || !sameCall(wrapper, call)) continue;
      // Recorded counts beat a tokenizer's estimate; the provider's model name is the more exact one.
      if (call.usage && !call.usage.estimated && (!wrapper.usage || wrapper.usage.estimated)) wrapper.usage = call.usage;
      if (call.model !== undefined && (wrapper.model === undefined || call.model.startsWith(wrapper.model))) wrapper.model = call.model;
      (wrapper.mergedSpanIds ??= []).push(call.spanId!);
      removed.add(call);
    }
    if (removed.size === 0) return 0;
    const into = new Map<string, string>();
    for (const [wrapper, held] of inner) if (removed.has(held[0]) && held.length === 1) into.set(held[0].id, wrapper.id);
    for (let i = 0, j = 0; i < this.steps.length; i++) {
      const step = this.steps[i];
      if (step.parentStepId !== undefined && into.has(step.parentStepId)) step.parentStepId = into.get(step.parentStepId);
      if (!removed.has(step)) this.steps[j++] = step;
      if (i === this.steps.length - 1) this.steps.length = j;
    }
    for (let i = 0; i < this.modelStepList.length; i++) {
      const step = this.modelStepList[i];
      if (removed.has(step)) this.modelNodes[i].span.stepId = into.get(step.id);
    }
    for (const h of this.handoffs) if (h.stepId !== undefined && into.has(h.stepId)) h.stepId = into.get(h.stepId);
    return removed.size;
  }

  /**
   * Every span of the forest, in tree order, as the run keeps it (the records themselves: no copies), and the import
   * report. A span that is no step and no agent run is kept as a plain span of the step above it (or of the run).
   */
  private spansAndReport(forest: SpanForest, merged: number, progress?: MapProgress): { spans: RunSpan[]; report: SpanReport } {
    const agentSpans = new Set<string>();
    for (const r of this.agentRuns) if (r.spanId !== undefined) agentSpans.add(r.spanId);
    const spans: RunSpan[] = [];
    const counts = { agent: 0, model: 0, tool: 0, step: 0, span: 0 };
    const stack: SpanNode[] = [];
    for (let i = forest.roots.length - 1; i >= 0; i--) stack.push(forest.roots[i]);
    while (stack.length) {
      const node = stack.pop()!;
      progress?.tick();
      const span = node.span;
      const parent = node.parent?.span;
      span.depth = parent ? parent.depth! + 1 : 0;
      if (span.kind === undefined) {
        if (agentSpans.has(span.id)) span.kind = 'agent';
        else {
          span.kind = 'span';
          if (parent?.stepId !== undefined) span.stepId = parent.stepId;
        }
      }
      counts[span.kind]++;
      spans.push(span as unknown as RunSpan);
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
    const rules = (m: Map<string, string>): NamingRule[] => [...m].map(([name, rule]) => ({ name, rule }));
    const dropped: SpanReport['dropped'] = forest.duplicates ? [{ reason: 'repeated span id (the first copy is kept)', count: forest.duplicates }] : [];
    let droppedByReader = 0;
    for (const [reason, count] of forest.dropped) {
      dropped.push({ reason, count });
      droppedByReader += count;
    }
    const report: SpanReport = {
      read: forest.size + forest.duplicates + droppedByReader,
      agents: counts.agent,
      modelCalls: counts.model,
      toolCalls: counts.tool,
      otherSteps: counts.step,
      plain: counts.span,
      dropped,
      orphans: forest.orphans,
      mergedModelCalls: merged,
      handoffs: this.handoffs.length,
      agentRules: rules(this.agentRules),
      toolRules: rules(this.toolRules),
    };
    return { spans, report };
  }

  /** `progress` ticks once per span as the run's span list is made (the OTLP importer's fourth pass). */
  finish(base: { id: string; title: string; task?: string; sourceFormat: SourceFormat; framework?: string; forest: SpanForest; finalAnswer?: string; raw?: Record<string, unknown> }, progress?: MapProgress): Run {
    const merged = this.mergeWrappedModelCalls() + this.premerged;
    this.settleUnowned();
    const { spans, report } = this.spansAndReport(base.forest, merged, progress);
    this.steps.forEach((s, i) => {
      s.index = i;
      if (s.model !== undefined) {
        const agent = this.agents.get(s.agentId);
        if (agent && agent.model === undefined) agent.model = s.model;
      }
    });
    let start: number | undefined;
    let end: number | undefined;
    for (const node of base.forest.nodes) {
      const s = node.span;
      if (s.start !== undefined && (start === undefined || s.start < start)) start = s.start;
      const e = s.end ?? s.start;
      if (e !== undefined && (end === undefined || e > end)) end = e;
    }
    const run: Run = {
      id: base.id,
      title: base.title,
      sourceFormat: base.sourceFormat,
      models: [...this.models].sort(),
      outcome: base.finalAnswer !== undefined ? { status: 'unknown', finalAnswer: base.finalAnswer } : { status: 'unknown' },
      tags: {},
      agents: [...this.agents.values()],
      agentRuns: this.agentRuns,
      steps: this.steps,
      handoffs: this.handoffs,
      annotations: [],
      interventions: [],
      orphanSpans: base.forest.orphans,
      spans,
      spanReport: report,
    };
    if (base.task !== undefined) run.task = base.task;
    if (base.framework !== undefined) run.framework = base.framework;
    if (start !== undefined) run.startTime = start;
    if (end !== undefined) run.endTime = end;
    if (base.raw && Object.keys(base.raw).length) run.raw = base.raw;
    return run;
  }
}

/**
 * Whether two model calls were recorded by different instrumentation scopes: a wrapper and the call it holds always
 * are, so with one scope (or none) among the calls there is nothing to merge, and the sort and maps are not needed.
 */
function twoScopes(nodes: readonly SpanNode[]): boolean {
  let first: string | undefined;
  for (const node of nodes) {
    const scope = node.span.scope;
    if (scope === undefined) continue;
    if (first === undefined) first = scope;
    else if (scope !== first) return true;
  }
  return false;
}

/** Two model-call steps that read as one call (see mergeWrappedModelCalls). */
function sameCall(a: Step, b: Step): boolean {
  if (a.usage && b.usage && !a.usage.estimated && !b.usage.estimated) return a.usage.input === b.usage.input && a.usage.output === b.usage.output;
  if (a.model !== undefined && b.model !== undefined && !a.model.startsWith(b.model) && !b.model.startsWith(a.model)) return false;
  // Tool-call answers are written differently by each layer (LangChain generations, OpenAI choices): the names of
  // the calls are compared; text answers are compared as text.
  const an = a.toolCalls?.map((c) => c.name).join('\u0000');
  const bn = b.toolCalls?.map((c) => c.name).join('\u0000');
  if (an && bn) return an === bn;
  const ao = a.output?.trim();
  const bo = b.output?.trim();
  return !ao || !bo || ao === bo;
}

/** The framework named by the instrumentation scope (`openinference.instrumentation.langchain` → langchain). */
export function frameworkOf(forest: SpanForest): string | undefined {
  // Distinct scopes first (one string per scope block, shared by its spans): one slice per scope, not per span.
  const scopes = new Set<string>();
  let lastScope: string | undefined;
  for (const node of forest.nodes) {
    const scope = node.span.scope;
    if (scope === lastScope) continue;
    lastScope = scope;
    if (scope) scopes.add(scope);
  }
  const found = new Set<string>();
  for (const scope of scopes) if (scope.startsWith('openinference.instrumentation.')) found.add(scope.slice('openinference.instrumentation.'.length));
  return found.size ? [...found].sort().join('+') : undefined;
}

/** The task text of an agent span's input: plain text, or the `task` / `input` / `question` / `query` field of a
 *  JSON object; undefined for JSON that has none of them (framework state rather than a task). */
export function taskFromInput(input: string | undefined): string | undefined {
  if (input === undefined) return undefined;
  const parsed = parseJsonLoose(input);
  if (parsed === undefined) return input;
  for (const key of ['task', 'input', 'question', 'query']) {
    const v = stringField(parsed, key);
    if (v !== undefined) return v;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Generic spans (LangChain, LlamaIndex, OpenAI Agents, any OTel GenAI emitter): model, tool and agent calls.

interface GenericContext {
  run?: AgentRun;
  parentStepId?: string;
}

/** An AGENT span nested in another agent run is a new agent only when it is named; LangChain marks its runnables
 *  AGENT too, and each of those is not an agent of its own. */
function startsAgentRun(node: SpanNode, ctx: GenericContext, asm: RunAssembler): Naming | undefined {
  if (node.category !== 'agent') return undefined;
  const naming = agentNaming(node);
  if (!ctx.run) return naming;
  // Nested: a new agent only when named, and not the same agent again (`agent.step` spans that repeat `agent.name`).
  if (!naming.explicit) return undefined;
  return asm.agents.get(`agent-${naming.name}`)?.id === ctx.run.agentId ? undefined : naming;
}

/** `progress` ticks once per span visited, then once per span listed (the OTLP importer's mapping bar). */
export function genericSpansToRun(forest: SpanForest, sourceFormat: SourceFormat, progress?: MapProgress): Run {
  const asm = new RunAssembler();
  // Two parallel stacks: no object per visited span.
  const nodes: SpanNode[] = [];
  const contexts: GenericContext[] = [];
  const top: GenericContext = {};
  for (let i = forest.roots.length - 1; i >= 0; i--) {
    nodes.push(forest.roots[i]);
    contexts.push(top);
  }
  let firstTask: string | undefined;
  while (nodes.length) {
    const node = nodes.pop()!;
    const ctx = contexts.pop()!;
    progress?.tick();
    const attrs = node.span.attributes;
    let childCtx = ctx;
    const naming = startsAgentRun(node, ctx, asm);
    if (naming) {
      const agent = asm.agentNamed(naming.name, naming.rule);
      if (ctx.run && ctx.run.agentId !== agent.id) agent.parentId ??= ctx.run.agentId;
      const model = node.standard.model(attrs);
      if (model !== undefined) agent.model ??= model;
      const run: AgentRun = { id: `run-${node.span.id}`, agentId: agent.id, spanId: node.span.id };
      if (ctx.run) run.parentRunId = ctx.run.id;
      const input = node.standard.inputText(attrs);
      const task = taskFromInput(input);
      if (task !== undefined || input !== undefined) run.task = task ?? input;
      const output = node.standard.outputText(attrs);
      if (output !== undefined) run.output = output;
      if (node.span.start !== undefined) run.startTime = node.span.start;
      if (node.span.end !== undefined) run.endTime = node.span.end;
      asm.addAgentRun(run, ctx.run);
      if (ctx.run) asm.addDelegation(ctx.run, run, ctx.parentStepId);
      if (!ctx.run && firstTask === undefined) firstTask = task;
      childCtx = { run };
    } else if (ctx.parentStepId !== undefined && attrs['mas_replay.span.merged'] === true) {
      // Our own export of a provider span merged into its wrapper's model call (written under the wrapper's span).
      asm.mergeInto(node, ctx.parentStepId);
    } else if (node.category === 'llm' || node.category === 'embedding') {
      const step = asm.addModelCall(node, 'llm', ctx.run, ctx.parentStepId);
      // A context for the children, when there are any (most calls have none: no object per step).
      if (node.children.length > 0) childCtx = { run: ctx.run, parentStepId: step.id };
    } else if (node.category === 'tool' || node.category === 'retriever') {
      const step = asm.addToolCall(node, ctx.run, ctx.parentStepId);
      if (node.children.length > 0) childCtx = { run: ctx.run, parentStepId: step.id };
    }
    for (let i = node.children.length - 1; i >= 0; i--) {
      nodes.push(node.children[i]);
      contexts.push(childCtx);
    }
  }
  const task = firstTask ?? firstUserMessage(asm.steps);
  const root = forest.roots[0];
  const topRun = asm.topLevelRuns[0];
  return asm.finish({
    id: forest.traceId,
    title: titleFromTask(task, root ? root.span.name : forest.traceId),
    task,
    sourceFormat,
    framework: frameworkOf(forest),
    forest,
    finalAnswer: topRun?.output,
  }, progress);
}

export function firstUserMessage(steps: Step[]): string | undefined {
  for (const step of steps) {
    const user = step.input?.find((m) => m.role === 'user');
    if (user && user.content) return user.content;
  }
  return undefined;
}
