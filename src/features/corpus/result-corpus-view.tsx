// Result corpora (issue 15): runs that hold only a benchmark result, scored at import by the benchmark's own rule
// (exact match and contains after its normalisation), compared by configuration: accuracy by either rule and mean
// duration, with n on every figure.
import { useMemo } from 'react';
import type { Run } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { accuracy } from '../../ui/chart/chart-style.ts';
import { hasBenchmark, RESULT_GROUPINGS, resultGroups, type ResultGrouping } from './result-groups.ts';

const select = 'rounded border border-slate-300 bg-white px-1.5 py-1 text-sm';

function Bar({ rate, color }: { rate: number; color: string }) {
  return (
    <span className="inline-block h-2 w-24 rounded bg-slate-100 align-middle" aria-hidden>
      <span className="block h-2 rounded" style={{ width: `${Number.isFinite(rate) ? Math.round(rate * 100) : 0}%`, background: color }} />
    </span>
  );
}

export function ResultCorpusView({ runs }: { runs: Run[] }) {
  const files = useLibrary((s) => s.files);
  const params = useUrl((s) => s.params);
  const setParams = useUrl((s) => s.setParams);
  const by: ResultGrouping = (RESULT_GROUPINGS as readonly string[]).includes(params.rgroup ?? '') ? (params.rgroup as ResultGrouping) : 'file';
  const fileOf = useMemo(() => {
    const m = new Map<string, string>();
    for (const f of files) for (const id of f.runIds) m.set(id, f.name);
    return (id: string) => m.get(id);
  }, [files]);
  const results = useMemo(() => runs.filter(hasBenchmark), [runs]);
  const groups = useMemo(() => resultGroups(results, by, fileOf), [results, by, fileOf]);
  return (
    <section className="flex flex-col gap-2" data-testid="result-corpus" aria-label="Result corpus">
      <div className="flex flex-wrap items-end gap-3">
        <p className="max-w-3xl text-xs text-slate-600">
          Runs that record only a benchmark result ({results.length}), scored at import by the benchmark's own rule: exact match and contains after its
          normalisation (MANIFEST). Measured, not estimated; n is the number of tasks behind each figure.
        </p>
        <label className="flex flex-col text-xs text-slate-600">
          Configuration
          <select className={select} value={by} onChange={(e) => setParams({ rgroup: e.target.value === 'file' ? undefined : e.target.value })} aria-label="Compare configurations by">
            {RESULT_GROUPINGS.map((g) => <option key={g} value={g}>{g}</option>)}
          </select>
        </label>
      </div>
      {groups.length === 0 ? (
        <p className="text-sm text-slate-600">No result-only runs in the library (open e.g. a smolagents-bus result file).</p>
      ) : (
        <table className="w-full text-sm">
          <thead>
            <tr className="border-b border-slate-200 text-left text-xs text-slate-500 uppercase">
              <th scope="col" className="py-1 pr-3">{by}</th>
              <th scope="col" className="py-1 pr-3 text-right">n</th>
              <th scope="col" className="py-1 pr-3">Accuracy · exact match</th>
              <th scope="col" className="py-1 pr-3">Accuracy · contains</th>
              <th scope="col" className="py-1 pr-3 text-right">Mean duration</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => (
              <tr key={g.group} className="border-b border-slate-100" data-testid="result-group">
                <td className="max-w-md truncate py-1 pr-3" title={g.group}>{g.group}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{g.n}</td>
                <td className="py-1 pr-3 tabular-nums" data-testid="result-exact">
                  <Bar rate={g.exactMatchRate} color="#0f766e" /> {accuracy(g.exactMatchRate)} ({g.exactMatch}/{g.n}, n={g.n})
                </td>
                <td className="py-1 pr-3 tabular-nums" data-testid="result-contains">
                  <Bar rate={g.containsRate} color="#4f46e5" /> {accuracy(g.containsRate)} ({g.contains}/{g.n}, n={g.n})
                </td>
                <td className="py-1 pr-3 text-right tabular-nums">
                  {Number.isFinite(g.meanDurationS) ? `${g.meanDurationS.toFixed(1)} s` : '—'} <span className="text-xs text-slate-500">n={g.durationN}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
