// The import report of a span file (issue 20): one line (spans read and what became of them) and, opened, the
// counts per run, what was dropped and why, and which rule named each agent and tool.
import { useState } from 'react';
import type { Run } from '../../model/types.ts';
import { spanReportLine, sumSpanReports } from '../../model/span-report.ts';

export function SpanImportReport({ runs }: { runs: Run[] }) {
  // What the folded report holds is rendered once it is opened: a file of 200 runs listed was 200 report lines
  // made (and formatted) in the task that lists them, for a list nobody had opened.
  const [open, setOpen] = useState(false);
  const total = sumSpanReports(runs.map((r) => r.spanReport));
  if (!total) return null;
  return (
    <details className="mb-2 text-xs text-slate-700" data-testid="span-report" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer">{spanReportLine(total)}</summary>
      {open && (
        <div className="mt-1 space-y-1 pl-4">
          <p>Spans read = agent spans + model calls + tool calls + other steps + spans kept as spans + spans dropped.</p>
          {total.orphans > 0 && <p>{total.orphans.toLocaleString('en')} span(s) name a parent that is not in the file: kept as roots (already in the sum).</p>}
          {total.handoffs > 0 && (
            <p>
              Besides the sum: {total.handoffs.toLocaleString('en')} handoff(s) made from the agent spans (a handoff is not a span of its own).
            </p>
          )}
          {total.dropped.length === 0 ? <p>No span was dropped.</p> : (
            <ul className="list-disc pl-4">
              {total.dropped.map((d) => (
                <li key={d.reason}>
                  {d.count.toLocaleString('en')} dropped: {d.reason}
                </li>
              ))}
            </ul>
          )}
          {runs.length > 1 && (
            <ul className="list-disc pl-4">
              {runs.map((r) =>
                r.spanReport ? (
                  <li key={r.id}>
                    <span className="font-mono">{r.id}</span>: {spanReportLine(r.spanReport)}
                  </li>
                ) : null,
              )}
            </ul>
          )}
          {(total.agentRules.length > 0 || total.toolRules.length > 0) && (
            <p>
              Named by:{' '}
              {[...total.agentRules.map((r) => `agent “${r.name}” (${r.rule})`), ...total.toolRules.map((r) => `tool “${r.name}” (${r.rule})`)].join('; ')}
            </p>
          )}
        </div>
      )}
    </details>
  );
}
