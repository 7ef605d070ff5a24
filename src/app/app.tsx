// The studio's frame: a header with the views and the current view below it.
import { lazy, Suspense } from 'react';
import { useUrl, type View } from '../store/url.ts';
import { LibraryPage } from '../features/library/library-page.tsx';
import { RunPage } from '../features/run-view/run-page.tsx';
import { ComparePage } from '../features/compare/compare-page.tsx';
import { CorpusPage } from '../features/corpus/corpus-page.tsx';
import { EnginesPage } from '../features/engines/engines-page.tsx';

// Loaded on first visit: the Rectify view is not needed for first paint.
const RectifyPage = lazy(() => import('../features/rectify/rectify-page.tsx').then((m) => ({ default: m.RectifyPage })));

const NAV: { view: View; label: string }[] = [
  { view: 'library', label: 'Library' },
  { view: 'run', label: 'Run' },
  { view: 'compare', label: 'Compare' },
  { view: 'corpus', label: 'Corpus' },
  { view: 'engines', label: 'Engines' },
  { view: 'rectify', label: 'Rectify' },
];

export function App() {
  const view = useUrl((s) => s.view);
  const navigate = useUrl((s) => s.navigate);
  return (
    <div className="flex h-screen flex-col">
      <header className="flex items-center gap-4 border-b border-slate-200 bg-white px-4 py-2">
        <h1 className="text-base font-semibold text-indigo-700">MAS Replay Studio</h1>
        <nav className="flex gap-1" aria-label="Views">
          {NAV.map((item) => (
            <button
              key={item.view}
              type="button"
              onClick={() => navigate(item.view, view === item.view ? useUrl.getState().params : {})}
              aria-current={view === item.view ? 'page' : undefined}
              className={`rounded px-3 py-1 text-sm ${view === item.view ? 'bg-indigo-100 text-indigo-800' : 'text-slate-600 hover:bg-slate-100'}`}
            >
              {item.label}
            </button>
          ))}
        </nav>
      </header>
      <main className="min-h-0 flex-1 overflow-auto">
        {view === 'run' ? <RunPage /> : view === 'compare' ? <ComparePage /> : view === 'corpus' ? <CorpusPage /> : view === 'engines' ? <EnginesPage /> : view === 'rectify' ? (
          <Suspense fallback={<p className="p-4 text-sm text-slate-600">Loading the Rectify view…</p>}>
            <RectifyPage />
          </Suspense>
        ) : <LibraryPage />}
      </main>
    </div>
  );
}
