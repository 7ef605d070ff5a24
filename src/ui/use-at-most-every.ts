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
