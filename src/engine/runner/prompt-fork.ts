// Forks of runs made of model calls with recorded prompts (and tool calls): OTLP and Langfuse traces of LLM
// pipelines (SPEC §5.5, ADR 0010). The framework's prompt building is not known, so a change travels by text: every
// later recorded prompt has each changed output replaced by its new text. A prompt left identical is answered from
// the recording; a changed prompt goes live. A tool call made after a changed model call stops the fork: the studio
// can neither tell its new arguments nor run the tool.
import type { LlmClient } from '../../llm/client.ts';
import { Cancelled } from '../../llm/errors.ts';
import { stepNumber } from '../../model/steps.ts';
import type { ChatMessage, Intervention, Run, Step, TurnOrigin } from '../../model/types.ts';
import type { CallMessage } from './conversation.ts';
import { forkChangeIntervention, RunBuilder, type RunStatus } from './run-builder.ts';
import type { ForkEdit, ForkResult, ForkStats } from './fork-result.ts';

export interface PromptForkOptions {
  forkId: string;
  edit: ForkEdit;
  fromIntervention?: Intervention;
  client?: LlmClient;
  signal?: AbortSignal;
  onTurn?: (position: number, total: number, origin: string) => void;
}

/** What a step said: a model call's output, a tool call's result. */
export function stepText(s: Step): string {
  return s.output ?? s.observation ?? '';
}

/** Chat servers accept system/user/assistant without extra fields; other recorded roles travel as labelled user turns. */
export function sendable(m: Pick<ChatMessage, 'role' | 'content' | 'name'>): CallMessage {
  if (m.role === 'system' || m.role === 'user' || m.role === 'assistant') return { role: m.role, content: m.content };
  return { role: 'user', content: `[${m.role}${m.name ? ` ${m.name}` : ''}] ${m.content}` };
}

export async function forkRecordedPrompts(parent: Run, top: Step[], k: number, options: PromptForkOptions): Promise<ForkResult> {
  const forkStep = top[k];
  const builder = new RunBuilder(options.forkId, parent.task ?? '', parent.agents, {
    title: `Fork of ${parent.title} at step ${stepNumber(k)}`,
    sourceFormat: 'runner',
    framework: `fork of ${parent.framework ?? parent.sourceFormat} (recorded prompts)`,
    tags: { ...parent.tags },
  });
  const stats: ForkStats = { copied: 0, replayed: 0, live: 0, edited: 0, toolReplayed: 0, scripted: 0 };
  const replacements: [string, string][] = [];
  /** The last model call before here changed, so tool calls made from it cannot be trusted to be the same. */
  let upstreamChanged = false;
  const substitute = (text: string) => {
    let t = text;
    for (const [from, to] of replacements) if (from !== '' && t.includes(from)) t = t.split(from).join(to);
    return t;
  };
  const put = (s: Step, origin: TurnOrigin, patch: Partial<Step> = {}): Step => {
    const i = builder.steps.length;
    const { parentStepId: _nested, ...rest } = s;
    void _nested;
    const step: Step = { ...rest, id: `${options.forkId}:s${i}`, index: i, agentRunId: `${options.forkId}:run:${s.agentId}`, ...patch };
    step.runner = { ...s.runner, ...patch.runner, origin };
    builder.steps.push(step);
    return step;
  };
  const parentInterventions = new Map<string, Intervention[]>();
  for (const iv of parent.interventions) if (iv.stepId) parentInterventions.set(iv.stepId, [...(parentInterventions.get(iv.stepId) ?? []), iv]);
  const carry = (s: Step, step: Step) => {
    for (const iv of parentInterventions.get(s.id) ?? []) builder.interventions.push({ ...iv, id: `${iv.id}@${step.id}`, stepId: step.id });
  };

  // Widened on purpose: `stop` sets it from a closure, which narrowing does not see.
  let status = 'complete' as RunStatus;
  let reason: string | undefined;
  let stoppedAt: number | undefined;
  const stop = (s: Step, p: number, why: string) => {
    status = 'stopped';
    stoppedAt = stepNumber(p);
    reason = `step ${stepNumber(p)} (${s.name ?? s.agentId}): ${why}; the fork stops here`;
  };
  try {
    for (let p = 0; p < top.length; p++) {
      if (options.signal?.aborted) throw new Cancelled();
      const s = top[p];
      if (p < k) {
        carry(s, put(s, 'recorded'));
        stats.copied++;
        options.onTurn?.(p, top.length, 'copied');
        continue;
      }
      if (p === k && options.edit.kind !== 'none') {
        const original = stepText(s);
        const edit = options.edit;
        const text = edit.kind === 'replace' ? edit.text : edit.kind === 'append' ? `${original}${edit.text}` : '';
        const field = s.output !== undefined || s.kind === 'llm' ? 'output' : 'observation';
        const step = put(s, 'edited', { [field]: text, usage: undefined, runner: { editedFrom: original, edit: edit.kind } });
        builder.interventions.push(
          forkChangeIntervention(step.id, edit.kind, 'output', { originalObservation: original, newObservation: text }, options.fromIntervention),
        );
        if (text !== original) {
          replacements.push([original, text]);
          upstreamChanged = s.kind === 'llm' || upstreamChanged;
        }
        stats.edited++;
        options.onTurn?.(p, top.length, 'edited');
        continue;
      }
      if (s.kind === 'tool') {
        const request = [s.inputText ?? '', ...(s.toolCalls ?? []).map((c) => c.arguments)];
        if (request.some((r) => substitute(r) !== r)) {
          stop(s, p, 'its input contains text that changed, and the studio cannot run the tool');
          break;
        }
        if (upstreamChanged) {
          stop(s, p, 'a tool call made after a changed model call: the studio cannot tell its new arguments or run the tool');
          break;
        }
        carry(s, put(s, 'tool-replay'));
        stats.toolReplayed++;
        options.onTurn?.(p, top.length, 'tool-replay');
        continue;
      }
      const recorded = s.input ?? [];
      if (recorded.length === 0) {
        if (replacements.length > 0) {
          stop(s, p, 'this model call has no recorded prompt, so the change cannot be carried into it');
          break;
        }
        carry(s, put(s, 'recorded'));
        stats.replayed++;
        continue;
      }
      const input = recorded.map((m) => ({ ...m, content: substitute(m.content) }));
      if (input.every((m, i) => m.content === recorded[i].content)) {
        carry(s, put(s, 'recorded'));
        stats.replayed++;
        upstreamChanged = false;
        options.onTurn?.(p, top.length, 'recorded');
        continue;
      }
      if (!options.client) {
        stop(s, p, 'its prompt changed, so it needs a live call, and no endpoint is configured');
        break;
      }
      const startTime = Date.now();
      const result = await options.client.chat({ role: 'agents', messages: input.map(sendable) }, options.signal);
      put(s, 'live', {
        input,
        output: result.text,
        usage: result.usage,
        model: result.record.model,
        startTime,
        endTime: Date.now(),
        toolCalls: undefined,
        runner: { llmCallId: result.record.id, recordedOutput: stepText(s) },
      });
      const original = stepText(s);
      upstreamChanged = result.text !== original;
      if (upstreamChanged && original !== '') replacements.push([original, result.text]);
      stats.live++;
      options.onTurn?.(p, top.length, 'live');
    }
  } catch (e) {
    const cancelled = e instanceof Cancelled || options.signal?.aborted === true;
    status = cancelled ? 'cancelled' : 'failed';
    reason = cancelled ? 'cancelled' : e instanceof Error ? e.message : String(e);
  }
  const outcome: Run['outcome'] = { status: 'unknown' };
  if (parent.outcome.referenceAnswer !== undefined) outcome.referenceAnswer = parent.outcome.referenceAnswer;
  const run = builder.build(outcome, status, reason, { parentRunId: parent.id, forkStepId: forkStep.id });
  if (status !== 'complete') run.title += status === 'stopped' ? ` (stopped at step ${stoppedAt})` : ` (${status})`;
  run.live = { ...run.live!, forkStats: stats, forkStyle: 'prompts' };
  return { run, status, reason, stats };
}
