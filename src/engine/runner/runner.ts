// The built-in runner for LLM-only teams (SPEC §5.5): a sequential chain or a group chat (round-robin or an LLM
// speaker selector), roles with system prompts, a final decision agent and a turn limit. Every produced message goes
// through the enabled gates; every call is recorded; the result is a native run (source format `runner`).
import type { LlmClient } from '../../llm/client.ts';
import { Cancelled, LlmError } from '../../llm/errors.ts';
import { SupervisionFailed } from '../supervisor/supervisor.ts';
import { hashText } from '../../model/hash.ts';
import type { Agent, Outcome, Run } from '../../model/types.ts';
import type { Speaker } from './conversation.ts';
import type { MessageGate } from './gates.ts';
import { CODE_ROLES, DECIDER_PROMPTS, MATH_ROLES, SELECTOR_PROMPT } from './prompts.ts';
import { applyGates, liveTurn, RunBuilder, type RunStatus } from './run-builder.ts';
import { answersMatch, extractCode, extractMathAnswer } from './scoring.ts';
import type { LiveTask, TaskDomain } from './tasks.ts';

export interface TeamRole {
  id: string;
  prompt: string;
}

export interface TeamConfig {
  mode: 'chain' | 'group-chat';
  /** Group chat only. */
  selector: 'round-robin' | 'llm';
  roles: TeamRole[];
  /** The decision agent's prompt; it speaks once, last, and its answer is the run's. */
  decider: string;
  /** Turns before the decision agent (a chain also stops after its last role). */
  maxTurns: number;
  domain: TaskDomain;
}

export const DECIDER_ID = 'Decider';
export const SELECTOR_NAME = 'select speaker';

export function defaultTeam(domain: TaskDomain, mode: TeamConfig['mode'] = 'chain'): TeamConfig {
  const roles =
    domain === 'math'
      ? [
          { id: 'Solver', prompt: MATH_ROLES.solver },
          { id: 'Checker', prompt: MATH_ROLES.checker },
          { id: 'Critic', prompt: MATH_ROLES.critic },
        ]
      : [
          { id: 'Programmer', prompt: CODE_ROLES.programmer },
          { id: 'Reviewer', prompt: CODE_ROLES.reviewer },
          { id: 'Tester', prompt: CODE_ROLES.tester },
        ];
  return { mode, selector: 'round-robin', roles, decider: DECIDER_PROMPTS[domain], maxTurns: mode === 'chain' ? roles.length : 6, domain };
}

export function teamProblem(team: TeamConfig): string | undefined {
  if (team.roles.length === 0) return 'the team has no roles';
  const ids = new Set<string>();
  for (const r of team.roles) {
    if (r.id.trim() === '') return 'every role needs a name';
    if (r.id === DECIDER_ID) return `"${DECIDER_ID}" is the decision agent's name`;
    if (ids.has(r.id)) return `two roles are named ${r.id}`;
    ids.add(r.id);
    if (r.prompt.trim() === '') return `${r.id} has no system prompt`;
  }
  if (!(team.maxTurns >= 1)) return 'max turns must be at least 1';
  return undefined;
}

export interface RunnerEvent {
  type: 'turn';
  step: number;
  agent: string;
}

export interface TeamRunOptions {
  client: LlmClient;
  /** Gates on every role's message (not on the decision agent's). */
  gates?: readonly MessageGate[];
  /** Client for the gates (the supervisor's own calls); defaults to `client`. */
  gateClient?: LlmClient;
  signal?: AbortSignal;
  runId?: string;
  tags?: Record<string, string>;
  title?: string;
  onEvent?: (event: RunnerEvent) => void;
}

export interface TeamRunResult {
  run: Run;
  status: RunStatus;
  error?: string;
  /** The failure came from the endpoint (HTTP, network, timeout, budget) after the client's own retries. */
  endpointFailure?: boolean;
}

/** The run's agents: the roles (their role is the prompt's first sentence) and the decision agent. */
export function teamAgents(team: TeamConfig): Agent[] {
  const firstLine = (p: string) => p.split(/(?<=\.)\s/)[0];
  return [
    ...team.roles.map((r) => ({ id: r.id, name: r.id, role: firstLine(r.prompt), description: r.prompt })),
    { id: DECIDER_ID, name: DECIDER_ID, role: firstLine(team.decider), description: team.decider },
  ];
}

/** Outcome of a finished run: the final answer and, when the task has a reference, the score. */
export function scoreOutcome(finalText: string | undefined, task: Pick<LiveTask, 'answer' | 'domain'>): Outcome {
  if (finalText === undefined) return { status: 'unknown', ...(task.answer ? { referenceAnswer: task.answer } : {}) };
  const finalAnswer = task.domain === 'math' ? extractMathAnswer(finalText) : extractCode(finalText);
  const outcome: Outcome = { status: 'unknown' };
  if (finalAnswer !== undefined) outcome.finalAnswer = finalAnswer;
  if (task.answer !== undefined && task.domain === 'math') {
    outcome.referenceAnswer = task.answer;
    const ok = answersMatch(finalAnswer, task.answer);
    if (ok !== undefined) {
      outcome.status = ok ? 'success' : 'failure';
      outcome.score = ok ? 1 : 0;
    }
  }
  return outcome;
}

function pickSpeaker(answer: string, roles: readonly TeamRole[]): TeamRole | undefined {
  const t = answer.trim().replace(/^["'`*]+|["'`*.]+$/g, '');
  return roles.find((r) => r.id.toLowerCase() === t.toLowerCase()) ?? roles.find((r) => new RegExp(`\\b${r.id.replace(/[^\w]/g, '\\$&')}\\b`, 'i').test(answer));
}

export async function runTeam(task: LiveTask, team: TeamConfig, options: TeamRunOptions): Promise<TeamRunResult> {
  const problem = teamProblem(team);
  if (problem) throw new Error(`team: ${problem}`);
  const { client, signal } = options;
  const runId = options.runId ?? `live-${hashText(`${task.id}\n${task.question}\n${Date.now()}`)}`;
  const turns = team.mode === 'chain' ? Math.min(team.maxTurns, team.roles.length) : team.maxTurns;
  // A chain cut short by max turns has only the roles that speak.
  if (team.mode === 'chain') team = { ...team, roles: team.roles.slice(0, turns) };
  const builder = new RunBuilder(runId, task.question, teamAgents(team), {
    title: options.title ?? task.question.split('\n')[0].slice(0, 80),
    sourceFormat: 'runner',
    framework: `runner ${team.mode === 'chain' ? 'sequential chain' : `group chat (${team.selector})`}`,
    tags: { ...options.tags },
  });
  const speakers = new Map<string, Speaker>([...team.roles.map((r) => [r.id, { id: r.id, prompt: r.prompt }] as const), [DECIDER_ID, { id: DECIDER_ID, prompt: team.decider }]]);
  const gateOptions = { gates: options.gates ?? [], client: options.gateClient ?? client, signal, speakerOf: (id: string) => speakers.get(id) };
  let finalText: string | undefined;
  const roleTurns = async (gates: readonly MessageGate[], label: string) => {
    for (let t = 0; t < turns; t++) {
      if (signal?.aborted) throw new Cancelled();
      let role = team.roles[t % team.roles.length];
      let selection: Awaited<ReturnType<LlmClient['chat']>> | undefined;
      let fallback = false;
      if (team.mode === 'group-chat' && team.selector === 'llm' && t > 0) {
        const members = team.roles.map((r) => `- ${r.id}`).join('\n');
        const transcript = builder.visible.map((v) => `${v.speaker}: ${v.content}`).join('\n\n');
        selection = await client.chat(
          {
            role: 'agents',
            messages: [
              { role: 'system', content: `${SELECTOR_PROMPT}\n\nMembers:\n${members}` },
              { role: 'user', content: `Task:\n${task.question}\n\nConversation:\n${transcript}\n\nWho speaks next?` },
            ],
          },
          signal,
        );
        const chosen = pickSpeaker(selection.text, team.roles);
        if (chosen) role = chosen;
        else fallback = true;
      }
      const speaker = speakers.get(role.id)!;
      options.onEvent?.({ type: 'turn', step: t, agent: `${role.id}${label}` });
      const { input, key, result, startTime, endTime } = await liveTurn(client, speaker, task.question, builder.visible, signal);
      const step = builder.addStep(role.id, result.text, { origin: 'live', input, key, usage: result.usage, model: result.record.model, llmCallId: result.record.id }, { startTime, endTime });
      if (selection) {
        builder.addNestedCall(step, SELECTOR_NAME, selection);
        step.runner = { ...step.runner, selector: fallback ? `the selector named no member (“${selection.text.slice(0, 80)}”); round-robin chose ${role.id}` : `chosen by the selector` };
      }
      const delivered = await applyGates(builder, step, { ...gateOptions, gates });
      if (delivered === undefined) builder.prune(step);
      else builder.deliver(step, delivered);
    }
  };
  try {
    await roleTurns(gateOptions.gates, '');
    // The global fallback (SPEC §5.2): too few messages survived the audit → the team starts over without gates.
    const fallbackGate = gateOptions.gates.filter((g) => g.minSurvivors !== undefined).sort((a, b) => b.minSurvivors! - a.minSurvivors!)[0];
    const survived = builder.survivors();
    if (fallbackGate && survived < fallbackGate.minSurvivors!) {
      if (signal?.aborted) throw new Cancelled();
      const firstPass = builder.steps.filter((s) => s.kind === 'message' && s.parentStepId === undefined).length;
      const restartAt = builder.steps.length;
      builder.interventions.push({
        id: `${fallbackGate.engine}:restart:${runId}`,
        engine: fallbackGate.engine,
        context: 'run',
        action: 'global-restart',
        reason: `${survived} of ${firstPass} messages survived the audit, fewer than γ = ${fallbackGate.minSurvivors}: the team started over without auditing (the first pass stays in the run, hidden from the agents)`,
        heuristic: false,
        details: { valid: survived, gamma: fallbackGate.minSurvivors, audited: firstPass, restartStep: restartAt },
      });
      builder.restart();
      await roleTurns([], ' (restart without auditing)');
    }
    if (signal?.aborted) throw new Cancelled();
    options.onEvent?.({ type: 'turn', step: turns, agent: DECIDER_ID });
    const decider = speakers.get(DECIDER_ID)!;
    const { input, key, result, startTime, endTime } = await liveTurn(client, decider, task.question, builder.visible, signal);
    builder.addStep(DECIDER_ID, result.text, { origin: 'live', input, key, usage: result.usage, model: result.record.model, llmCallId: result.record.id }, { kind: 'final', startTime, endTime });
    finalText = result.text;
    return { run: builder.build(scoreOutcome(finalText, task), 'complete'), status: 'complete' };
  } catch (e) {
    const cancelled = e instanceof Cancelled || signal?.aborted === true;
    const message = e instanceof Error ? e.message : String(e);
    const status: RunStatus = cancelled ? 'cancelled' : 'failed';
    const cause = e instanceof SupervisionFailed ? e.cause : e;
    return {
      run: builder.build(scoreOutcome(undefined, task), status, cancelled ? 'cancelled' : message),
      status,
      error: cancelled ? 'cancelled' : message,
      endpointFailure: !cancelled && cause instanceof LlmError,
    };
  }
}
