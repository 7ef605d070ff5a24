// What a run without steps does record. A benchmark's result file (one line per task: the question, the answer given,
// the expected answer, timing) gives runs with nothing to replay; the run view showed only that, while the file's
// answer, its expected answer and the benchmark's scores (which the CLI's `inspect` prints) were nowhere on screen.
// The short facts first (outcome, scores, duration, the expected answer), then the answer, then the task.
import type { Run } from '../../model/types.ts';
import { OutcomeBadge } from '../../ui/badge.tsx';
import { formatDuration } from '../../ui/format.ts';
import { MessageText } from './message-text.tsx';
import { TraceText } from './trace-text.tsx';

/** The benchmark's own scores of the run, as one line: "exact match 1 · contains 1 (rule …)". */
export function benchmarkLine(benchmark: NonNullable<Run['benchmark']>): string {
  return `exact match ${benchmark.exactMatch} · contains ${benchmark.contains} (the benchmark's rule: ${benchmark.rule})`;
}

export function RunResult({ run }: { run: Run }) {
  const { outcome, benchmark, task } = run;
  const recorded = task !== undefined || outcome.finalAnswer !== undefined || outcome.referenceAnswer !== undefined || benchmark !== undefined;
  if (!recorded) return <p className="p-6 text-sm text-slate-600">This run has no steps to replay.</p>;
  const term = 'pt-0.5 text-xs font-semibold tracking-wide text-slate-500 uppercase';
  return (
    <section data-testid="run-result" aria-label="What the run records" className="m-4 min-h-0 max-w-5xl overflow-y-auto rounded border border-slate-200 bg-white p-4 text-sm">
      <p className="mb-3 text-slate-600">This run has no steps to replay: its file records the task, the answer given and how it scored, not the steps that led there.</p>
      <dl className="grid grid-cols-[9rem_minmax(0,1fr)] gap-x-4 gap-y-3">
        <dt className={term}>Outcome</dt>
        <dd data-testid="run-result-outcome">
          <OutcomeBadge outcome={outcome.status} />
          {benchmark && <span className="ml-2 text-slate-700" data-testid="run-result-scores">{benchmarkLine(benchmark)}</span>}
        </dd>
        {benchmark?.durationS !== undefined && (
          <>
            <dt className={term}>Duration</dt>
            <dd className="tabular-nums">{formatDuration(benchmark.durationS * 1000)}</dd>
          </>
        )}
        {outcome.referenceAnswer !== undefined && (
          <>
            <dt className={term}>Expected answer</dt>
            <dd><TraceText text={outcome.referenceAnswer} testId="run-result-reference" /></dd>
          </>
        )}
        {outcome.finalAnswer !== undefined && (
          <>
            <dt className={term}>Answer given</dt>
            <dd><MessageText text={outcome.finalAnswer} testId="run-result-answer" /></dd>
          </>
        )}
        {task !== undefined && (
          <>
            <dt className={term}>Task</dt>
            <dd><TraceText text={task} testId="run-result-task" /></dd>
          </>
        )}
      </dl>
    </section>
  );
}
