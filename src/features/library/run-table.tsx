// The runs of one file as a table: what `inspect` reports, per run (SPEC §4 Library, §7).
import { useState } from 'react';
import { summarizeRun, type RunSummary } from '../../model/summary.ts';
import type { Run } from '../../model/types.ts';
import { useUrl } from '../../store/url.ts';
import { Badge, EstimatedBadge, OutcomeBadge, SimulatedBadge } from '../../ui/badge.tsx';
import { EstimateBadge } from '../compare/shadow-compare.tsx';
import { Button } from '../../ui/button.tsx';

const summaries = new WeakMap<Run, RunSummary>();

/** Runs are immutable in the store, so a summary is computed once per run object. */
export function summaryOf(run: Run): RunSummary {
  let s = summaries.get(run);
  if (!s) {
    s = summarizeRun(run);
    summaries.set(run, s);
  }
  return s;
}

const formatCount = (n: number) => n.toLocaleString('en');

/** Rows shown before "show all": a corpus file can hold thousands of runs. */
const FIRST_ROWS = 25;

export function RunTable({ runs, onExport, onExportOtlp }: { runs: Run[]; onExport(run: Run): void; onExportOtlp(run: Run): void }) {
  const navigate = useUrl((s) => s.navigate);
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? runs : runs.slice(0, FIRST_ROWS);
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="text-xs text-slate-500 uppercase">
          <tr className="border-b border-slate-200">
            <th scope="col" className="py-1.5 pr-3 font-medium">Run</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">Framework</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">Agents</th>
            <th scope="col" className="py-1.5 pr-3 text-right font-medium">Steps</th>
            <th scope="col" className="py-1.5 pr-3 text-right font-medium">Tokens</th>
            <th scope="col" className="py-1.5 pr-3 text-right font-medium">Annotations</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">Outcome</th>
            <th scope="col" className="py-1.5 pr-3 text-right font-medium" title="Spans whose parent is missing from the file">
              Orphan spans
            </th>
            <th scope="col" className="py-1.5 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((run) => {
            const s = summaryOf(run);
            return (
              <tr key={run.id} className="border-b border-slate-100 align-top last:border-0 hover:bg-slate-50" data-testid="run-row" data-run-id={run.id}>
                <td className="max-w-md py-1.5 pr-3">
                  <button
                    type="button"
                    onClick={() => navigate('run', { run: run.id })}
                    className="text-left font-medium text-indigo-700 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
                  >
                    {run.title || run.id}
                  </button>
                  <div className="mt-0.5 flex flex-wrap gap-1">
                    {run.simulated && <SimulatedBadge />}
                    <EstimateBadge run={run} />
                    {run.tags.arm && <Badge tone="info">{run.tags.arm}</Badge>}
                    {run.tags.level && <Badge>level {run.tags.level}</Badge>}
                    {run.tags.dataset && <Badge>{run.tags.dataset}</Badge>}
                    {run.interventions.length > 0 && <Badge tone="info">{run.interventions.length} intervention{run.interventions.length === 1 ? '' : 's'}</Badge>}
                  </div>
                </td>
                <td className="py-1.5 pr-3 text-slate-700">{run.framework ?? '—'}</td>
                <td className="py-1.5 pr-3 text-slate-700" data-testid="run-agents">
                  {s.agents.map((a) => a.name).join(', ') || '—'}
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums" data-testid="run-steps">
                  {formatCount(s.steps)}
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums" data-testid="run-tokens">
                  {s.tokens.estimated ? '≈' : ''}
                  {formatCount(s.tokens.total)}
                  {s.tokens.estimated && (
                    <div>
                      <EstimatedBadge />
                    </div>
                  )}
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums" data-testid="run-annotations">
                  {formatCount(s.annotations)}
                </td>
                <td className="py-1.5 pr-3">
                  <OutcomeBadge outcome={s.outcome} />
                </td>
                <td className={`py-1.5 pr-3 text-right tabular-nums ${run.orphanSpans > 0 ? 'font-semibold text-amber-700' : 'text-slate-500'}`}>
                  {formatCount(run.orphanSpans)}
                </td>
                <td className="py-1.5 text-right">
                  <Button size="sm" variant="ghost" onClick={() => onExport(run)} aria-label={`Export ${run.title || run.id} as a session`} title="Native session: lossless">
                    Export
                  </Button>
                  <Button size="sm" variant="ghost" onClick={() => onExportOtlp(run)} aria-label={`Export ${run.title || run.id} as OTLP/JSON`} title="OTLP/JSON for other trace tools; interventions as evaluation events">
                    OTLP
                  </Button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {runs.length > FIRST_ROWS && (
        <Button size="sm" variant="ghost" className="mt-1" onClick={() => setShowAll(!showAll)} aria-expanded={showAll}>
          {showAll ? 'Show fewer runs' : `Show all ${formatCount(runs.length)} runs`}
        </Button>
      )}
    </div>
  );
}
