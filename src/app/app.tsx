// The studio's frame: a header with the views and the current view below it.
// The library is the first screen and ships with the frame; every other view (d3 charts, the graph, the engines)
// is loaded when first shown, keeping the JS before first paint small (SPEC §8; bench/bundle.bench.ts).
import { lazy, Suspense, type ComponentType } from 'react';
import { rememberedParams, useUrl, type View } from '../store/url.ts';
import { LibraryPage } from '../features/library/library-page.tsx';
import { LinkedSources } from '../features/library/startup.tsx';
import { ErrorBoundary } from '../ui/error-boundary.tsx';
import { runPageView } from '../features/run-view/run-page-view.ts';
import { FontWarmup } from '../ui/font-warmup.tsx';

const ComparePage = lazy(() => import('../features/compare/compare-page.tsx').then((m) => ({ default: m.ComparePage })));
const CorpusPage = lazy(() => import('../features/corpus/corpus-page.tsx').then((m) => ({ default: m.CorpusPage })));
const EnginesPage = lazy(() => import('../features/supervisor/engines-page.tsx').then((m) => ({ default: m.EnginesPage })));
const RectifyPage = lazy(() => import('../features/rectify/rectify-page.tsx').then((m) => ({ default: m.RectifyPage })));
const StagesPage = lazy(() => import('../features/stages/stages-page.tsx').then((m) => ({ default: m.StagesPage })));
const LivePage = lazy(() => import('../features/live/live-page.tsx').then((m) => ({ default: m.LivePage })));
const TaxonomyPage = lazy(() => import('../features/taxonomy/taxonomy-page.tsx').then((m) => ({ default: m.TaxonomyPage })));

/** The views in the order of the navigation; one row per view. */
const PAGES: { view: View; label: string; Page: ComponentType }[] = [
  { view: 'library', label: 'Library', Page: LibraryPage },
  { view: 'run', label: 'Run', Page: runPageView.Component },
  { view: 'compare', label: 'Compare', Page: ComparePage },
  { view: 'corpus', label: 'Corpus', Page: CorpusPage },
  { view: 'engines', label: 'Engines', Page: EnginesPage },
  { view: 'rectify', label: 'Rectify', Page: RectifyPage },
  { view: 'taxonomy', label: 'Taxonomy', Page: TaxonomyPage },
  { view: 'stages', label: 'Stages', Page: StagesPage },
  { view: 'live', label: 'Live', Page: LivePage },
];

export function App() {
  const view = useUrl((s) => s.view);
  const navigate = useUrl((s) => s.navigate);
  const current = PAGES.find((p) => p.view === view) ?? PAGES[0];
  return (
    <div className="flex h-screen flex-col">
      <header className="flex items-center gap-4 border-b border-slate-200 bg-white px-4 py-2">
        <h1 className="text-base font-semibold text-indigo-700">MAS Replay Studio</h1>
        <nav className="flex gap-1" aria-label="Views">
          {PAGES.map((item) => (
            <button
              key={item.view}
              type="button"
              // A tab returns to where its view was (the run and step, the chosen pair, the filters).
              onClick={() => navigate(item.view, view === item.view ? useUrl.getState().params : rememberedParams(item.view))}
              aria-current={view === item.view ? 'page' : undefined}
              className={`rounded px-3 py-1 text-sm ${view === item.view ? 'bg-indigo-100 text-indigo-800' : 'text-slate-600 hover:bg-slate-100'}`}
            >
              {item.label}
            </button>
          ))}
        </nav>
      </header>
      <ErrorBoundary name="linked sources note">
        <LinkedSources />
      </ErrorBoundary>
      <main className="min-h-0 flex-1 overflow-auto">
        <Suspense
          fallback={
            <p role="status" className="p-6 text-sm text-slate-600">
              Loading the {current.label} view…
            </p>
          }
        >
          {/* One failing view leaves the header and the other views usable; changing view tries again. */}
          <ErrorBoundary name={`${current.label} view`} resetKey={view} size="view">
            <current.Page />
          </ErrorBoundary>
        </Suspense>
      </main>
      <ErrorBoundary name="font warm-up">
        <FontWarmup />
      </ErrorBoundary>
    </div>
  );
}
