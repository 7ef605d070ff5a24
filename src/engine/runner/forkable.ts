// Whether a run can be forked (SPEC §5.5): kept apart from the fork itself so the run view can ask without loading
// the runner.
import type { Run, Step } from '../../model/types.ts';

const FORKABLE_KINDS = new Set<Step['kind']>(['message', 'final', 'tool']);

/** Why a run cannot be forked, or undefined when it can. */
export function forkProblem(run: Run): string | undefined {
  const top = run.steps.filter((s) => s.parentStepId === undefined);
  if (top.length === 0) return 'the run has no steps';
  const other = top.find((s) => !FORKABLE_KINDS.has(s.kind));
  if (other) {
    return `forks need a chat-style run (message turns); step ${other.index} is a${other.kind === 'action' ? 'n' : ''} ${other.kind} step, whose tool calls and prompts the studio cannot re-run`;
  }
  if (!top.some((s) => s.kind === 'message' || s.kind === 'final')) return 'the run has no message turns';
  return undefined;
}
