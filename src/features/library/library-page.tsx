// The first studio screen (SPEC §4 Library): open traces by picker, drag-and-drop or paste, list the runs of every
// file in one table and the files below it, load the bundled samples. `?src=` and `?samples=1` are opened by
// ./startup.tsx from the frame, whichever view a link names.
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { exportablePreferences, useEngineSettings } from '../../store/engine-settings.ts';
import { useLibrary, type RemovedRuns } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { exportSessionFile } from './download.ts';
import { ExportNote } from './export-note.tsx';
import { FileCard } from './file-card.tsx';
import { EMPTY_QUERY, SORT_KEYS, type Origin, type RowQuery, type SortKey } from './library-rows.ts';
import { LibraryTable } from './library-table.tsx';
import { UndoToast } from './undo-toast.tsx';
import { FailureList, ImportProgressList, PersistenceNote } from './import-status.tsx';
import { openSources, textSource, traceFilesOf } from './open-files.ts';
import { PastePanel } from './paste-panel.tsx';
import { QuarantineNote } from './quarantine-note.tsx';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';
import { loadSamplesTracked } from './startup.tsx';
import { LibraryLoading, useLoadBoxShown } from './library-loading.tsx';

/** Keys typed into a text field are the field's, not the page's. */
function isEditable(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** With more files than this, the file list starts folded: the runs table is what a corpus is worked through. */
const FILES_OPEN_MAX = 25;

/** The table's search, filters and sort live in the URL, so a link (and Back) brings them back. */
function useRowQuery(): [RowQuery, (q: RowQuery) => void] {
  const params = useUrl((s) => s.params);
  const setParams = useUrl((s) => s.setParams);
  const sort = (SORT_KEYS as readonly string[]).includes(params.sort ?? '') ? (params.sort as SortKey) : EMPTY_QUERY.sort;
  const origin: Origin = params.origin === 'simulated' || params.origin === 'recorded' ? params.origin : 'all';
  const query: RowQuery = {
    search: params.q ?? '',
    format: params.format ?? '',
    outcome: params.outcome ?? '',
    origin,
    fileId: params.file ?? '',
    sort,
    descending: params.desc === '1',
  };
  const setQuery = (q: RowQuery) =>
    setParams({
      q: q.search || undefined,
      format: q.format || undefined,
      outcome: q.outcome || undefined,
      origin: q.origin === 'all' ? undefined : q.origin,
      file: q.fileId || undefined,
      sort: q.sort === EMPTY_QUERY.sort ? undefined : q.sort,
      desc: q.descending ? '1' : undefined,
    });
  return [query, setQuery];
}

export function LibraryPage() {
  const files = useLibrary((s) => s.files);
  const hydrated = useLibrary((s) => s.hydrated);
  const loadBoxShown = useLoadBoxShown();
  const inputRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);
  const [folderNote, setFolderNote] = useState<string>();
  const [pasting, setPasting] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [sampleError, setSampleError] = useState<string>();
  const [removed, setRemoved] = useState<RemovedRuns>();
  const [query, setQuery] = useRowQuery();

  // Ctrl+V anywhere on the page (outside text fields) opens what is on the clipboard.
  useEffect(() => {
    const onPaste = (e: ClipboardEvent) => {
      if (isEditable(e.target) || !e.clipboardData) return;
      const pastedFiles = [...e.clipboardData.files];
      const text = e.clipboardData.getData('text/plain');
      if (pastedFiles.length > 0) void openSources(pastedFiles);
      else if (text.trim() !== '') void openSources([textSource(text)]);
      else return;
      e.preventDefault();
    };
    document.addEventListener('paste', onPaste);
    return () => document.removeEventListener('paste', onPaste);
  }, []);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void openSources([...e.dataTransfer.files]);
  };
  const onDragOver = (e: DragEvent) => {
    if (![...e.dataTransfer.types].includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };

  const exportAll = () => {
    const { runs, llmCalls } = useLibrary.getState();
    // Everything: every run with its labels and interventions, the LLM calls they made, and the engine settings
    // (never the API key).
    const settings = exportablePreferences(useEngineSettings.getState());
    return exportSessionFile(Object.values(runs), Object.values(llmCalls), 'library.session.json', 'MAS Replay library', settings);
  };
  const sampleLoad = () => {
    setSampleError(undefined);
    loadSamplesTracked().catch((e: unknown) => setSampleError(e instanceof Error ? e.message : String(e)));
  };
  const runCount = files.reduce((n, f) => n + f.runIds.length, 0);

  return (
    <div
      className="relative min-h-full p-4"
      onDragOver={onDragOver}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target || !e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={onDrop}
      data-testid="library-page"
    >
      <div className="mx-auto flex max-w-[1800px] flex-col gap-3">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="mr-2 text-lg font-semibold">Library</h2>
          <Button variant="primary" onClick={() => inputRef.current?.click()}>
            Open files…
          </Button>
          <input
            ref={inputRef}
            type="file"
            multiple
            accept=".json,.jsonl,.gz,application/json"
            className="hidden"
            data-testid="open-file-input"
            onChange={(e) => {
              const picked = [...(e.target.files ?? [])];
              e.target.value = '';
              void openSources(picked);
            }}
          />
          <Button onClick={() => folderRef.current?.click()}>Open folder…</Button>
          <input
            ref={folderRef}
            type="file"
            multiple
            // A folder and all its subfolders (a corpus of traces). Not in React's attribute types, hence the spread.
            {...{ webkitdirectory: '' }}
            className="hidden"
            data-testid="open-folder-input"
            onChange={(e) => {
              const { traces, skipped } = traceFilesOf([...(e.target.files ?? [])]);
              e.target.value = '';
              const folder = traces[0]?.webkitRelativePath.split('/')[0] || 'the folder';
              setFolderNote(traces.length === 0 ? `No trace files (.json, .jsonl, .gz) in ${folder}.` : undefined);
              // Named by their path inside the folder, so hand-crafted/3.json and algorithm-generated/3.json differ.
              const named = traces.map((f) => (f.webkitRelativePath ? new File([f], f.webkitRelativePath, { type: f.type, lastModified: f.lastModified }) : f));
              void openSources(named, `${traces.length} files from ${folder}`).then(() => {
                if (skipped.length > 0) {
                  setFolderNote(`${skipped.length} other file${skipped.length === 1 ? '' : 's'} in ${folder} left out (${skipped.slice(0, 3).join(', ')}${skipped.length > 3 ? ', …' : ''}).`);
                }
              });
            }}
          />
          <Button onClick={() => setPasting(!pasting)} aria-expanded={pasting}>
            Paste…
          </Button>
          <Button onClick={sampleLoad}>Load samples</Button>
          <Button onClick={() => void exportAll()} disabled={runCount === 0}>
            Export all
          </Button>
          <span className="flex-1" />
          <ExportNote />
          <PersistenceNote />
        </div>
        <p className="text-sm text-slate-600">
          Drop trace files anywhere on this page, pick them or a whole folder of them, or paste one (Ctrl+V). Native sessions, OTLP/JSON, TRAIL span
          trees and annotations, Langfuse exports, AG2 / Who&amp;When / Magentic-One chat logs, tau-bench trajectories and
          smolagents message buses are read here, in your browser; nothing is uploaded.
        </p>
        {folderNote && (
          <p className="flex items-center gap-2 text-sm text-slate-700" data-testid="folder-note" role="status">
            {folderNote}
            <button type="button" className="text-indigo-700 underline" onClick={() => setFolderNote(undefined)}>
              dismiss
            </button>
          </p>
        )}
        {pasting && <PastePanel onClose={() => setPasting(false)} />}
        {sampleError && (
          <ErrorBanner title="Could not load the bundled samples" onDismiss={() => setSampleError(undefined)}>
            {sampleError}
          </ErrorBanner>
        )}
        <ImportProgressList />
        <FailureList />
        <ErrorBoundary name="note on set-aside records">
          <QuarantineNote />
        </ErrorBoundary>
        {/* Until the saved library is loaded (seconds for one with a large run), its place says how far the load is. */}
        {!hydrated && loadBoxShown && (
          <div className="rounded-lg border-2 border-dashed border-slate-300 p-10 text-sm text-slate-600" role="status" data-testid="library-hydrating">
            <LibraryLoading fallback="Loading the saved library…" />
          </div>
        )}
        {hydrated && files.length === 0 && (
          <div className="rounded-lg border-2 border-dashed border-slate-300 p-10 text-center text-slate-600">
            <p className="font-medium">The library is empty.</p>
            <p className="text-sm">Open a trace file, or load the bundled samples (simulated runs made by this project).</p>
          </div>
        )}
        {files.length > 0 && (
          <p className="text-sm text-slate-600" data-testid="library-counts">
            {files.length} file{files.length === 1 ? '' : 's'}, {runCount} run{runCount === 1 ? '' : 's'}
          </p>
        )}
        {runCount > 0 && (
          <ErrorBoundary name="library table">
            <LibraryTable query={query} setQuery={setQuery} onRemoved={setRemoved} />
          </ErrorBoundary>
        )}
        {files.length > 0 && (
          <details open={files.length <= FILES_OPEN_MAX} className="rounded border border-slate-200 bg-slate-50 p-2" data-testid="library-files">
            <summary className="cursor-pointer text-sm font-medium text-slate-700">
              Files ({files.length}): per-file export, OTLP, remove, warnings and saved settings
            </summary>
            <div className="mt-2 flex max-h-[50vh] flex-col gap-1 overflow-y-auto">
              {[...files].reverse().map((f) => (
                <ErrorBoundary key={f.id} name={`card of ${f.name}`}>
                  <FileCard file={f} onRemoved={setRemoved} onShowRuns={(fileId) => setQuery({ ...query, fileId })} />
                </ErrorBoundary>
              ))}
            </div>
          </details>
        )}
      </div>
      {removed && <UndoToast removed={removed} onClose={() => setRemoved(undefined)} />}
      {dragging && (
        <div className="pointer-events-none absolute inset-2 flex items-center justify-center rounded-xl border-4 border-dashed border-indigo-400 bg-indigo-50/80 text-lg font-semibold text-indigo-800">
          Drop trace files to open them
        </div>
      )}
    </div>
  );
}
