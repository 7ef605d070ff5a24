// Whether a run can be forked, and how (SPEC §5.5, ADR 0010): kept apart from the fork itself so the run view can ask
// without loading the runner.
import { replaySteps, stepNumber } from '../../model/steps.ts';
import type { Run, Step } from '../../model/types.ts';

const CHAT_KINDS = new Set<Step['kind']>(['message', 'final', 'tool']);
const PROMPT_KINDS = new Set<Step['kind']>(['llm', 'tool']);

export type ForkStyle = 'chat' | 'prompts';

/** "step 1 is a planning step": the step named by its 1-based number in the step list. */
function kindOfStep(top: readonly Step[], p: number): string {
  const kind = top[p].kind;
  return `step ${stepNumber(p)} is a${kind === 'action' ? 'n' : ''} ${kind} step`;
}

/** Why a run cannot be forked as a chat (message turns), or undefined when it can. */
export function chatForkProblem(run: Run): string | undefined {
  const top = replaySteps(run);
  if (top.length === 0) return 'the run has no steps';
  const p = top.findIndex((s) => !CHAT_KINDS.has(s.kind));
  if (p >= 0) return `${kindOfStep(top, p)}, not a chat turn`;
  if (!top.some((s) => s.kind === 'message' || s.kind === 'final')) return 'the run has no message turns';
  return undefined;
}

/** Why a run cannot be forked through its recorded prompts (model calls and tool calls only), or undefined. */
export function promptForkProblem(run: Run): string | undefined {
  const top = replaySteps(run);
  if (top.length === 0) return 'the run has no steps';
  const p = top.findIndex((s) => !PROMPT_KINDS.has(s.kind));
  if (p >= 0) return kindOfStep(top, p);
  if (!top.some((s) => s.kind === 'llm' && s.input && s.input.length > 0)) return 'no model call has a recorded prompt';
  return undefined;
}

export function forkStyle(run: Run): ForkStyle | undefined {
  if (chatForkProblem(run) === undefined) return 'chat';
  if (promptForkProblem(run) === undefined) return 'prompts';
  return undefined;
}

/** Why a run cannot be forked, or undefined when it can. */
export function forkProblem(run: Run): string | undefined {
  if (forkStyle(run) !== undefined) return undefined;
  if (replaySteps(run).length === 0) return 'the run has no steps';
  const chat = chatForkProblem(run);
  const prompts = promptForkProblem(run);
  // Both checks often stop at the same step: say it once.
  const why = prompts === undefined || chat?.startsWith(prompts) ? chat : `${chat}; ${prompts}`;
  return (
    `forks need chat turns, or model calls with recorded prompts and tool calls (${why}); ` +
    'agent steps with tool calls and framework-built prompts cannot be re-run in the studio'
  );
}
