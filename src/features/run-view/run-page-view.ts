// The run view's page as the app shows it: its code loaded on first use, or ahead by the library once it lists a run
// (ADR 0024), after which opening a run renders at once (src/ui/lazy-view.ts). Kept apart from run-page.tsx so the
// frame and the library import this without the run view's code.
import { lazyView } from '../../ui/lazy-view.ts';

export const runPageView = lazyView(
  () => import('./run-page.tsx'),
  (m) => m.RunPage,
);
