// The studio's frame: a header with the views and the current view below it.
import { lazy, Suspense } from 'react';
import { useUrl, type View } from '../store/url.ts';
import { LibraryPage } from '../features/library/library-page.tsx';
import { RunPage } from '../features/run-view/run-page.tsx';
import { ComparePage } from '../features/compare/compare-page.tsx';
import { CorpusPage } from '../features/corpus/corpus-page.tsx';
import { EnginesPage } from '../features/engines/engines-page.tsx';

// The Live page (runner, batches, forks) loads on first visit: it is not needed to read a trace.
const LivePage = lazy(() => import('../features/live/live-page.tsx').then((m) => ({ default: m.LivePage })));

const NAV: { view: View; label: string }[] = [
  { view: 'library', label: 'Library' },
  { view: 'run', label: 'Run' },
  { view: 'compare', label: 'Compare' },
  { view: 'corpus', label: 'Corpus' },
  { view: 'engines', label: 'Engines' },
  { view: 'live', label: 'Live' },
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
        {view === 'run' ? <RunPage /> : view === 'compare' ? <ComparePage /> : view === 'corpus' ? <CorpusPage /> : view === 'engines' ? <EnginesPage /> : view === 'live' ? (
          <Suspense fallback={<p className="p-4 text-sm text-slate-500">Loading…</p>}>
            <LivePage />
          </Suspense>
        ) : <LibraryPage />}
      </main>
    </div>
  );
}
