// Whether a run can be forked, and how (SPEC §5.5, ADR 0010): kept apart from the fork itself so the run view can ask
// without loading the runner.
import { isReplayStep, replayStepCount, stepNumber } from '../../model/steps.ts';
import type { Run, Step } from '../../model/types.ts';

const CHAT_KINDS = new Set<Step['kind']>(['message', 'final', 'tool']);
const PROMPT_KINDS = new Set<Step['kind']>(['llm', 'tool']);

export type ForkStyle = 'chat' | 'prompts';

/** "step 1 is a planning step": the step at 0-based replay position `p`, by its 1-based number in the step list. */
function kindOfStep(kind: Step['kind'], p: number): string {
  return `step ${stepNumber(p)} is a${kind === 'action' ? 'n' : ''} ${kind} step`;
}

/**
 * One pass over the rows of the step list (no list built: a run of a million steps is read in its first render):
 * the first row whose kind is not in `kinds`, how many rows there are, and whether a row satisfies `wanted`.
 */
function scanRows(run: Run, kinds: ReadonlySet<Step['kind']>, wanted: (s: Step) => boolean): { rows: number; outside?: { position: number; kind: Step['kind'] }; found: boolean } {
  let rows = 0;
  let found = false;
  for (const step of run.steps) {
    if (!isReplayStep(step)) continue;
    if (!kinds.has(step.kind)) return { rows, outside: { position: rows, kind: step.kind }, found };
    if (!found && wanted(step)) found = true;
    rows++;
  }
  return { rows, found };
}

/** Why a run cannot be forked as a chat (message turns), or undefined when it can. */
export function chatForkProblem(run: Run): string | undefined {
  const { rows, outside, found } = scanRows(run, CHAT_KINDS, (s) => s.kind === 'message' || s.kind === 'final');
  if (outside) return `${kindOfStep(outside.kind, outside.position)}, not a chat turn`;
  if (rows === 0) return 'the run has no steps';
  if (!found) return 'the run has no message turns';
  return undefined;
}

/** Why a run cannot be forked through its recorded prompts (model calls and tool calls only), or undefined. */
export function promptForkProblem(run: Run): string | undefined {
  const { rows, outside, found } = scanRows(run, PROMPT_KINDS, (s) => s.kind === 'llm' && !!s.input && s.input.length > 0);
  if (outside) return kindOfStep(outside.kind, outside.position);
  if (rows === 0) return 'the run has no steps';
  if (!found) return 'no model call has a recorded prompt';
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
  if (replayStepCount(run) === 0) return 'the run has no steps';
  const chat = chatForkProblem(run);
  const prompts = promptForkProblem(run);
  // Both checks often stop at the same step: say it once.
  const why = prompts === undefined || chat?.startsWith(prompts) ? chat : `${chat}; ${prompts}`;
  return (
    `forks need chat turns, or model calls with recorded prompts and tool calls (${why}); ` +
    'agent steps with tool calls and framework-built prompts cannot be re-run in the studio'
  );
}
