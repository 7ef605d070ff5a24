// A loaded file handed from the import worker to the page in parts (ADR 0020): the parts and the page's FileAssembler
// (the worker's side is send-parts.ts). Types only from the importers, so the page's first-paint JS does not pull them
// (and the tokenizer) in through this module.
import type { LoadedFile } from '../import/index.ts';
import type { Handoff, Step } from '../model/types.ts';
import { rebuild, RunStrings, type ColumnSlice } from '../model/step-columns.ts';

/** Steps per message: each slice is a short task to receive on the page, whatever the run's length. */
export const STEP_SLICE = 2000;

/**
 * A file in parts, as the page receives it: the file with its runs as shells (every field but the steps and handoffs,
 * and without the source spans when the worker stores them), then each run's steps and handoffs in slices (a chat log
 * has a handoff per message: a million of them in one message was a block of seconds on the page), then its end.
 */
export type FilePart =
  | { kind: 'file'; file: LoadedFile }
  /** A slice of steps in columns (ADR 0029: step-columns.ts), rebuilt on the page as the worker's steps. */
  | { kind: 'steps'; run: number; steps: ColumnSlice }
  /**
   * A slice of handoffs in columns (LeanHandoff records): those whose content (and/or `to`) is their step's output
   * (recipients) name that step's index instead (leanHandoff).
   */
  | { kind: 'handoffs'; run: number; handoffs: ColumnSlice }
  /**
   * A slice of handoffs the page makes from their steps (ADR 0067): handoff i is `{ id: ids[i], from: its step's agent,
   * to: the step's recipients, kind: kindNames[kinds[i]], stepId: the step's id, content: the step's output }`, its step
   * at position steps[i] of the run; `first` is the place of the first in the run's handoffs. A chat log's handoffs are
   * all so made (RunBuilder.addHandoff).
   */
  | { kind: 'step-handoffs'; run: number; first: number; ids: string[]; steps: Int32Array; kinds: Uint8Array; kindNames: string[] }
  /** The steps (and handoffs) each run should now have: a slice lost on the way (not cloneable) leaves the file unfinished. */
  | { kind: 'end'; steps: number[]; handoffs?: number[] };

/**
 * A handoff as it crosses: a chat log's handoff carries its step's output as content and its recipients as `to`
 * (ADR 0026, shared strings); a clone would give the page two copies of each. Here `content` (and `to`) is then the
 * index of that step in its run (a number, which a handoff's own fields never are), the rest as it was, in its order.
 * A handoff whose step is in the run names it by that index too (`stepId`): the page takes the received step's id.
 */
export type LeanHandoff = Omit<Handoff, 'content' | 'to' | 'stepId'> & { content: string | number; to: string[] | number; stepId?: string | number };

/**
 * The page's side of leanHandoff: the content is the received step's output (one string on the page, not two), `to`
 * its recipients (one array).
 */
function fullHandoff(lean: LeanHandoff, steps: readonly Step[]): Handoff {
  if (typeof lean.content !== 'number' && typeof lean.to !== 'number' && typeof lean.stepId !== 'number') return lean as Handoff;
  const handoff = lean as Record<string, unknown>;
  if (typeof lean.stepId === 'number') handoff.stepId = stepAt(steps, lean.stepId).id;
  if (typeof lean.content === 'number') handoff.content = stepAt(steps, lean.content).output;
  // The step's own recipients array, not a copy: a chat log has a handoff per message, and a million one-name
  // arrays were ~30 MB of the page's heap and a million more objects for each of its young-generation collections
  // to copy while the steps arrive. Neither side is changed in place (runs are replaced, never edited).
  if (typeof lean.to === 'number') handoff.to = stepAt(steps, lean.to).recipients ?? [];
  return handoff as Handoff;
}

/** How many steps or handoffs a part brings (0 for the file and its end). */
export function partRows(part: FilePart): number {
  if (part.kind === 'steps') return part.steps.rows;
  if (part.kind === 'handoffs') return part.handoffs.rows;
  if (part.kind === 'step-handoffs') return part.steps.length;
  return 0;
}

function stepAt(steps: readonly Step[], at: number): Step {
  const step = steps[at];
  if (!step) throw new Error('a handoff names a step that did not arrive');
  return step;
}

/** The page's side of sendInParts: the file put back together. */
export class FileAssembler {
  private file: LoadedFile | undefined;
  /** Each run's string table (the slices name its strings by index). */
  private strings: RunStrings[] = [];

  /** The finished file at its end part, else undefined. */
  take(part: FilePart): LoadedFile | undefined {
    if (part.kind === 'file') {
      this.file = part.file;
      this.strings = part.file.runs.map(() => new RunStrings());
      return undefined;
    }
    const file = this.file;
    if (!file) throw new Error(`a ${part.kind} part arrived before its file`);
    if (part.kind === 'steps') {
      const into = file.runs[part.run].steps;
      for (const step of rebuild<Step>(part.steps, this.strings[part.run])) into.push(step);
      return undefined;
    }
    if (part.kind === 'handoffs') {
      const { handoffs: into, steps } = file.runs[part.run];
      for (const handoff of rebuild<LeanHandoff>(part.handoffs, this.strings[part.run])) into.push(fullHandoff(handoff, steps));
      return undefined;
    }
    if (part.kind === 'step-handoffs') {
      const { handoffs: into, steps } = file.runs[part.run];
      if (part.first !== into.length) throw new Error('some of its handoffs did not arrive');
      const { ids, steps: at, kinds, kindNames } = part;
      if (ids.length !== at.length) throw new Error('a slice of handoffs does not match its steps');
      for (let i = 0; i < at.length; i++) {
        const step = stepAt(steps, at[i]);
        into.push({ id: ids[i], from: step.agentId, to: step.recipients ?? [], kind: kindNames[kinds[i]] as Handoff['kind'], stepId: step.id, content: step.output ?? '' });
      }
      return undefined;
    }
    this.file = undefined;
    this.strings = [];
    if (file.runs.some((r, i) => r.steps.length !== part.steps[i])) throw new Error('some of its steps did not arrive');
    if (part.handoffs && file.runs.some((r, i) => r.handoffs.length !== part.handoffs![i])) throw new Error('some of its handoffs did not arrive');
    return file;
  }
}
