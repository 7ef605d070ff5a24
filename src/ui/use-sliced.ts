// A view's derivation over every step or edge of a run, without a frozen page (ADR 0024, 0061): worked out within the
// render when small or known already, else a slice at a time after the first paint (model/slices.ts), with its
// progress meanwhile. Compare and the taxonomy's edge list use it; the run view has a loader of its own (it also
// takes parts from the import worker).
import { startTransition, useEffect, useMemo, useState } from 'react';
import { finish, PROGRESS_MS, runInSlices, type Sliced } from '../model/slices.ts';

export interface SlicedValue<T> {
  /** Undefined while it is being built (or when there is nothing to build). */
  value?: T;
  /** 0..1, updated at most every PROGRESS_MS while it is built. */
  progress: number;
  /** The value is the last one built under the same stale key; a new one is being built. */
  stale?: boolean;
}

/**
 * The result of `make()`, built anew whenever `deps` change (compared one by one, as a memo's are). `atOnce`: run it
 * to the end within the render (a small input, or one whose result is cached). `make` undefined: nothing to build.
 * `staleKey`: while a new result is built, the last one built under the same key is shown (the edge list of a run
 * whose label changed: the same edges, their labels a moment late) rather than nothing.
 */
export function useSliced<T>(make: (() => Sliced<T>) | undefined, deps: readonly unknown[], atOnce: boolean, staleKey?: unknown): SlicedValue<T> {
  const enabled = make !== undefined;
  const now = useMemo(() => (enabled && atOnce ? finish(make()) : undefined), [enabled, atOnce, ...deps]);
  const [built, setBuilt] = useState<Built<T>>({ progress: 0 });
  useEffect(() => {
    if (!make || atOnce) return;
    let cancelled = false;
    let shownAt = performance.now();
    // The last result built stays at hand, for a build under the same key.
    setBuilt((last) => ({ deps, progress: 0, last: last.value !== undefined ? { key: last.key, value: last.value } : last.last, key: staleKey }));
    const progressed = (progress: number) => {
      const at = performance.now();
      if (at - shownAt < PROGRESS_MS) return;
      shownAt = at;
      setBuilt((last) => ({ ...last, progress }));
    };
    void runInSlices(make(), progressed, () => cancelled).then((value) => {
      if (value === undefined || cancelled) return;
      // A transition: the first render of what it feeds (every row of a long list) yields between components.
      startTransition(() => setBuilt({ deps, value, progress: 1, key: staleKey }));
    });
    return () => {
      cancelled = true;
    };
  }, [enabled, atOnce, ...deps]);
  if (!enabled) return { progress: 0 };
  if (atOnce) return { value: now, progress: 1 };
  const current = built.deps !== undefined && sameDeps(built.deps, deps);
  if (current && built.value !== undefined) return { value: built.value, progress: 1 };
  const progress = current ? built.progress : 0;
  // New inputs (their build under way, or not begun in this very render): the last result under the same key.
  const last = current ? built.last : built.value !== undefined ? { key: built.key, value: built.value } : built.last;
  if (staleKey !== undefined && last !== undefined && Object.is(last.key, staleKey)) return { value: last.value, progress, stale: true };
  return { progress };
}

interface Built<T> {
  /** The inputs of the build under way or done. */
  deps?: readonly unknown[];
  value?: T;
  progress: number;
  key?: unknown;
  /** The last result built before this build began, and its key. */
  last?: { key: unknown; value: T };
}

function sameDeps(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}
