// The task state of one stage as a board: subtasks in four status columns, the active one marked, changes since the
// previous stage highlighted; above it the evaluator's verdict, confidence and feedback, the summary, and the plan.
// All trace-derived text is rendered as text.
import { recordOf } from '../../model/record.ts';
import { memo, useMemo } from 'react';
import { boardChanges } from '../../engine/stages/index.ts';
import type { Stage, SubtaskStatus } from '../../model/types.ts';
import { Badge, type BadgeTone } from '../../ui/badge.tsx';

const COLUMNS: { status: SubtaskStatus; label: string; tone: string }[] = [
  { status: 'TODO', label: 'To do', tone: 'border-slate-300 bg-slate-50' },
  { status: 'NEED-REFINE', label: 'Needs refinement', tone: 'border-amber-300 bg-amber-50' },
  { status: 'DONE', label: 'Done', tone: 'border-emerald-300 bg-emerald-50' },
  { status: 'FAILED', label: 'Failed', tone: 'border-red-300 bg-red-50' },
];

const VERDICT_TONE: Record<string, BadgeTone> = recordOf({ success: 'success', 'needs refinement': 'warning', failure: 'danger' });

/** Memoised: the playhead moves every step, the stage only at its borders. */
export const SubtaskBoard = memo(function SubtaskBoard({ stage, previous, label }: { stage: Stage; previous: Stage | undefined; label: string }) {
  const changes = useMemo(() => boardChanges(previous, stage), [previous, stage]);
  const offline = stage.derivedBy === 'offline';
  return (
    <section data-testid="subtask-board" data-stage={stage.id} aria-label={`Task state of ${label}`} className="flex min-h-0 flex-col gap-2 rounded border border-slate-200 bg-white p-3">
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h3 className="text-sm font-semibold text-slate-900">Task state · {label}</h3>
        <p className="text-xs text-slate-600">{stage.closing ? 'after the last stage' : 'as the stage starts: earlier subtasks judged, the active one in progress'}</p>
      </header>
      <div className="rounded bg-slate-50 px-2 py-1.5 text-xs text-slate-800" data-testid="evaluator-verdict">
        {stage.verdict === undefined ? (
          <span className="text-slate-500">No verdict: nothing ran before this stage.</span>
        ) : (
          <>
            <span className="font-medium">{offline ? 'Outcome of the previous stage (rule):' : 'Evaluator on the previous stage:'}</span>{' '}
            <Badge tone={VERDICT_TONE[stage.verdict] ?? 'neutral'}>{stage.verdict}</Badge>{' '}
            {stage.confidence !== undefined ? (
              <span data-testid="verdict-confidence">confidence {stage.confidence.toFixed(2)}</span>
            ) : (
              <span className="text-slate-500">{offline ? 'no confidence (no evaluator offline)' : 'no confidence given'}</span>
            )}
            {stage.feedback && <span className="mt-0.5 block whitespace-pre-wrap break-words text-slate-700">{stage.feedback}</span>}
          </>
        )}
      </div>
      <div className="grid min-h-0 grid-cols-4 gap-2">
        {COLUMNS.map((col) => {
          const items = stage.subtasks.filter((s) => s.status === col.status);
          return (
            <div key={col.status} data-testid={`board-column-${col.status}`} className={`min-w-0 rounded border ${col.tone} p-1.5`}>
              <h4 className="mb-1 text-[11px] font-semibold tracking-wide text-slate-700 uppercase">
                {col.label} <span className="font-normal text-slate-500">({items.length})</span>
              </h4>
              <ul className="space-y-1">
                {items.map((s) => {
                  const change = changes.get(s.id);
                  const active = s.id === stage.nextSubtaskId;
                  return (
                    <li
                      key={s.id}
                      data-testid="subtask-card"
                      data-subtask={s.id}
                      data-status={s.status}
                      data-active={active || undefined}
                      data-changed={change ? (change.kind === 'new' ? 'new' : change.from) : undefined}
                      title={s.detail}
                      className={`rounded border bg-white px-1.5 py-1 text-xs break-words text-slate-800 ${change ? 'border-indigo-400 ring-2 ring-indigo-200' : 'border-slate-200'} ${active ? 'border-l-4 border-l-indigo-600' : ''}`}
                    >
                      <span className="mr-1 font-mono text-[10px] text-slate-500">{s.id}</span>
                      {s.title}
                      <span className="mt-0.5 flex flex-wrap gap-1">
                        {active && <Badge tone="info">active</Badge>}
                        {change?.kind === 'new' && <Badge tone="info">new</Badge>}
                        {change?.kind === 'status' && <Badge tone="warning">was {change.from}</Badge>}
                      </span>
                    </li>
                  );
                })}
              </ul>
            </div>
          );
        })}
      </div>
      <div className="space-y-1 text-xs text-slate-700">
        <p data-testid="stage-summary">
          <span className="font-medium">Completed work:</span> {stage.summary ?? '—'}
        </p>
        {stage.plan && (
          <details>
            <summary className="cursor-pointer text-slate-600">The manager's plan written in this stage ({stage.plan.length} items, as written)</summary>
            <ol className="mt-1 list-decimal space-y-0.5 pl-5">
              {stage.plan.map((p, i) => (
                <li key={i} className="break-words">
                  {p}
                </li>
              ))}
            </ol>
          </details>
        )}
        {stage.notes && stage.notes.some((n) => !n.startsWith('Heuristic:')) && (
          <details data-testid="stage-notes">
            <summary className="cursor-pointer text-amber-800">What was repaired or fell back ({stage.notes.filter((n) => !n.startsWith('Heuristic:')).length})</summary>
            <ul className="mt-1 list-disc space-y-0.5 pl-5">
              {stage.notes
                .filter((n) => !n.startsWith('Heuristic:'))
                .map((n, i) => (
                  <li key={i} className="break-words">
                    {n}
                  </li>
                ))}
            </ul>
          </details>
        )}
        {stage.tokens && (
          <p className="text-slate-500">
            Derivation cost of this stage: {stage.tokens.total.toLocaleString('en')} LLM tokens{stage.tokens.estimated ? ' (estimated)' : ''}, {stage.llmCallIds?.length ?? 0} recorded call{stage.llmCallIds?.length === 1 ? '' : 's'}
          </p>
        )}
      </div>
    </section>
  );
});
