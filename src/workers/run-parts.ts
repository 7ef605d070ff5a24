// A loaded file handed from the import worker to the page in parts (ADR 0020): the worker's sendInParts and the
// page's FileAssembler. Types only from the importers, so the page's first-paint JS does not pull them (and the
// tokenizer) in through this module.
import type { LoadedFile } from '../import/index.ts';
import type { Handoff, Run, Step } from '../model/types.ts';
import { stepRawSplitter } from '../model/session-spans.ts';

/** Steps per message: each slice is a short task to receive on the page, whatever the run's length. */
export const STEP_SLICE = 2000;

/**
 * A file in parts, as the page receives it: the file with its runs as shells (every field but the steps and handoffs,
 * and without the source spans when the worker stores them), then each run's steps and handoffs in slices (a chat log
 * has a handoff per message: a million of them in one message was a block of seconds on the page), then its end.
 */
export type FilePart =
  | { kind: 'file'; file: LoadedFile }
  | { kind: 'steps'; run: number; steps: Step[] }
  /** Handoffs whose content (and/or `to`) is their step's output (recipients) name that step's index instead (leanHandoff). */
  | { kind: 'handoffs'; run: number; handoffs: LeanHandoff[] }
  /** The steps (and handoffs) each run should now have: a slice lost on the way (not cloneable) leaves the file unfinished. */
  | { kind: 'end'; steps: number[]; handoffs?: number[] };

/**
 * A handoff as it crosses: a chat log's handoff carries its step's output as content and its recipients as `to`
 * (ADR 0026, shared strings); a clone would give the page two copies of each. Here `content` (and `to`) is then the
 * index of that step in its run (a number, which a handoff's own fields never are), the rest as it was, in its order.
 */
export type LeanHandoff = Omit<Handoff, 'content' | 'to'> & { content: string | number; to: string[] | number };

function sameStrings(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The handoff that crosses: a new object where it names its step's output or recipients; the run's own is unchanged. */
function leanHandoff(handoff: Handoff, steps: readonly Step[], indexOf: (stepId: string) => number | undefined): LeanHandoff {
  if (handoff.stepId === undefined) return handoff;
  const at = indexOf(handoff.stepId);
  if (at === undefined) return handoff;
  const step = steps[at];
  const content = typeof step.output === 'string' && step.output === handoff.content;
  const to = sameStrings(handoff.to, step.recipients);
  if (!content && !to) return handoff;
  // A copy keeps the keys' order (the page's run serialises as the worker's would).
  const lean: LeanHandoff = { ...handoff };
  if (content) lean.content = at;
  if (to) lean.to = at;
  return lean;
}

/** The page's side of leanHandoff: the content is the received step's output (one string on the page, not two). */
function fullHandoff(lean: LeanHandoff, steps: readonly Step[]): Handoff {
  if (typeof lean.content !== 'number' && typeof lean.to !== 'number') return lean as Handoff;
  const handoff = lean as Record<string, unknown>;
  if (typeof lean.content === 'number') handoff.content = stepAt(steps, lean.content).output;
  if (typeof lean.to === 'number') handoff.to = (stepAt(steps, lean.to).recipients ?? []).slice();
  return handoff as Handoff;
}

function stepAt(steps: readonly Step[], at: number): Step {
  const step = steps[at];
  if (!step) throw new Error('a handoff names a step that did not arrive');
  return step;
}

/** The run the page receives: no steps yet (they follow in slices); without `spans` when they are kept apart. */
export function shellOf(run: Run, keepSpans: boolean): Run {
  const { spans, ...rest } = run;
  const shell: Run = { ...rest, steps: [], handoffs: [] };
  if (keepSpans && spans !== undefined) shell.spans = spans;
  return shell;
}

/**
 * Send one file in parts (see FilePart), without waiting for each to be taken: the next slice is cloned here while
 * the page reads the one before (messages keep their order). Resolves when the page has taken every part; rejects
 * when one could not be sent (not cloneable). Without `keepSpans` the spans stay with the worker's write, and so does
 * each step's raw that is its span's attributes (splitStepRaw, ADR 0026: the file's runs are changed so): the page
 * gets the few keys it reads, and the inspector reads the rest with the spans.
 */
export async function sendInParts(file: LoadedFile, send: (part: FilePart) => Promise<void>, keepSpans: boolean): Promise<void> {
  const sent: Promise<void>[] = [];
  // Each part is posted as soon as it is made (the page starts receiving while the next is made and cloned here); one
  // that cannot be cloned rejects its own promise, and the rest are still awaited so none is left unhandled.
  const post = (part: FilePart) => {
    try {
      sent.push(send(part));
    } catch (error) {
      sent.push(Promise.reject(error));
    }
  };
  post({ kind: 'file', file: { ...file, runs: file.runs.map((r) => shellOf(r, keepSpans)) } });
  for (const [run, r] of file.runs.entries()) {
    const steps = r.steps;
    // A slice's steps are split just before it is posted (their raw stays with the stored spans).
    const split = keepSpans ? undefined : stepRawSplitter(r);
    for (let at = 0; at < steps.length; at += STEP_SLICE) {
      split?.(at, at + STEP_SLICE);
      post({ kind: 'steps', run, steps: steps.slice(at, at + STEP_SLICE) });
    }
  }
  for (const [run, { steps, handoffs }] of file.runs.entries()) {
    if (handoffs.length === 0) continue;
    // A step's index by its id, built once per run with handoffs (a chat log's step i is usually at i: tried first).
    let byId: Map<string, number> | undefined;
    const indexOf = (stepId: string, guess: number): number | undefined => {
      if (steps[guess]?.id === stepId) return guess;
      if (!byId) {
        byId = new Map();
        for (const [i, s] of steps.entries()) if (!byId.has(s.id)) byId.set(s.id, i);
      }
      return byId.get(stepId);
    };
    for (let at = 0; at < handoffs.length; at += STEP_SLICE) {
      const slice = handoffs.slice(at, at + STEP_SLICE);
      const lean = slice.map((h, i) => leanHandoff(h, steps, (id) => indexOf(id, at + i)));
      post({ kind: 'handoffs', run, handoffs: lean });
    }
  }
  post({ kind: 'end', steps: file.runs.map((r) => r.steps.length), handoffs: file.runs.map((r) => r.handoffs.length) });
  const results = await Promise.allSettled(sent);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The page's side of sendInParts: the file put back together. */
export class FileAssembler {
  private file: LoadedFile | undefined;

  /** The finished file at its end part, else undefined. */
  take(part: FilePart): LoadedFile | undefined {
    if (part.kind === 'file') {
      this.file = part.file;
      return undefined;
    }
    const file = this.file;
    if (!file) throw new Error(`a ${part.kind} part arrived before its file`);
    if (part.kind === 'steps') {
      const into = file.runs[part.run].steps;
      for (const step of part.steps) into.push(step);
      return undefined;
    }
    if (part.kind === 'handoffs') {
      const { handoffs: into, steps } = file.runs[part.run];
      for (const handoff of part.handoffs) into.push(fullHandoff(handoff, steps));
      return undefined;
    }
    this.file = undefined;
    if (file.runs.some((r, i) => r.steps.length !== part.steps[i])) throw new Error('some of its steps did not arrive');
    if (part.handoffs && file.runs.some((r, i) => r.handoffs.length !== part.handoffs![i])) throw new Error('some of its handoffs did not arrive');
    return file;
  }
}
