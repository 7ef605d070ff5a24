import { createElement, lazy, type ComponentType } from 'react';

/** A view whose code loads on first use (as React.lazy) and can be loaded ahead (`preload`). */
export interface LazyView<P extends object = object> {
  Component: ComponentType<P>;
  preload(): Promise<void>;
}

/**
 * React.lazy, except that once the module is loaded (by `preload` or an earlier render) the view renders at once.
 * React.lazy suspends on its first render even when the module is in memory already (a native promise is read a
 * task later), and React reveals a suspended view no sooner than 300 ms after its fallback: opening a run from the
 * library, its code prefetched, still waited 300–500 ms for that (bench/million.bench.ts, click → "preparing").
 */
export function lazyView<M, P extends object = object>(load: () => Promise<M>, pick: (module: M) => ComponentType<P>): LazyView<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<void> | undefined;
  const preload = (): Promise<void> =>
    (pending ??= load().then(
      (module) => {
        loaded = pick(module);
      },
      (error: unknown) => {
        pending = undefined; // a failed chunk load (offline, a new deploy) may be tried again
        throw error;
      },
    ));
  const Lazy = lazy(() => preload().then(() => ({ default: loaded! })));
  function View(props: P) {
    return createElement(loaded ?? Lazy, props);
  }
  return { Component: View, preload };
}
