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
}

/**
 * The result of `make()`, built anew whenever `deps` change (compared one by one, as a memo's are). `atOnce`: run it
 * to the end within the render (a small input, or one whose result is cached). `make` undefined: nothing to build.
 */
export function useSliced<T>(make: (() => Sliced<T>) | undefined, deps: readonly unknown[], atOnce: boolean): SlicedValue<T> {
  const enabled = make !== undefined;
  const now = useMemo(() => (enabled && atOnce ? finish(make()) : undefined), [enabled, atOnce, ...deps]);
  const [built, setBuilt] = useState<{ deps?: readonly unknown[]; value?: T; progress: number }>({ progress: 0 });
  useEffect(() => {
    if (!make || atOnce) return;
    let cancelled = false;
    let shownAt = performance.now();
    setBuilt({ deps, progress: 0 });
    const progressed = (progress: number) => {
      const at = performance.now();
      if (at - shownAt < PROGRESS_MS) return;
      shownAt = at;
      setBuilt({ deps, progress });
    };
    void runInSlices(make(), progressed, () => cancelled).then((value) => {
      if (value === undefined || cancelled) return;
      // A transition: the first render of what it feeds (every row of a long list) yields between components.
      startTransition(() => setBuilt({ deps, value, progress: 1 }));
    });
    return () => {
      cancelled = true;
    };
    }, [enabled, atOnce, ...deps]);
  if (!enabled) return { progress: 0 };
  if (atOnce) return { value: now, progress: 1 };
  return built.deps !== undefined && sameDeps(built.deps, deps) ? { value: built.value, progress: built.progress } : { progress: 0 };
}

function sameDeps(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}
