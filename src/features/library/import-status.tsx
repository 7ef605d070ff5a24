// Imports in progress (with Cancel), import failures, and whether the library is being saved.
import { useEffect } from 'react';
import { usePersistence } from '../../store/library-db.ts';
import { useLibrary } from '../../store/library.ts';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import type { ImportProgress } from '../../workers/import-client.ts';
import { useImportJobs } from './open-files.ts';
import { prefetchRunPage } from '../run-view/run-page-view.ts';
import { formatCount as count } from '../../ui/format.ts';

const MB = 1024 * 1024;

/** The row's words for where an import is. */
export function describeProgress(p: ImportProgress | undefined): string {
  if (!p) return 'starting…';
  const of = p.fileCount > 1 ? ` (file ${p.fileIndex + 1} of ${p.fileCount})` : '';
  const bytes = () => {
    const total = p.bytesTotal ?? 0;
    return `${((p.bytesRead ?? 0) / MB).toFixed(1)} of ${(total / MB).toFixed(1)} MB`;
  };
  switch (p.phase) {
    case 'reading':
      // Bytes not counted: the file is read in one call (UTF-8 text).
      if (p.bytesRead === undefined) return `reading ${p.file}${p.bytesTotal !== undefined ? ` (${(p.bytesTotal / MB).toFixed(1)} MB)` : ''}${of}`;
      return `reading ${p.file}: ${bytes()}${of}`;
    case 'decoding':
      return `decoding ${p.file}${of}`;
    case 'parsing':
      // JSON Lines are parsed as they are read: the bytes say how far.
      // A JSON array of OTLP documents is parsed a document at a time from its text, read already (ofText), and one
      // OTLP document's spans a batch at a time.
      if (p.bytesRead !== undefined && p.bytesTotal !== undefined && p.bytesRead < p.bytesTotal) return `${p.ofText ? 'parsing' : 'reading and parsing'} ${p.file}: ${bytes()}${of}`;
      return `parsing ${p.file}${of}`;
    case 'counter':
      // Files that record no token usage have it estimated: the counter's table loads once per worker first.
      return `loading the token counter to estimate ${p.file}'s tokens${of}`;
    case 'mapping':
      // With a total the importer counted its own work (spans, messages, over its passes): how far, in percent.
      if (p.done !== undefined && p.total !== undefined && p.total > 0) return `mapping ${p.file} into runs: ${Math.min(100, Math.floor((100 * p.done) / p.total))}%${of}`;
      return `mapping ${p.file} into runs${p.done !== undefined ? `: ${count(p.done)} steps` : ''}${of}`;
    case 'attaching':
      return 'attaching annotations';
    case 'handing-over':
      return `handing ${p.file} to this page: ${count(p.done ?? 0)} of ${count(p.total ?? 0)} steps and handoffs${of}`;
    case 'saving':
      if (p.ofWrites && p.total) return `saving ${p.file} in this browser: ${Math.min(100, Math.floor((100 * (p.done ?? 0)) / p.total))}%${of}`;
      return `saving ${p.file} in this browser${p.total !== undefined ? `: ${count(p.done ?? 0)} of ${count(p.total)} files` : ''}${of}`;
  }
}

/** How far the current phase is, 0–1, or undefined when that cannot be known (one JSON.parse, a mapping not counted). */
export function progressFraction(p: ImportProgress | undefined): number | undefined {
  if (!p) return undefined;
  if ((p.phase === 'reading' || p.phase === 'parsing') && p.bytesTotal !== undefined && p.bytesRead !== undefined && p.bytesTotal > 0) {
    if (p.phase === 'parsing' && p.bytesRead >= p.bytesTotal) return undefined;
    return Math.min(1, p.bytesRead / p.bytesTotal);
  }
  if (p.done !== undefined && p.total !== undefined) return p.total > 0 ? Math.min(1, p.done / p.total) : 1;
  return undefined;
}

export function ImportProgressList() {
  const jobs = useImportJobs((s) => s.jobs);
  const lastResult = useImportJobs((s) => s.lastResult);
  const importing = jobs.length > 0;
  // The run view's code loads while the worker reads the files (the page is idle meanwhile): the run can be opened at
  // once when it is listed.
  useEffect(() => {
    if (importing) prefetchRunPage();
  }, [importing]);
  return (
    <div className="flex flex-col gap-1">
      {jobs.map((job) => {
        const text = `Opening ${job.label}: ${describeProgress(job.progress)}`;
        const fraction = progressFraction(job.progress);
        // Saving comes after the runs are in the library (done means stored, ADR 0013): nothing left to cancel then.
        const cancellable = job.progress?.phase !== 'saving';
        return (
          <div key={job.id} className="flex items-center gap-3 rounded border border-indigo-200 bg-indigo-50 px-3 py-1.5 text-sm" data-testid="import-progress" data-phase={job.progress?.phase ?? 'starting'}>
            <span className="min-w-0 flex-1 truncate">{text}</span>
            {/* A native progress bar (role progressbar): with a value when the phase knows how far it is, else indeterminate (a sweeping band: src/index.css). */}
            <progress
              className="studio-progress h-2 w-40 shrink-0"
              aria-label={`Opening ${job.label}`}
              aria-valuetext={describeProgress(job.progress)}
              max={1}
              {...(fraction !== undefined ? { value: fraction } : {})}
              data-testid="import-progress-bar"
            />
            {cancellable && (
              <Button size="sm" onClick={job.cancel}>
                Cancel
              </Button>
            )}
          </div>
        );
      })}
      {/* When the imports end, what they did stays as one line (until dismissed), not a banner about loading. */}
      {jobs.length === 0 && lastResult && (
        <p role="status" aria-live="polite" className="flex items-center gap-2 text-sm text-slate-700" data-testid="import-summary">
          {lastResult}
          <button type="button" className="text-xs text-indigo-700 underline" onClick={() => useImportJobs.setState({ lastResult: undefined })}>
            dismiss
          </button>
        </p>
      )}
    </div>
  );
}

export function FailureList() {
  const failures = useLibrary((s) => s.failures);
  const dismiss = useLibrary((s) => s.dismissFailure);
  if (failures.length === 0) return null;
  return (
    <div className="flex flex-col gap-2" data-testid="import-failures">
      {failures.map((f) => (
        <ErrorBanner key={f.id} title={`Could not open ${f.file}`} onDismiss={() => dismiss(f.id)}>
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 text-xs">
            <dt className="font-medium">format tried</dt>
            <dd>{f.format === 'unknown' ? 'none matched (format detection)' : f.format}</dd>
            <dt className="font-medium">where</dt>
            <dd className="font-mono">{f.location || 'the whole file'}</dd>
            <dt className="font-medium">problem</dt>
            <dd data-testid="failure-detail">{f.detail}</dd>
          </dl>
        </ErrorBanner>
      ))}
    </div>
  );
}

export function PersistenceNote() {
  const { status, problem, writes } = usePersistence();
  if (status === 'unavailable' || status === 'failed') {
    return (
      <ErrorBanner tone="warning" title="The library is not being saved">
        {problem}
      </ErrorBanner>
    );
  }
  const text = status === 'loading' ? 'Loading the saved library…' : status === 'saving' ? 'Saving…' : 'Saved in this browser';
  return (
    <span className="text-xs text-slate-500" data-testid="persistence-status" data-status={status} data-writes={writes}>
      {text}
    </span>
  );
}
