// A hook for a view that follows a value changing many times a second (an engine keeps its results in a run every
// 100 ms) and whose render costs in proportion to everything the value holds: while `active`, it sees a new value at
// most once per `ms`, the latest, and never misses the last one; otherwise at once.
import { useEffect, useRef, useState } from 'react';

/** `value`, at most once per `ms` while `active` (the latest once the interval is over); as it is when not active. */
export function useAtMostEvery<T>(value: T, ms: number, active: boolean): T {
  const [shown, setShown] = useState(value);
  const shownAt = useRef(Number.NEGATIVE_INFINITY);
  const immediate = !active || shownAt.current + ms <= performance.now();
  useEffect(() => {
    if (immediate) {
      shownAt.current = performance.now();
      setShown(() => value);
      return;
    }
    const timer = setTimeout(() => {
      shownAt.current = performance.now();
      setShown(() => value);
    }, shownAt.current + ms - performance.now());
    return () => clearTimeout(timer);
  }, [value, immediate, ms]);
  // Not active, or due: the value itself in this render (no render a step behind).
  return immediate ? value : shown;
}

/** A run of more steps than this is paced while an engine pass keeps results in it (usePacedRun). */
export const PACED_ABOVE_STEPS = 2000;
/** How often a paced run is shown again (ms). */
export const PACED_EVERY_MS = 1000;

/**
 * A run as a view of an engine's results shows it while a pass keeps results in it (`passing`): a large run at most
 * once per PACED_EVERY_MS, since the view reads every result and finds their steps each time (an offline pass over
 * 100,000 chat messages, at every kept batch: tasks of 70–130 ms; ADR 0086, 0087). A smaller run as it is: there that
 * work is a few milliseconds, and an endpoint's answers, each seconds apart, are worth seeing at once.
 */
export function usePacedRun<T extends { steps: readonly unknown[] }>(run: T, passing: boolean): T {
  return useAtMostEvery(run, PACED_EVERY_MS, passing && run.steps.length > PACED_ABOVE_STEPS);
}
