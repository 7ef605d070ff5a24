// The run view's page as the app shows it: its code loaded on first use, or ahead (prefetchRunPage) once the library
// lists a run or an import starts (ADR 0024), after which opening a run renders at once (src/ui/lazy-view.ts). Kept
// apart from run-page.tsx so the frame and the library import this without the run view's code.
import { lazyView } from '../../ui/lazy-view.ts';

export const runPageView = lazyView(
  () => import('./run-page.tsx'),
  (m) => m.RunPage,
);

let prefetched = false;

/**
 * Load the run view's code when the page is next idle (once): opening a run then does not wait for its chunk
 * (hundreds of ms on a loaded 2-core machine, ADR 0024), nor for React's reveal of a suspended view, at least 300 ms.
 * Asked when the library lists a run and while it shows an import in progress: the page is idle while the import
 * worker reads and maps a file, and a run opened as soon as it was listed found its chunk still loading (the
 * 100k-span bench's build began 160 ms after the click in some runs, 400 ms in others).
 */
export function prefetchRunPage(): void {
  if (prefetched) return;
  prefetched = true;
  const load = () => void runPageView.preload().catch(() => {});
  if (typeof requestIdleCallback === 'function') requestIdleCallback(load, { timeout: 3000 });
  else setTimeout(load, 0);
}
