// Whether a run can be forked, and how (SPEC §5.5, ADR 0010): kept apart from the fork itself so the run view can ask
// without loading the runner.
import { stepFacts } from '../../model/step-facts.ts';
import { stepNumber } from '../../model/steps.ts';
import type { Run, Step } from '../../model/types.ts';

const CHAT_KINDS = new Set<Step['kind']>(['message', 'final', 'tool']);
const PROMPT_KINDS = new Set<Step['kind']>(['llm', 'tool']);

export type ForkStyle = 'chat' | 'prompts';

/** "step 1 is a planning step": the step at 0-based replay position `p`, by its 1-based number in the step list. */
function kindOfStep(kind: Step['kind'], p: number): string {
  return `step ${stepNumber(p)} is a${kind === 'action' ? 'n' : ''} ${kind} step`;
}

/**
 * What the step list says about forking (read from the run's step facts, src/model/step-facts.ts: counted once per
 * run, by the import worker for a run it handed over, so that a run of a million rows is not scanned on each open):
 * the first row whose kind is not in `kinds`, how many rows there are, and whether a row is `wanted` (a message turn
 * or final answer for chats, a model call with a recorded prompt for prompts).
 */
function rowCheck(run: Run, kinds: ReadonlySet<Step['kind']>, wanted: 'turn' | 'prompt'): { rows: number; outside?: { position: number; kind: Step['kind'] }; found: boolean } {
  const facts = stepFacts(run);
  let outside: { position: number; kind: Step['kind'] } | undefined;
  for (const [kind, { first }] of facts.kinds) {
    if (!kinds.has(kind) && (outside === undefined || first < outside.position)) outside = { position: first, kind };
  }
  if (outside) return { rows: outside.position, outside, found: false };
  const found = wanted === 'turn' ? facts.kinds.has('message') || facts.kinds.has('final') : facts.firstPromptedCall >= 0;
  return { rows: facts.rows, found };
}

/** Why a run cannot be forked as a chat (message turns), or undefined when it can. */
export function chatForkProblem(run: Run): string | undefined {
  const { rows, outside, found } = rowCheck(run, CHAT_KINDS, 'turn');
  if (outside) return `${kindOfStep(outside.kind, outside.position)}, not a chat turn`;
  if (rows === 0) return 'the run has no steps';
  if (!found) return 'the run has no message turns';
  return undefined;
}

/** Why a run cannot be forked through its recorded prompts (model calls and tool calls only), or undefined. */
export function promptForkProblem(run: Run): string | undefined {
  const { rows, outside, found } = rowCheck(run, PROMPT_KINDS, 'prompt');
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
  if (stepFacts(run).rows === 0) return 'the run has no steps';
  const chat = chatForkProblem(run);
  const prompts = promptForkProblem(run);
  // Both checks often stop at the same step: say it once.
  const why = prompts === undefined || chat?.startsWith(prompts) ? chat : `${chat}; ${prompts}`;
  return (
    `forks need chat turns, or model calls with recorded prompts and tool calls (${why}); ` +
    'agent steps with tool calls and framework-built prompts cannot be re-run in the studio'
  );
}
