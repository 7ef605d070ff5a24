import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { isFramed, showFramedRefusal } from './app/framing.ts';
import { startLibraryPersistence } from './store/library-db.ts';
import { startImportWorkerWhenIdle } from './workers/import-client.ts';
import './index.css';

const root = document.getElementById('root')!;

if (isFramed(window)) {
  // Inside another page's frame: nothing renders, nothing is read or written (SPEC §9).
  showFramedRefusal(root);
} else {
  // Read the saved library back (sets `hydrated`, even when IndexedDB is unavailable) and save every change after.
  void startLibraryPersistence();
  // Runs sent live to the studio's OTLP receiver (issue 19); loaded apart, since it brings the supervisor engine.
  void import('./features/otlp-live/otlp-live.ts').then((m) => m.startOtlpLive());
  // The import worker starts once the page is idle, so a file dropped later finds it ready (ADR 0022).
  startImportWorkerWhenIdle();

  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });

  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  );
}
