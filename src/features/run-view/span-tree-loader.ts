// A run's source spans for the span tree and the step inspector (ADR 0020). A run opened from a file is handed to the
// page without them (the import worker keeps them in IndexedDB, `runSpans`): they are read when a view that shows them
// opens — at once for a run of up to AUTO_LOAD_MAX spans, on request above that, so that opening a large run never
// waits for, or holds, spans nobody looked at. The spans of one run at a time are kept.
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import type { Run, RunSpan } from '../../model/types.ts';
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

/** Read through the import worker (received in slices, no long task here); on this thread without it. */
async function read(run: Run): Promise<RunSpan[] | undefined> {
  const storage = runStorageTarget();
  if (!storage) return readStoredSpans(run);
  return readSpansInWorker(storage, run.id, stepSpanRestorer(run));
}

/**
 * What model/session-spans.ts hydrateRun does, span by span and without `delete` (which turns every span into a slow
 * dictionary object): a step span compacted on storage gets its step's `raw` back as its attributes.
 */
export function stepSpanRestorer(run: Run): (span: RunSpan) => RunSpan {
  let rawOf: Map<string, Record<string, unknown>> | undefined;
  return (span) => {
    if (span.attributesOf !== 'step') return span;
    if (!rawOf) {
      rawOf = new Map();
      for (const step of run.steps) if (step.spanId !== undefined && step.raw !== undefined) rawOf.set(step.spanId, step.raw as Record<string, unknown>);
    }
    const { attributesOf: _compacted, ...restored } = span;
    const raw = rawOf.get(span.id);
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
