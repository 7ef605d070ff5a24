// The controls every engine panel shares (supervisor, rectifier, clarifier, stages): start / resume / start over while
// no pass runs here, pause / cancel while one does, the progress bar, the failure, and what a stop or a reload left.
// The panel supplies its words; the job store (../store/job-store.ts) supplies the state.
import type { ReactNode } from 'react';
import type { JobStatus } from '../store/job-store.ts';
import { Button } from './button.tsx';
import { ErrorBanner } from './error-banner.tsx';

export interface ControlAction {
  label: string;
  onClick(): void;
  title?: string;
  variant?: 'primary' | 'secondary';
  disabled?: boolean;
}

export interface EngineControlBarProps {
  /** Prefix of the test ids: `<p>-progress`, `<p>-failure`, `<p>-interrupted`. */
  testPrefix: string;
  job: { status: JobStatus; stopping?: 'pause' | 'cancel'; pause(): void; cancel(): void };
  /** The job is on this panel's run. */
  mine: boolean;
  /** What can be started here (the main one first); all off while this engine runs anywhere, or when `blocked`. */
  actions: ControlAction[];
  blocked?: boolean;
  /** Offer Pause beside Cancel. */
  pausable?: boolean;
  size?: 'sm' | 'md';
  /** Shown in the button row before the buttons (a mode, an option of the next pass). */
  leading?: ReactNode;
  /** Words when the engine works on another run. */
  busyElsewhere: string;
  progress?: { label: string; done: number; total: number; text: ReactNode };
  failure?: { title: string; message?: string; note?: ReactNode };
  /** Said when the pass here was paused or cancelled. */
  stopped?: ReactNode;
  /** Said when a reload cut the pass here short. */
  interrupted?: ReactNode;
  /** What the next pass would cost (calls, tokens), shown under the buttons while no pass runs here (issue 21). */
  estimate?: ReactNode;
  /** Engine-specific lines between the buttons and the progress. */
  children?: ReactNode;
}

export function EngineControlBar(p: EngineControlBarProps) {
  const { job, mine } = p;
  const active = job.status === 'running';
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        {p.leading}
        {active && mine ? (
          <>
            {p.pausable && (
              <Button variant="secondary" size={p.size} onClick={job.pause} disabled={job.stopping !== undefined}>
                {job.stopping === 'pause' ? 'Pausing…' : 'Pause'}
              </Button>
            )}
            <Button variant="danger" size={p.size} onClick={job.cancel} disabled={job.stopping !== undefined}>
              {job.stopping === 'cancel' ? 'Cancelling…' : 'Cancel'}
            </Button>
          </>
        ) : (
          p.actions.map((a, i) => (
            <Button key={a.label} variant={a.variant ?? (i === 0 ? 'primary' : 'secondary')} size={p.size} disabled={active || p.blocked || a.disabled} title={a.title} onClick={a.onClick}>
              {a.label}
            </Button>
          ))
        )}
      </div>
      {active && !mine && <p className="text-xs text-slate-600">{p.busyElsewhere}</p>}
      {!(active && mine) && p.estimate}
      {p.children}
      {p.progress && mine && <ProgressBar testId={`${p.testPrefix}-progress`} status={job.status} stopping={job.stopping} {...p.progress} />}
      {mine && job.status === 'failed' && p.failure && (
        <ErrorBanner title={p.failure.title}>
          <p data-testid={`${p.testPrefix}-failure`}>{p.failure.message}</p>
          {p.failure.note && <p className="mt-1">{p.failure.note}</p>}
        </ErrorBanner>
      )}
      {mine && job.status === 'interrupted' && p.interrupted && (
        <p role="status" className="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900" data-testid={`${p.testPrefix}-interrupted`}>
          {p.interrupted}
        </p>
      )}
      {mine && (job.status === 'paused' || job.status === 'cancelled') && p.stopped && (
        <p role="status" className="text-xs text-slate-700">
          {p.stopped}
        </p>
      )}
    </div>
  );
}

const STATUS_WORDS: Record<JobStatus, string> = {
  idle: 'idle',
  running: 'running',
  paused: 'paused',
  cancelled: 'cancelled',
  failed: 'failed',
  complete: 'complete',
  interrupted: 'interrupted by a reload',
};

/** The status in words, as the progress line starts. */
export function statusWord(status: JobStatus, stopping?: 'pause' | 'cancel'): string {
  if (status === 'running' && stopping) return stopping === 'pause' ? 'pausing after the current call' : 'cancelling';
  return STATUS_WORDS[status];
}

function ProgressBar({ testId, status, stopping, label, done, total, text }: { testId: string; status: JobStatus; stopping?: 'pause' | 'cancel'; label: string; done: number; total: number; text: ReactNode }) {
  const pct = total > 0 ? Math.round((100 * done) / total) : 0;
  return (
    <div data-testid={testId} data-status={status} data-done={done} data-total={total}>
      <div className="h-2 overflow-hidden rounded bg-slate-200" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
        <div className={`h-full ${status === 'failed' ? 'bg-red-500' : 'bg-indigo-500'}`} style={{ width: `${pct}%` }} />
      </div>
      <p className="mt-1 text-xs text-slate-700">
        <span className="font-medium">{statusWord(status, stopping)}</span> · {text}
      </p>
    </div>
  );
}
