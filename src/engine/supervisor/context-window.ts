// The supervisor's context window W (SPEC §5.1): agent name, global task, local task, a local trace of the agent
// run's recent steps and a summary of the current step; for `inefficient`, also a global trace of all agents.
// Everything is cut to a bounded size so a long run cannot blow up the supervisor's own prompt.
import type { RunIndex } from '../../model/run-index.ts';
import type { Step } from '../../model/types.ts';
import { describeSignature, type SupervisorContext } from './filter.ts';

export interface ContextWindow {
  agentName: string;
  globalTask: string;
  localTask: string;
  localTrace: string;
  summary: string;
  /** Only for `inefficient`. */
  globalTrace?: string;
}

export const WINDOW_LIMITS = {
  localSteps: 6,
  globalSteps: 30,
  traceLineChars: 300,
  summaryFieldChars: 4000,
  taskChars: 3000,
};

export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)} …[${text.length - max} more characters]`;
}

export function agentNameOf(index: RunIndex, step: Step): string {
  return index.agentById.get(step.agentId)?.name ?? step.agentId;
}

export function formatCall(call: { name: string; arguments: string }, max = 200): string {
  return `${call.name}(${clip(call.arguments.replace(/\s+/g, ' '), max)})`;
}

function traceLine(index: RunIndex, step: Step, withAgent: boolean): string {
  const calls = describeSignature(step).map((c) => formatCall(c, 120)).join('; ');
  const outcome = step.error ? `error: ${step.error.message}` : `observation: ${step.observation ?? '(none)'}`;
  const who = withAgent ? `[${agentNameOf(index, step)}] ` : '';
  return clip(`${who}Step ${step.number ?? '?'}: ${calls} → ${outcome.replace(/\s+/g, ' ')}`, WINDOW_LIMITS.traceLineChars);
}

/** Action steps before `step` in the run, optionally only those of the same agent run. */
function earlierActions(index: RunIndex, step: Step, sameRun: boolean, limit: number): Step[] {
  const out: Step[] = [];
  const key = step.agentRunId ?? step.agentId;
  const steps = index.run.steps;
  const at = steps[step.index] === step ? step.index : steps.indexOf(step);
  for (let i = at - 1; i >= 0 && out.length < limit; i--) {
    const s = steps[i];
    if (s === undefined || s.kind !== 'action') continue;
    if (sameRun && (s.agentRunId ?? s.agentId) !== key) continue;
    out.push(s);
  }
  return out.reverse();
}

export function summarizeStep(step: Step, observationChars = WINDOW_LIMITS.summaryFieldChars): string {
  const parts: string[] = [];
  const thought = step.thought ?? step.output;
  if (thought) parts.push(`Thought and action:\n${clip(thought, WINDOW_LIMITS.summaryFieldChars)}`);
  const calls = step.toolCalls ?? [];
  if (calls.length > 0) parts.push(`Tool calls:\n${calls.map((c) => `- ${formatCall(c, 1000)}`).join('\n')}`);
  if (step.error) parts.push(`Error${step.error.type ? ` (${step.error.type})` : ''}:\n${clip(step.error.message, 2000)}`);
  parts.push(`Observation:\n${step.observation === undefined ? '(none)' : clip(step.observation, observationChars)}`);
  return parts.join('\n\n');
}

export function buildContextWindow(index: RunIndex, step: Step, context: SupervisorContext): ContextWindow {
  const agentRun = step.agentRunId ? index.run.agentRuns.find((r) => r.id === step.agentRunId) : undefined;
  const local = earlierActions(index, step, true, WINDOW_LIMITS.localSteps);
  const w: ContextWindow = {
    agentName: agentNameOf(index, step),
    globalTask: clip(index.run.task ?? '(not recorded)', WINDOW_LIMITS.taskChars),
    localTask: clip(agentRun?.task ?? index.run.task ?? '(not recorded)', WINDOW_LIMITS.taskChars),
    localTrace: local.length === 0 ? '(this is the first step)' : local.map((s) => traceLine(index, s, false)).join('\n'),
    // The synthesis prompt needs the whole report; elsewhere a bounded excerpt is enough to judge.
    summary: summarizeStep(step, context === 'subagent_completion' ? 60_000 : WINDOW_LIMITS.summaryFieldChars),
  };
  if (context === 'inefficient') {
    const all = earlierActions(index, step, false, WINDOW_LIMITS.globalSteps);
    w.globalTrace = [...all, step].map((s) => traceLine(index, s, true)).join('\n');
  }
  return w;
}
