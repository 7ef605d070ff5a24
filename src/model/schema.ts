// Zod schemas of the canonical model and of the native session file (SPEC §2).
// Objects are `loose`: fields we do not know are kept, so a session written by a newer version round-trips.
import './zod-config.ts'; // before any schema is made
import { z } from 'zod';

import { SESSION_FORMAT, SESSION_VERSION, SESSION_VERSIONS_READ } from './session-format.ts';

export { SESSION_FORMAT, SESSION_VERSION, SESSION_VERSIONS_READ };

export const SourceFormat = z.enum([
  'native',
  'otlp',
  'span-tree',
  'langfuse',
  'chat-log',
  'openai-chat',
  'message-bus',
  'runner',
]);

/** `llm` model call; `action` an agent step (thought + tool calls + observation); `tool`; `message` a chat turn;
 *  `planning`; `final` (the final answer). */
export const StepKind = z.enum(['llm', 'action', 'tool', 'message', 'planning', 'final']);

export const TokenUsage = z
  .object({
    input: z.number(),
    output: z.number(),
    cached: z.number().optional(),
    total: z.number(),
    /** true when counted by a tokenizer rather than recorded by the source. */
    estimated: z.boolean().optional(),
    cost: z.number().optional(),
  })
  .loose();

export const ToolCall = z
  .object({
    id: z.string().optional(),
    name: z.string(),
    /** Arguments as recorded: JSON text when the source had JSON, otherwise the raw text. */
    arguments: z.string(),
  })
  .loose();

export const ChatMessage = z
  .object({
    role: z.string(),
    name: z.string().optional(),
    content: z.string(),
    toolCalls: z.array(ToolCall).optional(),
    toolCallId: z.string().optional(),
  })
  .loose();

export const StepError = z
  .object({
    message: z.string(),
    type: z.string().optional(),
  })
  .loose();

export const Agent = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.string().optional(),
    description: z.string().optional(),
    model: z.string().optional(),
    /** Manager of this agent (manager → managed agent hierarchy). */
    parentId: z.string().optional(),
    kind: z.enum(['agent', 'human', 'system']).optional(),
  })
  .loose();

/** One invocation of an agent on a sub-task; its task is the local task Q_l. */
export const AgentRun = z
  .object({
    id: z.string(),
    agentId: z.string(),
    parentRunId: z.string().optional(),
    task: z.string().optional(),
    startTime: z.number().optional(),
    endTime: z.number().optional(),
    spanId: z.string().optional(),
    output: z.string().optional(),
  })
  .loose();

/** Where a live or forked run's turn came from. */
export const TurnOrigin = z.enum([
  /** answered by the endpoint */
  'live',
  /** taken from the parent run's recording */
  'recorded',
  /** changed by hand (or by an applied engine verdict) at the fork step */
  'edited',
  /** a person's or a script's turn, copied */
  'scripted',
  /** a tool's recorded answer to the same request */
  'tool-replay',
]);

/**
 * What the runner and forks (SPEC §5.5, ADR 0010, 0011) record about a step they made. Absent on imported steps.
 * Typed here rather than carried in `raw`, which is for unmapped source fields only (ADR 0014).
 */
export const StepRunner = z
  .object({
    origin: TurnOrigin.optional(),
    /** The recorded endpoint call that produced the step (in the session's `llmCalls`). */
    llmCallId: z.string().optional(),
    /** Key of the exact call input (agent + messages): a fork replays a recorded turn when its key matches. */
    callKey: z.string().optional(),
    /** The text as the agent produced it, when a gate delivered a revised text (the step's `output`). */
    produced: z.string().optional(),
    /** Pruned by a gate (or by hand): kept in the run, never seen by the other agents. */
    pruned: z.boolean().optional(),
    /** Made before a global restart: the conversation after the restart does not include it. */
    superseded: z.boolean().optional(),
    /** Fork step changed by hand: the text before, and how it was changed. */
    editedFrom: z.string().optional(),
    edit: z.enum(['replace', 'append', 'prune']).optional(),
    /** Prompt forks: what the recording said at a step that went live. */
    recordedOutput: z.string().optional(),
    /** Group chats with an LLM speaker selector: why this speaker was chosen. */
    selector: z.string().optional(),
  })
  .loose();

/** Votes per option, in the order the options were first seen (option names come from the file: never object keys). */
export const BusTally = z.array(z.object({ option: z.string(), votes: z.number() }).loose());

/**
 * What a message-bus step means beyond its text (smolagents decentralised team): a poll, a vote on one, or the
 * coordinator's final answer. The tally is counted from the votes seen so far in the log, never taken on trust.
 */
export const BusStepData = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('poll'),
      pollId: z.string(),
      question: z.string().optional(),
      proposal: z.string().optional(),
      proposer: z.string().optional(),
      options: z.array(z.string()),
      threshold: z.number().optional(),
      status: z.string().optional(),
      /** The answer the poll would make final. */
      finalAnswer: z.string().optional(),
      /** Set on a later message about a poll already opened (its status update): the opening step's id. */
      pollStepId: z.string().optional(),
      /** Opening step: the votes cast on it over the whole log, in order, and the tally after the last. */
      voteStepIds: z.array(z.string()),
      tally: BusTally,
    })
    .loose(),
  z
    .object({
      kind: z.literal('vote'),
      pollId: z.string(),
      /** The step that opened the poll; absent when the log never shows it. */
      pollStepId: z.string().optional(),
      voter: z.string(),
      vote: z.string(),
      confidence: z.number().optional(),
      rationale: z.string().optional(),
      /** The poll's tally right after this vote. */
      tally: BusTally,
    })
    .loose(),
  z
    .object({
      kind: z.literal('final_answer'),
      answer: z.string(),
      pollId: z.string().optional(),
      pollStepId: z.string().optional(),
      /** The tally as the coordinator reported it. */
      reportedTally: BusTally,
      eligible: z.number().optional(),
      threshold: z.number().optional(),
    })
    .loose(),
]);

export const Step = z
  .object({
    id: z.string(),
    /** Position in the run's step list (0-based); steps are stored in replay order. */
    index: z.number(),
    kind: StepKind,
    agentId: z.string(),
    agentRunId: z.string().optional(),
    /** Set on steps nested in another step (a model call or tool call inside a smolagents action step). */
    parentStepId: z.string().optional(),
    /** Step number within its agent run as the source numbers it (smolagents `Step N`, chat turn). */
    number: z.number().optional(),
    name: z.string().optional(),
    /** Recorded prompt of a model call. */
    input: z.array(ChatMessage).optional(),
    /** Input that is not a message list (a tool's input, a span's input.value). */
    inputText: z.string().optional(),
    /** Model output, or the text of a chat message. */
    output: z.string().optional(),
    thought: z.string().optional(),
    toolCalls: z.array(ToolCall).optional(),
    observation: z.string().optional(),
    error: StepError.optional(),
    usage: TokenUsage.optional(),
    model: z.string().optional(),
    startTime: z.number().optional(),
    endTime: z.number().optional(),
    spanId: z.string().optional(),
    parentSpanId: z.string().optional(),
    /** Message steps: the agents the message was addressed to. */
    recipients: z.array(z.string()).optional(),
    /** Set on steps the runner or a fork made. */
    runner: StepRunner.optional(),
    /** Source attributes and fields the importer did not map, shown raw in the inspector. */
    raw: z.record(z.string(), z.unknown()).optional(),
    /** Message-bus polls, votes and final answers. */
    bus: BusStepData.optional(),
    /** Other spans recording this same model call (a provider span inside a framework wrapper): counted once here. */
    mergedSpanIds: z.array(z.string()).optional(),
  })
  .loose();

export const Handoff = z
  .object({
    id: z.string(),
    from: z.string(),
    to: z.array(z.string()),
    /** message: a chat turn; delegation: manager calls a managed agent; report: a managed agent's answer returns. */
    kind: z.enum(['message', 'delegation', 'report', 'broadcast']),
    stepId: z.string().optional(),
    content: z.string(),
  })
  .loose();

export const Annotation = z
  .object({
    id: z.string(),
    /** Target: none = the run; otherwise a step or a handoff. */
    stepId: z.string().optional(),
    handoffId: z.string().optional(),
    source: z.enum(['human', 'dataset', 'engine']),
    /** TRAIL | WhoWhen | AgentRx | AgentAsk | … */
    taxonomy: z.string(),
    code: z.string(),
    agentId: z.string().optional(),
    evidence: z.string().optional(),
    description: z.string().optional(),
    impact: z.string().optional(),
    createdAt: z.number().optional(),
  })
  .loose();

export const LlmCallRecord = z
  .object({
    id: z.string(),
    requestHash: z.string(),
    model: z.string(),
    request: z.unknown(),
    response: z.unknown().optional(),
    usage: TokenUsage.optional(),
    latencyMs: z.number().optional(),
    startedAt: z.number().optional(),
    error: z.string().optional(),
  })
  .loose();

export const Intervention = z
  .object({
    id: z.string(),
    engine: z.enum(['supervisor', 'rectifier', 'clarifier', 'stages', 'human']),
    stepId: z.string().optional(),
    handoffId: z.string().optional(),
    /** Supervisor: subagent_completion | error | inefficient | excessive; other engines: their own trigger names. */
    context: z.string().optional(),
    action: z.string(),
    reason: z.string(),
    /** true when produced by the LLM-free heuristic path. */
    heuristic: z.boolean(),
    tokens: TokenUsage.optional(),
    llmCallIds: z.array(z.string()).optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export const Outcome = z
  .object({
    status: z.enum(['success', 'failure', 'unknown']),
    finalAnswer: z.string().optional(),
    referenceAnswer: z.string().optional(),
    score: z.number().optional(),
  })
  .loose();

export const SubtaskStatus = z.enum(['TODO', 'DONE', 'FAILED', 'NEED-REFINE']);

/** A subtask of the task state. Status as of the stage that carries it. */
export const Subtask = z
  .object({
    id: z.string(),
    title: z.string(),
    status: SubtaskStatus,
    /** Longer wording or the evidence the status rests on. */
    detail: z.string().optional(),
  })
  .loose();

/** One agent of the pool in one layer of a stage's workflow. */
export const LayerAgent = z
  .object({
    agentId: z.string(),
    /** Selection probability as the workflow adapter recorded it. */
    probability: z.number().optional(),
    /** Whether the agent was instantiated in this layer; absent means it was (every listed agent ran). */
    selected: z.boolean().optional(),
    /** Derived stages: observed share of this layer's turns taken by the agent (a frequency, never a probability). */
    frequency: z.number().optional(),
    /** Derived stages: turns (consecutive steps of one agent run) the agent took in this layer. */
    turns: z.number().optional(),
  })
  .loose();

/**
 * EvoMAS stage: task state and the layered workflow used in it (SPEC §5.4). The task state is the one the stage starts
 * from: subtasks as evaluated after the previous stage, the next active subtask (what this stage works on), and the
 * evaluator's verdict and confidence on the previous stage's outcome. A `closing` stage (no steps) holds the state
 * after the last stage.
 */
export const Stage = z
  .object({
    id: z.string(),
    index: z.number(),
    startStepId: z.string().optional(),
    endStepId: z.string().optional(),
    subtasks: z.array(Subtask),
    nextSubtaskId: z.string().optional(),
    summary: z.string().optional(),
    verdict: z.string().optional(),
    confidence: z.number().optional(),
    /** The evaluator's feedback in words. */
    feedback: z.string().optional(),
    layers: z.array(z.array(LayerAgent)),
    heuristic: z.boolean().optional(),
    /** Absent: recorded by the system that ran; `offline`: segmentation heuristic; `llm`: Planner-Evaluator-Updater pass. */
    derivedBy: z.enum(['offline', 'llm']).optional(),
    /** The state after the last stage; covers no steps. */
    closing: z.boolean().optional(),
    /** Plan items the manager wrote during this stage, as written. */
    plan: z.array(z.string()).optional(),
    /** What had to be repaired or fell back while deriving this stage. */
    notes: z.array(z.string()).optional(),
    llmCallIds: z.array(z.string()).optional(),
    tokens: TokenUsage.optional(),
  })
  .loose();

/** How a fork's turns were made, counted. */
export const ForkStats = z
  .object({
    copied: z.number(),
    replayed: z.number(),
    live: z.number(),
    edited: z.number(),
    toolReplayed: z.number(),
    scripted: z.number(),
  })
  .loose();

/** How a run made by the runner or a fork ended (SPEC §5.5). Absent on imported runs. */
export const RunLive = z
  .object({
    status: z.enum(['complete', 'stopped', 'failed', 'cancelled']),
    /** Why it stopped or failed. */
    note: z.string().optional(),
    forkStats: ForkStats.optional(),
    /** Forks: through chat turns, or through recorded prompts (LLM pipelines). */
    forkStyle: z.enum(['chat', 'prompts']).optional(),
  })
  .loose();

/** Both 0|1 figures a benchmark's own rule gives a result-only run, with the duration it recorded (SPEC §7). */
export const BenchmarkResult = z
  .object({
    source: z.literal('benchmark'),
    /** Which rule scored it (e.g. `smolagents-decentralised`: normalised exact match and contains). */
    rule: z.string(),
    exactMatch: z.union([z.literal(0), z.literal(1)]),
    contains: z.union([z.literal(0), z.literal(1)]),
    durationS: z.number().optional(),
  })
  .loose();

/**
 * A run made from another run instead of recorded: the shadow-supervised estimate of a recorded run (SPEC §5.1).
 * Its token counts are a counterfactual estimate, never a measurement.
 */
export const DerivedRun = z
  .object({
    kind: z.literal('shadow-supervised'),
    sourceRunId: z.string(),
    estimate: z.literal(true),
    /** offline-heuristic: the LLM-free rules decided; endpoint: recorded endpoint verdicts decided. */
    method: z.enum(['offline-heuristic', 'endpoint']),
    thresholds: z.object({ tauStep: z.number(), tauLoop: z.number(), tauLen: z.number() }).loose().optional(),
    tokens: z
      .object({ baseline: z.number(), supervisedEstimate: z.number(), supervisorOverhead: z.number(), netSaving: z.number() })
      .loose(),
  })
  .loose();

/** What the studio made of one source span: a step of its kind, an agent run, or a plain span kept as it is. */
export const SpanKind = z.enum(['agent', 'model', 'tool', 'step', 'span']);

/**
 * One span of the source trace, kept whatever the studio made of it (issue 20). Stored in tree order (pre-order,
 * `depth` from the roots); attributes and events are the source's own objects, never copies.
 */
export const RunSpan = z
  .object({
    id: z.string(),
    /** As the file says: may name a span that is not in the file (an orphan, shown as a root). */
    parentId: z.string().optional(),
    name: z.string(),
    kind: SpanKind.optional(),
    depth: z.number().optional(),
    start: z.number().optional(),
    end: z.number().optional(),
    status: z.enum(['ok', 'error', 'unset']),
    statusMessage: z.string().optional(),
    attributes: z.record(z.string(), z.unknown()),
    events: z.array(z.object({ name: z.string(), time: z.number().optional(), attributes: z.record(z.string(), z.unknown()) }).loose()),
    /** The step the span is (kind model / tool / step) or belongs to (a plain span under a step). */
    stepId: z.string().optional(),
    /** In a session file: the attributes are the `raw` of the step `stepId` (written once, there); `attributes` is
     *  left empty and filled from the step on import. Never set in memory. */
    attributesOf: z.literal('step').optional(),
    /** Stored apart in IndexedDB (ADR 0026): these attributes are also the whole `raw` of the step `stepId`, which the
     *  stored and handed-over step carries only in part. Never in a session file. */
    stepRaw: z.literal(true).optional(),
  })
  .loose();

/** Which rule named an agent or a tool (`gen_ai.agent.name`, `agent.name`, `span name`, `service.name`, …). */
export const NamingRule = z.object({ name: z.string(), rule: z.string() }).loose();

/**
 * The import report of the spans of one run (issue 20): read = agents + modelCalls + toolCalls + otherSteps + plain
 * + the dropped counts. Nothing is dropped without a reason.
 */
export const SpanReport = z
  .object({
    read: z.number(),
    agents: z.number(),
    modelCalls: z.number(),
    toolCalls: z.number(),
    /** Spans that became steps of other kinds (smolagents action steps, …). */
    otherSteps: z.number(),
    plain: z.number(),
    dropped: z.array(z.object({ reason: z.string(), count: z.number() }).loose()),
    /** Not part of the sum: spans with a missing parent (kept as roots), model-call spans merged into their wrapper
     *  (counted once, in modelCalls), handoffs made from agent spans. */
    orphans: z.number(),
    mergedModelCalls: z.number(),
    handoffs: z.number(),
    agentRules: z.array(NamingRule),
    toolRules: z.array(NamingRule),
  })
  .loose();

export const Run = z
  .object({
    id: z.string(),
    title: z.string(),
    /** The global task Q_g. */
    task: z.string().optional(),
    sourceFormat: SourceFormat,
    framework: z.string().optional(),
    models: z.array(z.string()),
    outcome: Outcome,
    /** dataset, level, arm (baseline | supervised), … */
    tags: z.record(z.string(), z.string()),
    startTime: z.number().optional(),
    endTime: z.number().optional(),
    agents: z.array(Agent),
    agentRuns: z.array(AgentRun),
    steps: z.array(Step),
    handoffs: z.array(Handoff),
    annotations: z.array(Annotation),
    interventions: z.array(Intervention),
    stages: z.array(Stage).optional(),
    /** Spans whose parent is missing from the file: counted and shown, never dropped. */
    orphanSpans: z.number(),
    /** Every span of the source trace, in tree order (span imports only). */
    spans: z.array(RunSpan).optional(),
    /** What the importer made of the spans (span imports only). */
    spanReport: SpanReport.optional(),
    /** Made by the project's generator, not recorded from a real system. */
    simulated: z.boolean().optional(),
    parentRunId: z.string().optional(),
    forkStepId: z.string().optional(),
    /** Set on runs the runner or a fork made. */
    live: RunLive.optional(),
    /** Top-level source fields that the importer did not map. */
    raw: z.record(z.string(), z.unknown()).optional(),
    /** Set on a run derived from another (shadow-supervised estimate); absent on recorded runs. */
    derived: DerivedRun.optional(),
    /** Result-only runs scored by their benchmark's own rule. */
    benchmark: BenchmarkResult.optional(),
  })
  .loose();

export const Session = z
  .object({
    format: z.literal(SESSION_FORMAT),
    version: z.union(SESSION_VERSIONS_READ.map((v) => z.literal(v))),
    id: z.string(),
    title: z.string().optional(),
    createdAt: z.number().optional(),
    simulated: z.boolean().optional(),
    runs: z.array(Run),
    engineSettings: z.record(z.string(), z.unknown()),
    llmCalls: z.array(LlmCallRecord),
  })
  .loose();
