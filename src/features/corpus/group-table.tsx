// Mean tokens and accuracy per group, baseline vs supervised, with the change net of the supervisor's own tokens
// (the supervisor paper's Tables 1 and 3, as one table). Exported as CSV.
import { type CorpusStatistics, type GroupStatistics } from '../../model/statistics.ts';
import { toCsv } from '../../export/csv.ts';
import { accuracy, groupLabel, signedPct, signedPp, tokens } from '../../ui/chart/chart-style.ts';
import { ChartFrame } from '../../ui/chart/chart-frame.tsx';

export function groupTableCsv(stats: CorpusStatistics): string {
  return toCsv(
    [stats.groupBy, 'baseline_runs', 'supervised_runs', 'baseline_mean_tokens', 'supervised_mean_tokens', 'supervised_mean_overhead_tokens', 'supervised_mean_net_tokens', 'token_change_pct', 'net_token_change_pct', 'baseline_accuracy_pct', 'supervised_accuracy_pct', 'accuracy_change_pp', 'baseline_unknown_outcomes', 'supervised_unknown_outcomes'],
    [...stats.groups, stats.overall, ...(stats.overallSimulated ? [stats.overallSimulated] : [])].map((g) => [
      g.group, g.baseline.n, g.supervised.n, g.baseline.meanTokens, g.supervised.meanTokens, g.supervised.meanOverhead, g.supervised.meanNetTokens,
      g.tokenChangePct, g.netTokenChangePct, g.baseline.accuracy * 100, g.supervised.accuracy * 100, g.accuracyChangePp, g.baseline.unknown, g.supervised.unknown,
    ]),
  );
}

const changeTone = (n: number, goodWhenNegative: boolean) =>
  !Number.isFinite(n) || n === 0 ? 'text-slate-600' : n < 0 === goodWhenNegative ? 'text-emerald-700' : 'text-red-700';

function Row({ g, label, strong }: { g: GroupStatistics; label: string; strong?: boolean }) {
  const cell = 'px-2 py-1 text-right tabular-nums';
  return (
    <tr className={`border-b border-slate-100 ${strong ? 'font-semibold' : ''}`} data-testid="group-row" data-group={g.group}>
      <th scope="row" className="px-2 py-1 text-left font-medium">{label}</th>
      <td className={cell}>{g.baseline.n} / {g.supervised.n}</td>
      <td className={cell}>{tokens(g.baseline.meanTokens)}</td>
      <td className={cell}>{tokens(g.supervised.meanTokens)}</td>
      <td className={cell}>{tokens(g.supervised.meanOverhead)}</td>
      <td className={cell}>{tokens(g.supervised.meanNetTokens)}</td>
      <td className={`${cell} ${changeTone(g.netTokenChangePct, true)}`} data-testid="net-change">{signedPct(g.netTokenChangePct)}</td>
      <td className={cell}>{accuracy(g.baseline.accuracy)}</td>
      <td className={cell}>{accuracy(g.supervised.accuracy)}</td>
      <td className={`${cell} ${changeTone(g.accuracyChangePp, false)}`}>{signedPp(g.accuracyChangePp)}</td>
    </tr>
  );
}

export function GroupTable({ stats }: { stats: CorpusStatistics }) {
  const head = 'px-2 py-1 text-right font-medium';
  const unknown = stats.overall.baseline.unknown + stats.overall.supervised.unknown;
  return (
    <ChartFrame
      title="Mean tokens and accuracy"
      testId="group-table"
      exportName={`mean-tokens-accuracy-by-${stats.groupBy}`}
      csv={() => groupTableCsv(stats)}
      caption={
        <>
          Net = the supervised run's tokens plus the supervisor's own (overhead); the change compares it with the baseline mean.
          Accuracy = successes / runs with a known outcome{unknown > 0 ? ` (${unknown} runs with unknown outcome left out)` : ''}. n = runs per arm (B / S).
          {stats.overallSimulated && ' Simulated and recorded runs are never pooled: each has its own rows.'}
        </>
      }
    >
      <div className="overflow-x-auto">
        <table className="w-full text-xs">
          <thead className="text-slate-500">
            <tr className="border-b border-slate-200">
              <th scope="col" className="px-2 py-1 text-left font-medium">{stats.groupBy}</th>
              <th scope="col" className={head} title="baseline / supervised">Runs (B / S)</th>
              <th scope="col" className={head}>Baseline mean tokens</th>
              <th scope="col" className={head}>Supervised mean tokens</th>
              <th scope="col" className={head}>+ overhead</th>
              <th scope="col" className={head}>= net</th>
              <th scope="col" className={head}>Net change</th>
              <th scope="col" className={head}>Baseline accuracy</th>
              <th scope="col" className={head}>Supervised accuracy</th>
              <th scope="col" className={head}>Change</th>
            </tr>
          </thead>
          <tbody>
            {stats.groups.map((g) => <Row key={g.group} g={g} label={groupLabel(stats.groupBy, g.group)} />)}
            <Row g={stats.overall} label={stats.overallSimulated ? 'All recorded runs' : 'All runs'} strong />
            {stats.overallSimulated && <Row g={stats.overallSimulated} label="All simulated runs" strong />}
          </tbody>
        </table>
      </div>
    </ChartFrame>
  );
}
