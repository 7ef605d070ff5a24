// Corpus statistics over every library run the rectifier has audited, computed in the worker.
import { useEffect, useMemo, useState } from 'react';
import { summarizeRun, type RectifierStatistics } from '../../engine/rectifier/index.ts';
import { useLibrary } from '../../store/library.ts';
import { statisticsInWorker } from '../../workers/rectifier-client.ts';
import { Card } from '../../ui/fields.tsx';
import { OverlapHeatmap, RoundDistributionChart } from './rectifier-charts.tsx';

/** `hideWhenEmpty`: in the Corpus view the section appears only once some run has been rectified with an endpoint. */
export function RectifierStatisticsCard({ hideWhenEmpty = false }: { hideWhenEmpty?: boolean } = {}) {
  const runs = useLibrary((s) => s.runs);
  const messages = useMemo(() => Object.values(runs).flatMap(summarizeRun), [runs]);
  const [stats, setStats] = useState<{ for: typeof messages; stats: RectifierStatistics }>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (messages.length === 0) return;
    let live = true;
    statisticsInWorker(messages).then(
      (s) => live && setStats({ for: messages, stats: s }),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [messages]);
  if (messages.length === 0) {
    if (hideWhenEmpty) return null;
    return (
      <Card title="Corpus statistics" testId="rectifier-statistics">
        <p className="text-sm text-slate-600">No audited message in the library yet. Rectify runs with an endpoint to see the round distribution and indicator overlap per dataset.</p>
      </Card>
    );
  }
  const s = stats?.stats;
  return (
    <div className="space-y-3" data-testid="rectifier-statistics">
      <h2 className="text-sm font-semibold text-slate-900">
        Rectify-or-reject ({messages.length} audited messages in {new Set(messages.map((m) => m.dataset)).size} dataset(s), every rectified run in the library)
      </h2>
      {error && <p className="text-xs text-red-700">{error}</p>}
      {!s ? (
        <p className="text-xs text-slate-500">Computing…</p>
      ) : (
        <>
          <RoundDistributionChart rounds={s.rounds} />
          <OverlapHeatmap overlap={s.overlap} top={s.top} />
          <details className="rounded border border-slate-200 bg-white p-2 text-xs">
            <summary className="cursor-pointer font-medium">Top-10 indicators per dataset</summary>
            {s.top.map((t) => (
              <div key={t.dataset} className="mt-1">
                <p className="font-medium">{t.dataset}</p>
                <ol className="list-decimal pl-5 font-mono">
                  {t.indicators.map((i) => (
                    <li key={i.name}>
                      {i.name} <span className="font-sans text-slate-500">×{i.count}</span>
                    </li>
                  ))}
                </ol>
              </div>
            ))}
          </details>
        </>
      )}
    </div>
  );
}
