// A loaded file handed from the import worker to the page in parts (ADR 0020): the worker's sendInParts and the
// page's FileAssembler. Types only from the importers, so the page's first-paint JS does not pull them (and the
// tokenizer) in through this module.
import type { LoadedFile } from '../import/index.ts';
import type { Handoff, Run, Step } from '../model/types.ts';
import { splitStepRaw } from '../model/session-spans.ts';

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
  | { kind: 'handoffs'; run: number; handoffs: Handoff[] }
  /** The steps (and handoffs) each run should now have: a slice lost on the way (not cloneable) leaves the file unfinished. */
  | { kind: 'end'; steps: number[]; handoffs?: number[] };

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
  if (!keepSpans) for (const run of file.runs) splitStepRaw(run);
  const sent: Promise<void>[] = [];
  // A part that cannot be cloned rejects its own promise; the rest are still awaited so none is left unhandled.
  const post = (part: FilePart) => sent.push(Promise.resolve().then(() => send(part)));
  post({ kind: 'file', file: { ...file, runs: file.runs.map((r) => shellOf(r, keepSpans)) } });
  for (const [run, { steps }] of file.runs.entries()) {
    for (let at = 0; at < steps.length; at += STEP_SLICE) post({ kind: 'steps', run, steps: steps.slice(at, at + STEP_SLICE) });
  }
  for (const [run, { handoffs }] of file.runs.entries()) {
    for (let at = 0; at < handoffs.length; at += STEP_SLICE) post({ kind: 'handoffs', run, handoffs: handoffs.slice(at, at + STEP_SLICE) });
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
      const into = file.runs[part.run].handoffs;
      for (const handoff of part.handoffs) into.push(handoff);
      return undefined;
    }
    this.file = undefined;
    if (file.runs.some((r, i) => r.steps.length !== part.steps[i])) throw new Error('some of its steps did not arrive');
    if (part.handoffs && file.runs.some((r, i) => r.handoffs.length !== part.handoffs![i])) throw new Error('some of its handoffs did not arrive');
    return file;
  }
}
