// A run's source spans for the span tree and the step inspector (ADR 0020). A run opened from a file is handed to the
// page without them (the import worker keeps them in IndexedDB, `runSpans`): they are read when a view that shows them
// opens — at once for a run of up to AUTO_LOAD_MAX spans, on request above that, so that opening a large run never
// waits for, or holds, spans nobody looked at. The spans of one run at a time are kept.
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import type { Run, RunSpan, Step } from '../../model/types.ts';
import { readStoredSpans, runStorageTarget, usePersistence } from '../../store/library-db.ts';
import { readSpansInWorker } from '../../workers/import-client.ts';

/** Runs with at most this many spans load them with the run view; larger ones when the span tree is opened. */
export const AUTO_LOAD_MAX = 20_000;

type Entry = { runId: string; state: 'loading' } | { runId: string; state: 'loaded'; spans: RunSpan[] | undefined } | { runId: string; state: 'failed'; problem: string };

let current: Entry | undefined;
const listeners = new Set<() => void>();

function set(entry: Entry | undefined): void {
  current = entry;
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Read through the import worker (received in slices, no long task here); on this thread without it. The spans are
 * indexed (spanIndex) as each slice is restored, so neither the span tree nor the inspector passes over 100k spans in
 * the render that shows them.
 */
async function read(run: Run): Promise<RunSpan[] | undefined> {
  const storage = runStorageTarget();
  if (!storage) return readStoredSpans(run);
  const restore = stepSpanRestorer(run);
  const index = new SpanIndexer();
  const spans = await readSpansInWorker(storage, run.id, (stored) => {
    const span = restore(stored);
    index.add(span);
    return span;
  });
  if (spans) spanIndexes.set(spans, index.done());
  return spans;
}

/**
 * What the span tree and the inspector look up in a run's spans; one per span list (spanIndex). No map by span id:
 * 100k string keys set in a Map were ~45–190 ms (in the slices too) for a lookup of one span per move, which the
 * step's own list gives (ownSpanAt).
 */
export interface SpanIndex {
  /** The places in the list of the spans that are or belong to a step, by its id, in tree order. */
  readonly byStep: ReadonlyMap<string, readonly number[]>;
  /** 1 at a span with children (the next span is deeper), per place in the list. */
  readonly parents: Uint8Array;
}

/** Builds a SpanIndex a span at a time, in the list's order. */
class SpanIndexer {
  private count = 0;
  private lastDepth = 0;
  private parents = new Uint8Array(4096);
  private readonly byStep = new Map<string, number[]>();

  add(span: RunSpan): void {
    const i = this.count++;
    const depth = span.depth ?? 0;
    if (i > 0 && depth > this.lastDepth) this.parents[i - 1] = 1;
    this.lastDepth = depth;
    if (i >= this.parents.length) {
      const grown = new Uint8Array(this.parents.length * 2);
      grown.set(this.parents);
      this.parents = grown;
    }
    if (span.stepId !== undefined) {
      const list = this.byStep.get(span.stepId);
      if (list) list.push(i);
      else this.byStep.set(span.stepId, [i]);
    }
  }

  done(): SpanIndex {
    return { byStep: this.byStep, parents: this.parents };
  }
}

const spanIndexes = new WeakMap<readonly RunSpan[], SpanIndex>();

/** The index of a span list: made while it was read (read above), else here in one pass (spans in the run, a few). */
export function spanIndex(spans: readonly RunSpan[]): SpanIndex {
  let index = spanIndexes.get(spans);
  if (!index) {
    const indexer = new SpanIndexer();
    for (const span of spans) indexer.add(span);
    index = indexer.done();
    spanIndexes.set(spans, index);
  }
  return index;
}

const NONE: readonly RunSpan[] = [];

/** A step's spans (its own, those merged into it, the plain spans under it), in tree order. */
export function spansOfStep(spans: readonly RunSpan[], stepId: string): readonly RunSpan[] {
  const at = spanIndex(spans).byStep.get(stepId);
  return at === undefined ? NONE : at.map((i) => spans[i]);
}

/** A step's whole raw where its own span keeps it (splitStepRaw; model/session-spans.ts stepRawIndex, without its pass over every span). */
export function stepRawOf(spans: readonly RunSpan[], step: Pick<Step, 'id' | 'spanId'>): Record<string, unknown> | undefined {
  const at = ownSpanAt(spans, step);
  const span = at === undefined ? undefined : spans[at];
  return span?.stepRaw === true ? span.attributes : undefined;
}

/** Places by span id, for a step whose own span names another step (a span that made two steps): built at most once per list. */
const placesById = new WeakMap<readonly RunSpan[], Map<string, number>>();

/** The place in the list of the step's own span (its `spanId`); undefined when the list does not have it. */
export function ownSpanAt(spans: readonly RunSpan[], step: Pick<Step, 'id' | 'spanId'>): number | undefined {
  const { spanId } = step;
  if (spanId === undefined) return undefined;
  for (const i of spanIndex(spans).byStep.get(step.id) ?? []) if (spans[i].id === spanId) return i;
  let byId = placesById.get(spans);
  if (!byId) {
    byId = new Map();
    for (let i = 0; i < spans.length; i++) byId.set(spans[i].id, i);
    placesById.set(spans, byId);
  }
  return byId.get(spanId);
}

/**
 * What model/session-spans.ts hydrateRun does, span by span and without `delete` (which turns every span into a slow
 * dictionary object): a step span compacted on storage gets its step's `raw` back as its attributes.
 */
export function stepSpanRestorer(run: Run): (span: RunSpan) => RunSpan {
  // The steps' `raw` by span id, filled as far along the steps as the spans asked for so far need: spans come in about
  // the steps' order, so the map is built a slice at a time rather than over every step in the first slice's task.
  const rawOf = new Map<string, Record<string, unknown>>();
  let filled = 0;
  const rawFor = (spanId: string): Record<string, unknown> | undefined => {
    const hit = rawOf.get(spanId);
    if (hit !== undefined || filled === run.steps.length) return hit;
    while (filled < run.steps.length) {
      const step = run.steps[filled++];
      if (step.spanId === undefined || step.raw === undefined) continue;
      rawOf.set(step.spanId, step.raw as Record<string, unknown>);
      if (step.spanId === spanId) return step.raw as Record<string, unknown>;
    }
    return rawOf.get(spanId);
  };
  return (span) => {
    if (span.attributesOf !== 'step') return span;
    const { attributesOf: _compacted, ...restored } = span;
    const raw = rawFor(span.id);
    return raw ? { ...restored, attributes: raw } : restored;
  };
}

/** Read a run's stored spans once (later callers share the read). */
export function loadSpans(run: Run): void {
  if (current?.runId === run.id && current.state !== 'failed') return;
  set({ runId: run.id, state: 'loading' });
  read(run).then(
    (spans) => {
      if (current?.runId === run.id) set({ runId: run.id, state: 'loaded', spans });
    },
    (e: unknown) => {
      if (current?.runId === run.id) set({ runId: run.id, state: 'failed', problem: e instanceof Error ? e.message : String(e) });
    },
  );
}

/** Forget what was read (tests; a run written again). */
export function resetLoadedSpans(): void {
  set(undefined);
}

export interface RunSpans {
  /** The spans, when in hand (inline in the run, or read). */
  spans: readonly RunSpan[] | undefined;
  /** Kept apart in IndexedDB (not yet read, or read). */
  stored: boolean;
  /** How many there are before they are read (from the import report). */
  expected: number;
  state: 'inline' | 'none' | 'unloaded' | 'loading' | 'loaded' | 'failed';
  problem?: string;
  load(): void;
}

/** A run's spans; `autoLoad` reads stored spans at once when there are at most AUTO_LOAD_MAX of them. */
export function useRunSpans(run: Run, autoLoad = false): RunSpans {
  const stored = usePersistence((p) => run.spans === undefined && p.storedSpans.has(run.id));
  const entry = useSyncExternalStore(subscribe, () => current);
  const expected = run.spans?.length ?? (run.spanReport ? run.spanReport.read - run.spanReport.dropped.reduce((n, d) => n + d.count, 0) : 0);
  const load = useCallback(() => {
    if (stored) loadSpans(run);
  }, [stored, run]);
  useEffect(() => {
    if (autoLoad && stored && expected <= AUTO_LOAD_MAX) loadSpans(run);
  }, [autoLoad, stored, expected, run]);
  if (run.spans !== undefined) return { spans: run.spans, stored: false, expected, state: 'inline', load };
  if (!stored) return { spans: undefined, stored: false, expected: 0, state: 'none', load };
  const mine = entry?.runId === run.id ? entry : undefined;
  if (!mine) return { spans: undefined, stored, expected, state: 'unloaded', load };
  if (mine.state === 'loaded') return { spans: mine.spans, stored, expected, state: 'loaded', load };
  if (mine.state === 'failed') return { spans: undefined, stored, expected, state: 'failed', problem: mine.problem, load };
  return { spans: undefined, stored, expected, state: 'loading', load };
}
