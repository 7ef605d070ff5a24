// Imports in progress (with Cancel), import failures, and whether the library is being saved.
import { usePersistence } from '../../store/library-db.ts';
import { useLibrary } from '../../store/library.ts';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import type { ImportProgress } from '../../workers/import-client.ts';
import { useImportJobs } from './open-files.ts';

const MB = 1024 * 1024;

function describeProgress(p: ImportProgress | undefined): string {
  if (!p) return 'starting…';
  const of = p.fileCount > 1 ? ` (file ${p.fileIndex + 1} of ${p.fileCount})` : '';
  switch (p.phase) {
    case 'reading': {
      const total = p.bytesTotal ?? 0;
      const pct = total > 0 ? Math.floor(((p.bytesRead ?? 0) / total) * 100) : 0;
      return `reading ${p.file}: ${((p.bytesRead ?? 0) / MB).toFixed(1)} of ${(total / MB).toFixed(1)} MB (${pct}%)${of}`;
    }
    case 'decoding':
      return `decoding ${p.file}${of}`;
    case 'parsing':
      return `parsing ${p.file}${of}`;
    case 'attaching':
      return 'attaching annotations';
    case 'saving':
      return `saving ${p.file} in this browser${of}`;
  }
}

export function ImportProgressList() {
  const jobs = useImportJobs((s) => s.jobs);
  const lastResult = useImportJobs((s) => s.lastResult);
  return (
    <div className="flex flex-col gap-1">
      {jobs.map((job) => (
        <div key={job.id} className="flex items-center gap-3 rounded border border-indigo-200 bg-indigo-50 px-3 py-1.5 text-sm" data-testid="import-progress">
          <span className="h-3 w-3 animate-spin rounded-full border-2 border-indigo-600 border-t-transparent" aria-hidden />
          <span className="min-w-0 flex-1 truncate">
            Opening {job.label}: {describeProgress(job.progress)}
          </span>
          <Button size="sm" onClick={job.cancel}>
            Cancel
          </Button>
        </div>
      ))}
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
