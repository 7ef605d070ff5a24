// The import worker's side of the hand-off (ADR 0020, 0026): a loaded file posted to the page in parts (run-parts.ts
// has the parts and the page's FileAssembler). Kept apart so the page's first-paint JS does not carry what only the
// worker runs (the raw split, the step positions).
import type { LoadedFile } from '../import/index.ts';
import type { Handoff, Run, Step } from '../model/types.ts';
import { stepRawSplitter } from '../model/session-spans.ts';
import { stepPositions, type StepPositions } from '../model/step-positions.ts';
import { StringTable, textChars, toColumns, transferablesOf } from '../model/step-columns.ts';
import { STEP_SLICE, type FilePart, type LeanHandoff } from './run-parts.ts';

/**
 * About how many characters of text a slice of steps carries at most (ADR 0073). The page copies a part's strings
 * when it takes it, in one task: 2,000 steps with a ~4 KB tool result each (a 643 MB JSON Lines file) were messages
 * of ~8 M characters, and the page's tasks reached 107–153 ms while it took them. A run of short steps still goes in
 * slices of STEP_SLICE.
 */
export const SLICE_TEXT_CHARS = 2_000_000;

/** Steps looked at to size a run's first slice. */
const SAMPLE_STEPS = 32;

/**
 * A step's text, about: its string fields and the strings one level inside its arrays and records (messages, tool
 * calls, raw). Without `raw` when `withRaw` is false: a span's attributes then stay with the stored spans. For the
 * first slice only: later slices are sized by what the one before carried (textChars).
 */
export function stepTextChars(step: Step, withRaw = true): number {
  let n = 0;
  const fields = step as unknown as Record<string, unknown>;
  for (const key in fields) {
    if (key === 'raw' && !withRaw) continue;
    const v = fields[key];
    if (typeof v === 'string') n += v.length;
    else if (Array.isArray(v)) {
      for (const item of v) n += shallowChars(item);
    } else n += shallowChars(v);
  }
  return n;
}

function shallowChars(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  const record = v as Record<string, unknown>;
  for (const key in record) {
    const x = record[key];
    if (typeof x === 'string') n += x.length;
  }
  return n;
}

/** How many steps a slice should take for `chars` characters over `rows` steps: 1 to STEP_SLICE. */
function rowsFor(rows: number, chars: number): number {
  if (chars <= 0) return STEP_SLICE;
  return Math.max(1, Math.min(STEP_SLICE, Math.floor((rows * SLICE_TEXT_CHARS) / chars)));
}

function sameStrings(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether a handoff's content is its step's output (one string on the page: ADR 0026). */
function restatesOutput(handoff: Handoff, step: Step): boolean {
  return typeof step.output === 'string' && step.output === handoff.content;
}

/** Whether a handoff's recipients are its step's (one array on the page). */
function restatesRecipients(handoff: Handoff, step: Step): boolean {
  return sameStrings(handoff.to, step.recipients);
}

/** The handoff that crosses: a new object where it names its step's output or recipients; the run's own is unchanged. */
function leanHandoff(handoff: Handoff, steps: readonly Step[], indexOf: (stepId: string) => number | undefined): LeanHandoff {
  if (handoff.stepId === undefined) return handoff;
  const at = indexOf(handoff.stepId);
  if (at === undefined) return handoff;
  const step = steps[at];
  const content = restatesOutput(handoff, step);
  const to = restatesRecipients(handoff, step);
  // A copy keeps the keys' order (the page's run serialises as the worker's would). The step's id crosses with the
  // step: a handoff found by it names it by its index (one string on the page, not a second copy per handoff).
  const lean: LeanHandoff = { ...handoff, stepId: at };
  if (content) lean.content = at;
  if (to) lean.to = at;
  return lean;
}

/** A step-made handoff's keys, in RunBuilder.addHandoff's order (the page makes them so). */
const STEP_HANDOFF_KEYS = ['id', 'from', 'to', 'kind', 'stepId', 'content'] as const;

/**
 * The position of the step a handoff is made from, when the page can make it from that step and its id (ADR 0067): it
 * is from the step's agent to the step's recipients with the step's output as content, and has exactly
 * RunBuilder.addHandoff's keys in their order. Else -1.
 */
function stepMadeAt(handoff: Handoff, steps: readonly Step[], indexOf: (stepId: string) => number | undefined): number {
  const { stepId } = handoff;
  if (stepId === undefined || typeof handoff.kind !== 'string' || typeof handoff.id !== 'string') return -1;
  // No key but those, in their order (fewer: a value below is missing).
  let n = 0;
  for (const key in handoff) if (key !== STEP_HANDOFF_KEYS[n++]) return -1;
  const at = indexOf(stepId);
  if (at === undefined) return -1;
  const step = steps[at];
  return handoff.from === step.agentId && restatesOutput(handoff, step) && restatesRecipients(handoff, step) ? at : -1;
}

/**
 * A slice of handoffs as the page makes them from their steps (a step-handoffs part), or undefined when one of them is
 * not so made, or they have more kinds than a byte counts.
 */
function stepHandoffs(
  run: number,
  first: number,
  slice: readonly Handoff[],
  steps: readonly Step[],
  indexOf: (stepId: string, guess: number) => number | undefined,
  /** Where the slice's first step is looked for first; then each after the step before (a chat log's are in order). */
  guess: { next: number },
): FilePart | undefined {
  const at = new Int32Array(slice.length);
  const kinds = new Uint8Array(slice.length);
  const kindNames: string[] = [];
  const ids: string[] = [];
  const find = (id: string) => indexOf(id, guess.next);
  for (let i = 0; i < slice.length; i++) {
    const h = slice[i];
    const p = stepMadeAt(h, steps, find);
    if (p === -1) return undefined;
    at[i] = p;
    guess.next = p + 1;
    let kind = kindNames.indexOf(h.kind);
    if (kind === -1) {
      if (kindNames.length === 256) return undefined;
      kind = kindNames.push(h.kind) - 1;
    }
    kinds[i] = kind;
    ids.push(h.id);
  }
  return { kind: 'step-handoffs', run, first, ids, steps: at, kinds, kindNames };
}

/** The buffers a part holds, made for its message only: posted as transferred. */
function transferablesOfFilePart(part: FilePart): ArrayBuffer[] {
  switch (part.kind) {
    case 'steps':
      return transferablesOf(part.steps);
    case 'handoffs':
      return transferablesOf(part.handoffs);
    case 'step-handoffs':
      return [part.steps.buffer as ArrayBuffer, part.kinds.buffer as ArrayBuffer];
    default:
      return [];
  }
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
export async function sendInParts(
  file: LoadedFile,
  send: (part: FilePart, transfer: ArrayBuffer[]) => Promise<void>,
  keepSpans: boolean,
): Promise<void> {
  const sent: Promise<void>[] = [];
  // Each part is posted as soon as it is made (the page starts receiving while the next is made and cloned here); one
  // that cannot be cloned rejects its own promise, and the rest are still awaited so none is left unhandled. A slice's
  // columns are transferred (ADR 0029): made for this message only, the worker does not read them again.
  const post = (part: FilePart) => {
    try {
      sent.push(send(part, transferablesOfFilePart(part)));
    } catch (error) {
      sent.push(Promise.reject(error));
    }
  };
  post({ kind: 'file', file: { ...file, runs: file.runs.map((r) => shellOf(r, keepSpans)) } });
  // Each run's strings that repeat (agent ids, kinds, roles, …) cross once, in the first slice that has them.
  const tables = file.runs.map(() => new StringTable());
  for (const [run, r] of file.runs.entries()) {
    const steps = r.steps;
    // A slice's steps are split just before it is posted (their raw stays with the stored spans).
    const split = keepSpans ? undefined : stepRawSplitter(r);
    // STEP_SLICE steps a slice, fewer when they carry more than SLICE_TEXT_CHARS of text: the first sized from a sample
    // of the run's steps, each next one from what the one before carried.
    const sample = Math.min(SAMPLE_STEPS, steps.length);
    let sampled = 0;
    for (let i = 0; i < sample; i++) sampled += stepTextChars(steps[i], keepSpans);
    let size = rowsFor(sample, sampled);
    for (let at = 0; at < steps.length; ) {
      const end = Math.min(steps.length, at + size);
      split?.(at, end);
      const columns = toColumns(steps.slice(at, end), tables[run]);
      size = rowsFor(end - at, textChars(columns));
      post({ kind: 'steps', run, steps: columns });
      at = end;
    }
  }
  for (const [run, { steps, handoffs }] of file.runs.entries()) {
    if (handoffs.length === 0) continue;
    // A step's index by its id: a chat log's step i is usually at i (tried first), else the run's step positions (built
    // once, when first needed).
    let positions: StepPositions | undefined;
    const indexOf = (stepId: string, guess: number): number | undefined =>
      steps[guess]?.id === stepId ? guess : (positions ??= stepPositions(steps)).near(stepId, guess);
    const guess = { next: 0 };
    for (let at = 0; at < handoffs.length; at += STEP_SLICE) {
      const slice = handoffs.slice(at, at + STEP_SLICE);
      // Made from their steps on the page when they can be (a chat log's all are); else in columns, naming their steps.
      const made = stepHandoffs(run, at, slice, steps, indexOf, guess);
      if (made) {
        post(made);
        continue;
      }
      const lean = slice.map((h, i) => leanHandoff(h, steps, (id) => indexOf(id, at + i)));
      post({ kind: 'handoffs', run, handoffs: toColumns(lean, tables[run]) });
    }
  }
  post({ kind: 'end', steps: file.runs.map((r) => r.steps.length), handoffs: file.runs.map((r) => r.handoffs.length) });
  const results = await Promise.allSettled(sent);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}
