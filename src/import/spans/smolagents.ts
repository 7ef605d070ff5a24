// smolagents semantics over a span tree (SPEC §3, §5.1), from its OpenInference instrumentation:
// `CodeAgent.run` / `ToolCallingAgent.run` spans are agent runs, `Step N` spans are action steps, model calls inside
// a run but outside its steps are planning steps, and a `*.run` span under a manager's step is a managed agent.
//
// The supervisor engine reads these fields of an action step: `number` (N of `Step N`), `observation` (the Step
// span's `output.value`), `toolCalls` (its direct TOOL / AGENT child spans in order: name from `tool.name` else the
// span name, arguments = the child's `input.value`), `output` (the model output of its LLM child) and `error`.
import type { AgentRun, Run, SourceFormat, Step, ToolCall } from '../../model/types.ts';
import type { MapProgress } from '../../model/run-builder.ts';
import { firstUserMessage, frameworkOf, RunAssembler, taskFromInput, titleFromTask } from './assemble.ts';
import { textAttr } from './attributes.ts';
import { spanError, type SpanForest, type SpanNode } from './forest.ts';

const RUN_SUFFIX = '.run';
const STEP_PREFIX = 'Step ';

/** `Step N` → N; undefined for any other name. */
export function actionStepNumber(name: string): number | undefined {
  // 1–9 digits after the prefix, read in place: no copy of them and no Number() per span (every chain span is asked,
  // a `Step N` span three times).
  const n = name.length;
  if (n <= STEP_PREFIX.length || n > STEP_PREFIX.length + 9 || !name.startsWith(STEP_PREFIX)) return undefined;
  let value = 0;
  for (let i = STEP_PREFIX.length; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    value = value * 10 + (c - 48);
  }
  return value;
}

function isAgentRunSpan(node: SpanNode): boolean {
  return node.category === 'agent' && node.span.name.endsWith(RUN_SUFFIX);
}

function isActionStepSpan(node: SpanNode): boolean {
  return node.category !== 'llm' && node.category !== 'tool' && node.category !== 'agent' && actionStepNumber(node.span.name) !== undefined;
}

/** smolagents' instrumentation scope, or its span shapes (`XAgent.run` agent spans, `Step N` chain spans). */
export function looksLikeSmolagents(forest: SpanForest): boolean {
  // Any span decides, so the forest's flat node list will do (no tree walk). A scope is one string per scope block,
  // shared by its spans: looked into once per block, not per span.
  let lastScope: string | undefined;
  for (const node of forest.nodes) {
    const scope = node.span.scope;
    if (scope !== lastScope) {
      lastScope = scope;
      if (scope?.includes('smolagents')) return true;
    }
    if (isAgentRunSpan(node) && node.span.name.endsWith(`Agent${RUN_SUFFIX}`)) return true;
    if (node.category === 'chain' && actionStepNumber(node.span.name) !== undefined) return true;
  }
  return false;
}

const NAMED = /named '([^'\n]{1,200})'/;

/** SPEC §5.1: the name in the task text (`named '<name>'`); else `manager` for a top-level run; else the span name. */
export function smolagentsAgentName(task: string | undefined, topLevel: boolean, spanName: string): string {
  const named = task !== undefined ? NAMED.exec(task) : null;
  if (named) return named[1];
  return topLevel ? 'manager' : spanName;
}

/** What a smolagents task message says after its `New task:` header. */
function taskFromPrompt(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const header = 'New task:';
  const at = text.indexOf(header);
  return at === -1 ? text : text.slice(at + header.length).trimStart();
}

interface Context {
  run?: AgentRun;
  /** The action step this span is inside (in its own agent run). */
  step?: Step;
}

class SmolagentsAssembler {
  readonly asm = new RunAssembler();
  /** Runs made up for `Step N` spans whose agent run span is not in the file (keyed by their parent id). */
  private readonly syntheticRuns = new Map<string, { run: AgentRun; firstStepNode: SpanNode }>();

  walk(roots: SpanNode[], progress?: MapProgress): void {
    // Two parallel stacks: no object per visited span.
    const nodes: SpanNode[] = [];
    const contexts: Context[] = [];
    const top: Context = {};
    for (let i = roots.length - 1; i >= 0; i--) {
      nodes.push(roots[i]);
      contexts.push(top);
    }
    while (nodes.length) {
      const node = nodes.pop()!;
      progress?.tick();
      const childCtx = this.visit(node, contexts.pop()!);
      for (let i = node.children.length - 1; i >= 0; i--) {
        nodes.push(node.children[i]);
        contexts.push(childCtx);
      }
    }
  }

  private visit(node: SpanNode, ctx: Context): Context {
    if (isAgentRunSpan(node)) return { run: this.agentRun(node, ctx) };
    if (isActionStepSpan(node)) {
      const run = ctx.run ?? this.syntheticRun(node);
      return { run, step: this.actionStep(node, run) };
    }
    if (node.category === 'llm' || node.category === 'embedding') {
      const kind = ctx.run && !ctx.step ? 'planning' : 'llm';
      this.asm.addModelCall(node, kind, ctx.run, ctx.step?.id);
      return ctx;
    }
    if (node.category === 'tool' || node.category === 'retriever') {
      this.asm.addToolCall(node, ctx.run, ctx.step?.id);
      // The step stays the context: a managed agent wrapped in a tool span is still delegated from this step.
      return ctx;
    }
    return ctx;
  }

  private agentRun(node: SpanNode, ctx: Context): AgentRun {
    const attrs = node.span.attributes;
    const input = textAttr(attrs, 'input.value');
    const task = taskFromInput(input) ?? input;
    const agent = this.asm.agentNamed(smolagentsAgentName(task, !ctx.run, node.span.name), 'smolagents (agent span / managed agent name)');
    if (ctx.run && ctx.run.agentId !== agent.id) agent.parentId ??= ctx.run.agentId;
    const description = textAttr(attrs, 'smolagents.description');
    if (description !== undefined) agent.description ??= description;
    const run: AgentRun = { id: `run-${node.span.id}`, agentId: agent.id, spanId: node.span.id };
    if (ctx.run) run.parentRunId = ctx.run.id;
    if (task !== undefined) run.task = task;
    const output = textAttr(attrs, 'output.value');
    if (output !== undefined) run.output = output;
    if (node.span.start !== undefined) run.startTime = node.span.start;
    if (node.span.end !== undefined) run.endTime = node.span.end;
    this.asm.addAgentRun(run, ctx.run);
    if (ctx.run) this.asm.addDelegation(ctx.run, run, ctx.step?.id);
    return run;
  }

  /** An agent run for steps whose `*.run` span was not exported: one per missing parent. */
  private syntheticRun(stepNode: SpanNode): AgentRun {
    const key = stepNode.span.parentId ?? stepNode.span.id;
    const known = this.syntheticRuns.get(key);
    if (known) return known.run;
    const run: AgentRun = { id: `run-${key}`, agentId: '' };
    this.syntheticRuns.set(key, { run, firstStepNode: stepNode });
    this.asm.addAgentRun(run, undefined);
    return run;
  }

  /** Synthetic runs learn their task (and so their agent's name) from the first model call's prompt. */
  settleSyntheticRuns(): void {
    for (const { run, firstStepNode } of this.syntheticRuns.values()) {
      const stepsOfRun = this.asm.steps.filter((s) => s.agentRunId === run.id);
      const task = taskFromPrompt(firstUserMessage(stepsOfRun));
      if (task !== undefined) run.task = task;
      const agent = this.asm.agentNamed(smolagentsAgentName(task, true, firstStepNode.span.name), 'smolagents (agent span / managed agent name)');
      run.agentId = agent.id;
      for (const step of stepsOfRun) step.agentId = agent.id;
      const times = stepsOfRun.map((s) => s.startTime).filter((t): t is number => t !== undefined);
      if (times.length) run.startTime = times.reduce((a, b) => Math.min(a, b));
      const ends = stepsOfRun.map((s) => s.endTime ?? s.startTime).filter((t): t is number => t !== undefined);
      if (ends.length) run.endTime = ends.reduce((a, b) => Math.max(a, b));
    }
  }

  private actionStep(node: SpanNode, run: AgentRun): Step {
    const attrs = node.span.attributes;
    // Made at its length (a step has one call or two): an array pushed into from empty keeps room for 17.
    let toolCalls: ToolCall[] | undefined;
    let modelOutput: string | undefined;
    for (const child of node.children) {
      if (child.category === 'tool' || child.category === 'agent') {
        const name = textAttr(child.span.attributes, 'tool.name') ?? child.span.name;
        const call: ToolCall = { name, arguments: textAttr(child.span.attributes, 'input.value') ?? '' };
        if (toolCalls === undefined) toolCalls = [call];
        else toolCalls.push(call);
      } else if (child.category === 'llm' && modelOutput === undefined) {
        // Read once: the model call's own step (visited next) takes the same reading.
        modelOutput = this.asm.modelCall(child).text;
      }
    }
    const fields = this.asm.newFields('action', node);
    fields.number = actionStepNumber(node.span.name);
    fields.toolCalls = toolCalls ?? [];
    const observation = textAttr(attrs, 'output.value');
    if (observation !== undefined) fields.observation = observation;
    if (modelOutput !== undefined) fields.output = modelOutput;
    const error = spanError(node.span);
    if (error) fields.error = error;
    return this.asm.addSpanStep(node, fields, run);
  }
}

/** `progress` ticks once per span visited, then once per span listed (the OTLP importer's mapping bar). */
export function smolagentsSpansToRun(forest: SpanForest, sourceFormat: SourceFormat, progress?: MapProgress): Run {
  const builder = new SmolagentsAssembler();
  builder.walk(forest.roots, progress);
  builder.settleSyntheticRuns();
  const asm = builder.asm;
  const top = asm.topLevelRuns[0];
  const task = top?.task;
  const fallbackTitle = forest.roots[0]?.span.name ?? forest.traceId;
  return asm.finish({
    id: forest.traceId,
    title: titleFromTask(task, fallbackTitle),
    task,
    sourceFormat,
    framework: frameworkOf(forest) ?? 'smolagents',
    forest,
    finalAnswer: top?.output,
  }, progress);
}
