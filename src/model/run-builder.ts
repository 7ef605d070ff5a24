// One way to build a Run piece by piece, for everything that makes runs from a sequence of turns: the chat-style
// importers, the live runner and forks (src/engine/runner/run-builder.ts adds delivery, pruning and gates on top),
// and the sample generator. It owns the id scheme the rest of the studio relies on — steps `<run>:s<n>` in replay
// order, handoffs `<run>:h<n>`, interventions `<run>:iv<n>`, one agent run `<run>:run:<agent>` per agent — and the
// skeleton every Run needs, so a builder's caller says only what its source knows.
import type { Agent, AgentRun, Annotation, Handoff, Intervention, Outcome, Run, SourceFormat, Step } from './types.ts';

/** What the caller knows of the run as a whole; the builder adds agents, agent runs, steps and the lists. */
export interface RunHead {
  title: string;
  sourceFormat: SourceFormat;
  outcome: Outcome;
  tags?: Record<string, string>;
  task?: string;
  framework?: string;
  /** Models the run used; by default the distinct `model` of its steps, in first-use order. */
  models?: string[];
  raw?: Record<string, unknown>;
}

/**
 * Told every STEP_TICK steps a builder adds, with that builder's step count: the import worker's progress while an
 * importer maps a large file (a synchronous pass it cannot otherwise look into). Unset: nothing is called.
 */
export const stepTicks: { onTick?: (steps: number) => void } = {};
const STEP_TICK = 1 << 12;

/**
 * Told as an importer's passes over a whole it counted first (spans read, then mapped; messages over each pass)
 * advance, every STEP_TICK items: the import worker's determinate `mapping` bar. Unset: nothing is called.
 */
export const mapTicks: { onTick?: (done: number, total: number) => void } = {};

/**
 * An importer's progress through `total` items: `tick()` per item is an increment and a mask test; `advance(n)` for
 * many at once. Told through `mapTicks` every STEP_TICK items. A total of 0 is not known (an importer that reads as
 * it parses cannot count first): then `mapTicks` is never told, and the steps built report through `stepTicks`.
 */
export class MapProgress {
  private done = 0;
  constructor(readonly total: number) {}

  tick(): void {
    if ((++this.done & (STEP_TICK - 1)) === 0 && this.total > 0) mapTicks.onTick?.(this.done, this.total);
  }

  /** The items not counted yet: a progress whose total kept room for the checks after the mapping has it left. */
  get left(): number {
    return this.total - this.done;
  }

  advance(n: number): void {
    const before = this.done;
    this.done += n;
    if (Math.floor(before / STEP_TICK) !== Math.floor(this.done / STEP_TICK) && this.total > 0) mapTicks.onTick?.(this.done, this.total);
  }
}

/**
 * `<run><sep><n>`, a step's or a handoff's id, as one flat string. A template makes it a string that points at its
 * parts, and the first search, hash or clone of it (the hand-over to the page) adds a flat copy beside it: two strings
 * per id, for each of a chat log's million steps and million handoffs (src/import/spans/forest.ts, stepIdOfSpan).
 */
export function runPartId(run: string, sep: string, n: number): string {
  return [run, sep, n].join('');
}

export class RunBuilder {
  readonly steps: Step[] = [];
  readonly handoffs: Handoff[] = [];
  readonly annotations: Annotation[] = [];
  readonly interventions: Intervention[] = [];
  private readonly agentById = new Map<string, Agent>();
  private readonly agentRunList: AgentRun[] = [];
  /** `agentRunId`'s strings, made once per agent (a chat log asks once per message). */
  private readonly agentRunIds = new Map<string, string>();

  /** `task`, when known, is given to every agent run. */
  constructor(
    readonly id: string,
    readonly task?: string,
  ) {}

  /** The agents in the order they were added. */
  get agents(): Agent[] {
    return [...this.agentById.values()];
  }

  agent(id: string): Agent | undefined {
    return this.agentById.get(id);
  }

  agentRunId(agentId: string): string {
    let id = this.agentRunIds.get(agentId);
    if (id === undefined) this.agentRunIds.set(agentId, (id = `${this.id}:run:${agentId}`));
    return id;
  }

  /**
   * Add an agent once (a second agent with the same id is ignored) with its agent run `<run>:run:<agent>`; returns the
   * one kept. With `agentRun` null the agent gets no run of its own (its steps belong to a run added by `addAgentRun`).
   */
  addAgent(agent: Agent, agentRun: Partial<AgentRun> | null = {}): Agent {
    const known = this.agentById.get(agent.id);
    if (known) return known;
    this.agentById.set(agent.id, agent);
    if (agentRun) this.addAgentRun({ id: this.agentRunId(agent.id), agentId: agent.id, ...agentRun });
    return agent;
  }

  /**
   * Append an agent run the caller lays out itself (its own id, a parent run, a start mid-way through the run). It is
   * kept as given, so the caller may still set its end or output; it gets the builder's task when it has none.
   */
  addAgentRun(run: AgentRun): AgentRun {
    if (this.task !== undefined && run.task === undefined) run.task = this.task;
    this.agentRunList.push(run);
    return run;
  }

  /** The id the next step gets. */
  nextStepId(): string {
    return runPartId(this.id, ':s', this.steps.length);
  }

  /** Append a step in replay order: its index is its position; its id `<run>:s<index>` unless the source names one. */
  addStep(fields: Omit<Step, 'id' | 'index'> & { id?: string }): Step {
    const index = this.steps.length;
    const { id, ...rest } = fields;
    const step = { id: id ?? runPartId(this.id, ':s', index), index, ...rest } as Step;
    this.steps.push(step);
    if ((index & (STEP_TICK - 1)) === 0 && index > 0) stepTicks.onTick?.(index);
    return step;
  }

  /**
   * Append a step the caller made whole, with the fields in addStep's order (`id` `<run>:s<index>` or the source's,
   * `index` its position, then the rest): no copies of it, for importers that add a step per message of a large log.
   */
  appendStep(step: Step): Step {
    const index = this.steps.length;
    this.steps.push(step);
    if ((index & (STEP_TICK - 1)) === 0 && index > 0) stepTicks.onTick?.(index);
    return step;
  }

  /**
   * Record a handoff made by `step` (from its agent unless said otherwise), with the id `<run>:h<n>` unless the caller
   * names one. The step's recipients are the caller's.
   */
  addHandoff(step: Pick<Step, 'id' | 'agentId'>, handoff: Pick<Handoff, 'to' | 'kind' | 'content'> & { from?: string; id?: string }): Handoff {
    const h: Handoff = { id: handoff.id ?? runPartId(this.id, ':h', this.handoffs.length), from: handoff.from ?? step.agentId, to: handoff.to, kind: handoff.kind, stepId: step.id, content: handoff.content };
    this.handoffs.push(h);
    return h;
  }

  /** Append an intervention with the next id `<run>:iv<n>`. */
  intervene(fields: Omit<Intervention, 'id'>): Intervention {
    const iv = { id: `${this.id}:iv${this.interventions.length}`, ...fields } as Intervention;
    this.interventions.push(iv);
    return iv;
  }

  /**
   * The run as built so far (lists are copied; steps are shared unless `copySteps`). With `timesFromSteps` the run
   * starts and ends with its steps; otherwise its times are the caller's (a source may record them for the run).
   */
  build(head: RunHead, options: { copySteps?: boolean; timesFromSteps?: boolean } = {}): Run {
    const run: Run = {
      id: this.id,
      title: head.title,
      sourceFormat: head.sourceFormat,
      models: head.models ?? distinctModels(this.steps),
      outcome: head.outcome,
      tags: { ...head.tags },
      agents: this.agents,
      agentRuns: [...this.agentRunList],
      steps: options.copySteps ? this.steps.map((s) => ({ ...s })) : [...this.steps],
      handoffs: [...this.handoffs],
      annotations: [...this.annotations],
      interventions: [...this.interventions],
      orphanSpans: 0,
    };
    const task = head.task ?? this.task;
    if (task !== undefined) run.task = task;
    if (head.framework) run.framework = head.framework;
    if (head.raw) run.raw = head.raw;
    if (options.timesFromSteps) {
      const { start, end } = timeSpan(this.steps);
      if (start !== undefined) run.startTime = start;
      if (end !== undefined) run.endTime = end;
    }
    return run;
  }
}

function distinctModels(steps: readonly Step[]): string[] {
  const seen = new Set<string>();
  for (const s of steps) if (s.model) seen.add(s.model);
  return [...seen];
}

/** Earliest start and latest end of the steps that have them (one pass, no spread over the list). */
function timeSpan(steps: readonly Step[]): { start?: number; end?: number } {
  let start: number | undefined;
  let end: number | undefined;
  for (const s of steps) {
    if (s.startTime !== undefined && (start === undefined || s.startTime < start)) start = s.startTime;
    if (s.endTime !== undefined && (end === undefined || s.endTime > end)) end = s.endTime;
  }
  return { start, end };
}
