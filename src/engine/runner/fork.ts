// Fork-and-continue (SPEC §5.5, ADR 0010): copy a chat-style run up to step k, apply an edit or an engine's
// intervention at k, then walk the parent's turns again. A model turn whose call input (role prompt + visible
// conversation) is unchanged is answered from the recording; the first changed input goes live. Tool turns (agents
// that act on the world: executors, browsers) are replayed when the message that asked them is identical, else the
// fork stops there and says why. Human turns are replayed as recorded.
import { ownValue } from '../../model/record.ts';
import type { LlmClient } from '../../llm/client.ts';
import { Cancelled } from '../../llm/errors.ts';
import { hashText } from '../../model/hash.ts';
import { stepNumber } from '../../model/steps.ts';
import type { Agent, Intervention, Outcome, Run, Step } from '../../model/types.ts';
import { callKey, pendingFor, toolKey, turnInput, type Speaker, type VisibleTurn } from './conversation.ts';
import type { MessageGate } from './gates.ts';
import { ANSWER_LINE, recordedAgentPrompt } from './prompts.ts';
import { applyGates, forkChangeIntervention, RunBuilder, type RunStatus } from './run-builder.ts';
import { scoreOutcome } from './runner.ts';
import { answersMatch } from './scoring.ts';
import { chatForkProblem, forkProblem, promptForkProblem } from './forkable.ts';
import type { ForkEdit, ForkResult, ForkStats } from './fork-result.ts';
import { forkRecordedPrompts } from './prompt-fork.ts';
import { clarificationOf } from '../clarifier/pass.ts';
import { rectifierAudit } from '../rectifier/details.ts';
import { observationChangeOf } from './edit-details.ts';

export { forkProblem };
export type { ForkEdit, ForkResult, ForkStats };

export type TurnTreatment = 'model' | 'tool' | 'scripted';

export interface ForkOptions {
  /** The step k to fork at (a top-level step of the parent). */
  stepId: string;
  edit: ForkEdit;
  /** The engine intervention the edit comes from, if any: copied onto the fork's step k. */
  fromIntervention?: Intervention;
  /** Endpoint for changed calls; without one the fork stops at the first changed call. */
  client?: LlmClient;
  gates?: readonly MessageGate[];
  gateClient?: LlmClient;
  signal?: AbortSignal;
  forkId?: string;
  /** Override how an agent's turns are treated (defaults: see `defaultTreatment`). */
  treatments?: Record<string, TurnTreatment>;
  onTurn?: (position: number, total: number, origin: string) => void;
}

/** Agents that act on the world (code executors, browsers, tools) are tools; humans are replayed; the rest are models. */
export function defaultTreatment(agent: Agent | undefined, step: Step): TurnTreatment {
  if (step.kind === 'tool') return 'tool';
  if (agent?.kind === 'human') return 'scripted';
  if (agent?.kind === 'system') return 'tool';
  if (/surfer|browser|terminal|executor|computer|tool/i.test(step.agentId)) return 'tool';
  return 'model';
}

export function speakerFor(agent: Agent | undefined, agentId: string): Speaker {
  const prompt = agent?.description?.trim() ? agent.description : recordedAgentPrompt(agent?.name ?? agentId);
  return { id: agentId, prompt };
}

/** Build an edit from an engine's intervention on a step (see ADR 0011 for the details fields each engine sets). */
export function editFromIntervention(iv: Intervention): ForkEdit | undefined {
  const audit = rectifierAudit(iv);
  if (iv.engine === 'rectifier' && (iv.action === 'reject' || iv.action === 'prune' || audit?.finalState === 'rejected')) return { kind: 'prune' };
  const replaced = observationChangeOf(iv).newObservation ?? audit?.revisedMessage ?? clarificationOf(iv)?.revisedMessage;
  if (replaced !== undefined) return { kind: 'replace', text: replaced };
  if (iv.engine === 'clarifier') {
    const c = clarificationOf(iv);
    const q = c?.question;
    const reply = c?.reply;
    if (reply !== undefined) return { kind: 'append', text: `\n\n[Clarification${q ? ` — asked: ${q}` : ''}]\n${reply}` };
  }
  return undefined;
}

/** What the agent said, before any engine revised it. */
function producedText(s: Step): string {
  return s.runner?.produced ?? s.output ?? '';
}

function taskOf(run: Run, top: Step[]): string {
  return run.task ?? top[0]?.output ?? '';
}

function finalOutcome(parent: Run, steps: Step[]): Outcome {
  const finalStep = [...steps].reverse().find((s) => s.kind === 'final');
  if (finalStep && parent.sourceFormat === 'runner') {
    const domain = parent.tags.domain === 'code' ? 'code' : 'math';
    return scoreOutcome(finalStep.output, { answer: parent.outcome.referenceAnswer, domain });
  }
  const outcome: Outcome = { status: 'unknown' };
  if (parent.outcome.referenceAnswer !== undefined) outcome.referenceAnswer = parent.outcome.referenceAnswer;
  for (let i = steps.length - 1; i >= 0; i--) {
    const m = new RegExp(`${ANSWER_LINE}\\s*(.+)`).exec(steps[i].output ?? '');
    if (m) {
      outcome.finalAnswer = m[1].trim();
      break;
    }
  }
  if (outcome.finalAnswer !== undefined && outcome.referenceAnswer !== undefined) {
    const ok = answersMatch(outcome.finalAnswer, outcome.referenceAnswer);
    if (ok !== undefined) outcome.status = ok ? 'success' : 'failure';
  }
  return outcome;
}

export async function forkRun(parent: Run, options: ForkOptions): Promise<ForkResult> {
  const problem = forkProblem(parent);
  if (problem) throw new Error(`cannot fork ${parent.title}: ${problem}`);
  const top = parent.steps.filter((s) => s.parentStepId === undefined);
  const k = top.findIndex((s) => s.id === options.stepId);
  if (k === -1) throw new Error(`cannot fork ${parent.title}: step ${options.stepId} is not a top-level step of the run`);
  const newForkId = () => `fork-${hashText(`${parent.id}\n${options.stepId}\n${JSON.stringify(options.edit)}\n${Date.now()}`)}`;
  if (chatForkProblem(parent) !== undefined && promptForkProblem(parent) === undefined) {
    return forkRecordedPrompts(parent, top, k, { ...options, forkId: options.forkId ?? newForkId() });
  }
  const agentById = new Map(parent.agents.map((a) => [a.id, a]));
  // Keyed by agent names from the trace, and a structured clone by now (with a prototype): own keys only.
  const treat = (s: Step) => (options.treatments && ownValue(options.treatments, s.agentId)) ?? defaultTreatment(agentById.get(s.agentId), s);
  const speaker = (id: string) => speakerFor(agentById.get(id), id);
  const task = taskOf(parent, top);

  // The recording: each model turn's answer under the key of the input it was given, tool turns under their requests.
  const recorded = new Map<string, number[]>();
  const parentVisible: VisibleTurn[] = [];
  const keyAt: string[] = [];
  for (const [p, s] of top.entries()) {
    const t = treat(s);
    const key = t === 'model' ? callKey(s.agentId, turnInput(speaker(s.agentId), task, parentVisible)) : t === 'tool' ? toolKey(s.agentId, pendingFor(s.agentId, parentVisible)) : '';
    keyAt.push(key);
    if (key) recorded.set(key, [...(recorded.get(key) ?? []), p]);
    if (s.runner?.pruned !== true) parentVisible.push({ speaker: s.agentId, content: s.output ?? '' });
  }
  /**
   * The recorded answer for a key at position p: the parent's own turn at p when its key matches (the usual case),
   * else the first recorded turn with that key at or after p, else the last one before it.
   */
  const fromRecording = (key: string, p: number): Step | undefined => {
    if (keyAt[p] === key) return top[p];
    const at = recorded.get(key);
    if (!at) return undefined;
    return top[at.find((q) => q >= p) ?? at[at.length - 1]];
  };

  const forkId = options.forkId ?? newForkId();
  const forkStep = top[k];
  const builder = new RunBuilder(forkId, task, parent.agents, {
    title: `Fork of ${parent.title} at step ${stepNumber(k)}`,
    sourceFormat: 'runner',
    framework: `fork of ${parent.framework ?? parent.sourceFormat}`,
    tags: { ...parent.tags },
  });
  const stats: ForkStats = { copied: 0, replayed: 0, live: 0, edited: 0, toolReplayed: 0, scripted: 0 };
  const gateOptions = { gates: options.gates ?? [], client: options.gateClient ?? options.client, signal: options.signal, speakerOf: speaker };
  const copyFields = (s: Step): Partial<Step> => {
    const extra: Partial<Step> = { kind: s.kind };
    if (s.name !== undefined) extra.name = s.name;
    if (s.startTime !== undefined) extra.startTime = s.startTime;
    if (s.endTime !== undefined) extra.endTime = s.endTime;
    return extra;
  };
  const recordedSource = (s: Step, origin: 'recorded' | 'scripted' | 'tool-replay', key?: string) => ({
    origin,
    usage: s.usage,
    model: s.model,
    key,
    input: s.input?.map((m) => ({ role: m.role, content: m.content })),
  });

  const interventionsOf = new Map<string, Intervention[]>();
  for (const iv of parent.interventions) {
    if (iv.stepId === undefined) continue;
    interventionsOf.set(iv.stepId, [...(interventionsOf.get(iv.stepId) ?? []), iv]);
  }
  /** Deliver (or prune) a new step as the parent's step `s` was, with the parent's interventions on it. */
  const replayInto = (s: Step, step: Step) => {
    for (const iv of interventionsOf.get(s.id) ?? []) builder.interventions.push({ ...iv, id: `${iv.id}@${step.id}`, stepId: step.id });
    if (s.runner?.pruned === true) builder.prune(step);
    else builder.deliver(step, s.output ?? '');
  };

  let status: RunStatus = 'complete';
  let reason: string | undefined;
  let stoppedAt: number | undefined;
  try {
    for (let p = 0; p < top.length; p++) {
      if (options.signal?.aborted) throw new Cancelled();
      const s = top[p];
      const t = treat(s);
      const label = `step ${stepNumber(p)} (${s.agentId})`;
      if (p < k) {
        replayInto(s, builder.addStep(s.agentId, producedText(s), recordedSource(s, 'recorded', keyAt[p] || undefined), copyFields(s)));
        stats.copied++;
        options.onTurn?.(p, top.length, 'copied');
        continue;
      }
      if (p === k && options.edit.kind !== 'none') {
        const original = s.output ?? '';
        const edit = options.edit;
        const text = edit.kind === 'replace' ? edit.text : edit.kind === 'append' ? `${original}${edit.text}` : original;
        // A hand edit costs no model tokens: the recorded usage belonged to the text it replaced.
        const step = builder.addStep(s.agentId, text, { origin: 'edited' }, copyFields(s));
        step.runner = { ...step.runner, editedFrom: original, edit: edit.kind };
        const details = { originalObservation: original, ...(edit.kind === 'prune' ? {} : { newObservation: text }) };
        const iv = forkChangeIntervention(step.id, edit.kind, 'message', details, options.fromIntervention);
        builder.interventions.push(iv);
        if (edit.kind === 'prune') builder.prune(step);
        else builder.deliver(step, text);
        stats.edited++;
        options.onTurn?.(p, top.length, 'edited');
        continue;
      }
      if (t === 'scripted') {
        builder.deliver(builder.addStep(s.agentId, s.output ?? '', recordedSource(s, 'scripted'), copyFields(s)), s.output ?? '');
        stats.scripted++;
        options.onTurn?.(p, top.length, 'scripted');
        continue;
      }
      if (t === 'tool') {
        const key = toolKey(s.agentId, pendingFor(s.agentId, builder.visible));
        const hit = fromRecording(key, p);
        if (!hit) {
          status = 'stopped';
          stoppedAt = stepNumber(p);
          reason = `${label}: ${s.agentId} acts through tools the studio cannot run in the browser, and what it was asked since its last turn has changed; the fork stops here`;
          break;
        }
        builder.deliver(builder.addStep(s.agentId, hit.output ?? '', recordedSource(hit, 'tool-replay', key), copyFields(s)), hit.output ?? '');
        stats.toolReplayed++;
        options.onTurn?.(p, top.length, 'tool-replay');
        continue;
      }
      const input = turnInput(speaker(s.agentId), task, builder.visible);
      const key = callKey(s.agentId, input);
      const hit = fromRecording(key, p);
      let step: Step;
      if (hit) {
        // The recorded answer, with what the parent's engines did to it: replayed turns reproduce the parent exactly.
        replayInto(hit, builder.addStep(s.agentId, producedText(hit), { ...recordedSource(hit, 'recorded', key), input }, copyFields(s)));
        stats.replayed++;
        options.onTurn?.(p, top.length, 'recorded');
        continue;
      } else {
        if (!options.client) {
          status = 'stopped';
          stoppedAt = stepNumber(p);
          reason = `${label}: its input changed, so it needs a live call, and no endpoint is configured`;
          break;
        }
        const startTime = Date.now();
        const result = await options.client.chat({ role: 'agents', messages: input }, options.signal);
        step = builder.addStep(
          s.agentId,
          result.text,
          { origin: 'live', input, key, usage: result.usage, model: result.record.model, llmCallId: result.record.id },
          { ...copyFields(s), startTime, endTime: Date.now() },
        );
        stats.live++;
        options.onTurn?.(p, top.length, 'live');
      }
      const delivered = s.kind === 'final' ? step.output : await applyGates(builder, step, gateOptions);
      if (delivered === undefined) builder.prune(step);
      else builder.deliver(step, delivered);
    }
  } catch (e) {
    const cancelled = e instanceof Cancelled || options.signal?.aborted === true;
    status = cancelled ? 'cancelled' : 'failed';
    reason = cancelled ? 'cancelled' : e instanceof Error ? e.message : String(e);
  }
  const run = builder.build(finalOutcome(parent, builder.steps), status, reason, { parentRunId: parent.id, forkStepId: forkStep.id });
  // The title says when a fork ended early, so every view that lists it (compare's pickers, the corpus) shows it.
  if (status !== 'complete') run.title += status === 'stopped' ? ` (stopped at step ${stoppedAt})` : ` (${status})`;
  run.live = { ...run.live!, forkStats: stats };
  return { run, status, reason, stats };
}
